#include "weld/json/parse.h"

#include <bit>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <new>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "weld/json/utf8.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

// Speed notes (docs/bench-json.md has the figures): the proxy's tagged path
// parses every request and response, so this parser avoids the allocator
// and per-byte work where it can:
// - members and elements are collected on two scratch stacks shared by all
//   depths (the first few dozen entries live inside the Parser, on the C
//   stack) and moved once into an exact-size vector when their container
//   closes: one allocation per non-empty container;
// - values are constructed where they belong (a sink per context), and a
//   string without escapes stays a view of the input until its key or value
//   string is built in place: one copy;
// - strings are scanned 16 bytes at a time (SSE2; 8 elsewhere) for the
//   bytes that need a closer look ('"', '\\', control characters, non-ASCII);
// - duplicate keys of large objects are found through a small open-addressing
//   index of member positions instead of a map of key copies.
// Behaviour (values, error messages and positions) is the same as the plain
// recursive-descent parser this replaced: parse_diff_test.cc checks it
// against a frozen copy of that parser (reference_json.h), and
// fuzz/json_diff_fuzz.cc does on random input.

namespace weld::json {
namespace {

// A LIFO stack whose first `N` slots live inside the object, so parsing a
// small document needs no heap for its scratch space. Not movable (data_ may
// point into the object itself).
template <typename T, std::size_t N>
class ScratchStack {
 public:
  ScratchStack() = default;
  ScratchStack(const ScratchStack&) = delete;
  ScratchStack& operator=(const ScratchStack&) = delete;
  ~ScratchStack() {
    truncate(0);
    if (data_ != inline_data()) ::operator delete(data_);
  }

  std::size_t size() const { return size_; }
  T* data() { return data_; }
  T& operator[](std::size_t i) { return data_[i]; }
  T& back() { return data_[size_ - 1]; }

  template <typename... Args>
  T& emplace_back(Args&&... args) {
    if (size_ == capacity_) grow();
    T* slot = ::new (static_cast<void*>(data_ + size_)) T{std::forward<Args>(args)...};
    ++size_;
    return *slot;
  }

  /// Destroys the entries from `size` up.
  void truncate(std::size_t size) {
    while (size_ > size) data_[--size_].~T();
  }

 private:
  T* inline_data() { return reinterpret_cast<T*>(inline_); }

  void grow() {
    std::size_t capacity = capacity_ * 2;
    T* fresh = static_cast<T*>(::operator new(capacity * sizeof(T)));
    for (std::size_t i = 0; i < size_; ++i) {
      ::new (static_cast<void*>(fresh + i)) T(std::move(data_[i]));
      data_[i].~T();
    }
    if (data_ != inline_data()) ::operator delete(data_);
    data_ = fresh;
    capacity_ = capacity;
  }

  alignas(T) unsigned char inline_[N * sizeof(T)];
  T* data_ = inline_data();
  std::size_t size_ = 0;
  std::size_t capacity_ = N;
};

// Objects with at least this many members find duplicates through KeyIndex;
// smaller ones compare keys one by one.
constexpr std::size_t kIndexThreshold = 16;

std::uint64_t hash_key(std::string_view key) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;  // FNV-1a
  for (unsigned char c : key) hash = (hash ^ c) * 0x100000001b3ULL;
  return hash;
}

// Open-addressing set of member positions (relative to the object's first
// member on the scratch stack), keyed by the members' keys.
class KeyIndex {
 public:
  /// Position of the member named `key`, or kNone.
  template <typename KeyAt>
  std::size_t find(std::string_view key, std::uint64_t hash, const KeyAt& key_at) const {
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
      std::uint32_t slot = slots_[i];
      if (slot == kEmpty) return kNone;
      if (key_at(slot) == key) return slot;
    }
  }

  /// Adds member `position` (its key is not in the index yet). `count` is the
  /// number of members after adding it.
  template <typename KeyAt>
  void add(std::uint32_t position, std::uint64_t hash, std::size_t count, const KeyAt& key_at) {
    if (count * 2 > slots_.size()) {
      std::vector<std::uint32_t> old = std::move(slots_);
      slots_.assign(std::bit_ceil(count * 4), kEmpty);
      for (std::uint32_t p : old) {
        if (p != kEmpty) insert(p, hash_key(key_at(p)));
      }
    }
    insert(position, hash);
  }

  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);

 private:
  void insert(std::uint32_t position, std::uint64_t hash) {
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = hash & mask;
    while (slots_[i] != kEmpty) i = (i + 1) & mask;
    slots_[i] = position;
  }

  static constexpr std::uint32_t kEmpty = 0xFFFFFFFFu;
  std::vector<std::uint32_t> slots_;
};

// Bytes a JSON string cannot copy as they are: '"', '\\', control characters
// and non-ASCII (validated as UTF-8). Returns a mask with the high bit set in
// each such byte of `word` (and possibly in later bytes: only the lowest set
// bit is exact, which is the one used).
inline std::uint64_t special_bytes(std::uint64_t word) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
  const std::uint64_t quote = word ^ (kOnes * '"');
  const std::uint64_t backslash = word ^ (kOnes * '\\');
  return (((quote - kOnes) & ~quote) | ((backslash - kOnes) & ~backslash) | ((word - kOnes * 0x20) & ~word) |
          word) &
         (kOnes * 0x80);
}


// A parsed JSON string: a view of the input when it has no escapes (nothing
// copied yet), else the decoded text. Its conversions build the key or the
// Value directly where an emplace puts it, so a string is copied once.
struct ParsedString {
  std::string_view view;
  std::string decoded;
  bool escaped = false;

  std::string_view text() const { return escaped ? std::string_view(decoded) : view; }
  operator std::string() && {  // NOLINT: implicit, for in-place emplacement
    if (escaped) return std::move(decoded);
    return std::string(view);
  }
  operator Value() && {  // NOLINT
    if (escaped) return Value(std::move(decoded));
    return Value(std::string(view));
  }
};

// A Value from anything a sink receives.
template <typename V>
Value make_value(V&& v) {
  if constexpr (std::is_same_v<std::remove_cvref_t<V>, ParsedString>) {
    return std::move(v).operator Value();
  } else {
    return Value(std::forward<V>(v));
  }
}

inline bool is_digit(char c) { return c >= '0' && c <= '9'; }

// A recursive-descent parser over a string_view. Depth is bounded by
// ParseOptions::max_depth so hostile input cannot overflow the stack.
class Parser {
 public:
  Parser(std::string_view text, const ParseOptions& options) : text_(text), options_(options) {}

  Result<Value> run() {
    skip_whitespace();
    Value value;
    if (!parse_value([&value](auto&& v) { value = make_value(std::forward<decltype(v)>(v)); }, 0)) return std::move(error_);
    skip_whitespace();
    if (pos_ != text_.size()) {
      fail("unexpected data after the JSON value");
      return std::move(error_);
    }
    return value;
  }

 private:
  [[gnu::cold]] bool fail(std::string message, ErrorCode code = ErrorCode::Parse) {
    if (!failed_) {
      failed_ = true;
      std::size_t line = 1, column = 1;
      for (std::size_t i = 0; i < pos_ && i < text_.size(); ++i) {
        if (text_[i] == '\n') { ++line; column = 1; } else { ++column; }
      }
      error_ = Error{code, std::move(message),
                     "line " + std::to_string(line) + " column " + std::to_string(column)};
    }
    return false;
  }

  [[gnu::cold]] bool fail_unexpected() {
    if (pos_ >= text_.size()) return fail("unexpected end of input");
    auto c = static_cast<unsigned char>(text_[pos_]);
    if (c >= 0x20 && c < 0x7F) return fail(std::string("unexpected character '") + static_cast<char>(c) + "'");
    char buffer[8];
    static constexpr char kHex[] = "0123456789ABCDEF";
    buffer[0] = '0'; buffer[1] = 'x'; buffer[2] = kHex[c >> 4]; buffer[3] = kHex[c & 0xF]; buffer[4] = 0;
    return fail(std::string("unexpected byte ") + buffer);
  }

  void skip_whitespace() {
    // Compact JSON has none: every byte that may follow is above ' '.
    if (pos_ < text_.size() && static_cast<unsigned char>(text_[pos_]) > ' ') return;
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == ' ' || c == '\n' || c == '\r' || c == '\t') ++pos_;
      else break;
    }
  }

  bool consume_literal(std::string_view literal) {
    if (text_.size() - pos_ < literal.size() || std::memcmp(text_.data() + pos_, literal.data(), literal.size()) != 0) {
      return fail_unexpected();
    }
    pos_ += literal.size();
    return true;
  }

  // Parses the value at pos_ and hands it to `sink`, a callable taking any
  // of std::string&&, Object&&, Array&&, bool, std::int64_t, double or
  // nullptr, which constructs the Value where it belongs (in place, without a
  // temporary Value to move).
  template <typename Sink>
  bool parse_value(const Sink& sink, int depth) {
    if (pos_ >= text_.size()) return fail("unexpected end of input");
    switch (text_[pos_]) {
      case '{': {
        Object object;
        if (!parse_object(object, depth + 1)) return false;
        sink(std::move(object));
        return true;
      }
      case '[': {
        Array array;
        if (!parse_array(array, depth + 1)) return false;
        sink(std::move(array));
        return true;
      }
      case '"': {
        ParsedString s;
        if (!parse_string(s)) return false;
        sink(std::move(s));
        return true;
      }
      case 't': if (!consume_literal("true")) return false; sink(true); return true;
      case 'f': if (!consume_literal("false")) return false; sink(false); return true;
      case 'n': if (!consume_literal("null")) return false; sink(nullptr); return true;
      default: return parse_number(sink);
    }
  }

  bool check_depth(int depth) {
    if (depth > options_.max_depth) {
      // Its own code: a caller that keeps other parse errors generic (a
      // schema file's content is never quoted) can still say why.
      return fail("nesting deeper than " + std::to_string(options_.max_depth) + " levels", ErrorCode::Depth);
    }
    return true;
  }

  // Parses the object at pos_ into `out` (empty).
  bool parse_object(Object& out, int depth) {
    if (!check_depth(depth)) return false;
    ++pos_;  // '{'
    skip_whitespace();
    if (pos_ < text_.size() && text_[pos_] == '}') {
      ++pos_;
      return true;
    }
    // This object's members are members_[base, members_.size()).
    const std::size_t base = members_.size();
    KeyIndex index;  // filled once the object reaches kIndexThreshold members
    auto key_at = [this, base](std::uint32_t position) -> std::string_view { return members_[base + position].key; };
    while (true) {
      skip_whitespace();
      if (pos_ >= text_.size() || text_[pos_] != '"') {
        if (pos_ < text_.size() && text_[pos_] == '}') return fail("trailing comma in object");
        return pos_ >= text_.size() ? fail("unexpected end of input") : fail("expected a string key");
      }
      ParsedString parsed_key;
      if (!parse_string(parsed_key)) return false;
      const std::string_view key = parsed_key.text();
      skip_whitespace();
      if (pos_ >= text_.size() || text_[pos_] != ':') {
        return pos_ >= text_.size() ? fail("unexpected end of input") : fail("expected ':' after key");
      }
      ++pos_;
      skip_whitespace();
      // The member's slot: a repeated key keeps its first position and takes
      // the last value, like JSON.parse.
      const std::size_t count = members_.size() - base;
      std::size_t position = KeyIndex::kNone;
      if (count < kIndexThreshold) {
        for (std::size_t i = base; i < members_.size(); ++i) {
          const std::string& other = members_[i].key;
          // Length and first byte first: most keys differ there.
          if (other.size() == key.size() && (key.empty() || (other[0] == key[0] && std::string_view(other) == key))) {
            position = i - base;
            break;
          }
        }
      } else {
        position = index.find(key, hash_key(key), key_at);
      }
      if (position == KeyIndex::kNone) {
        // A nested container pushes and pops its own members above ours, so
        // the new member goes on the stack once its value is complete.
        if (!parse_value([&](auto&& v) { members_.emplace_back(std::move(parsed_key), std::forward<decltype(v)>(v)); },
                         depth)) {
          return false;
        }
        if (count + 1 == kIndexThreshold) {
          for (std::uint32_t p = 0; p <= count; ++p) index.add(p, hash_key(key_at(p)), p + 1, key_at);
        } else if (count + 1 > kIndexThreshold) {
          index.add(static_cast<std::uint32_t>(count), hash_key(key_at(static_cast<std::uint32_t>(count))), count + 1,
                    key_at);
        }
      } else {
        const std::size_t slot = base + position;
        if (!parse_value([&](auto&& v) { members_[slot].value = make_value(std::forward<decltype(v)>(v)); }, depth)) {
          return false;
        }
      }
      skip_whitespace();
      if (pos_ >= text_.size()) return fail("unexpected end of input");
      if (text_[pos_] == ',') { ++pos_; continue; }
      if (text_[pos_] == '}') { ++pos_; break; }
      return fail("expected ',' or '}' in object");
    }
    Member* first = members_.data() + base;
    out = Object(std::make_move_iterator(first), std::make_move_iterator(members_.data() + members_.size()));
    members_.truncate(base);
    return true;
  }

  // Parses the array at pos_ into `out` (empty).
  bool parse_array(Array& out, int depth) {
    if (!check_depth(depth)) return false;
    ++pos_;  // '['
    skip_whitespace();
    if (pos_ < text_.size() && text_[pos_] == ']') {
      ++pos_;
      return true;
    }
    // This array's elements are values_[base, values_.size()).
    const std::size_t base = values_.size();
    while (true) {
      skip_whitespace();
      if (pos_ < text_.size() && text_[pos_] == ']') return fail("trailing comma in array");
      if (!parse_value([this](auto&& v) { values_.emplace_back(std::forward<decltype(v)>(v)); }, depth)) return false;
      skip_whitespace();
      if (pos_ >= text_.size()) return fail("unexpected end of input");
      if (text_[pos_] == ',') { ++pos_; continue; }
      if (text_[pos_] == ']') { ++pos_; break; }
      return fail("expected ',' or ']' in array");
    }
    Value* first = values_.data() + base;
    out = Array(std::make_move_iterator(first), std::make_move_iterator(values_.data() + values_.size()));
    values_.truncate(base);
    return true;
  }

  // Index of the first byte at or after `from` that is '"', '\\', a control
  // character or non-ASCII; text_.size() when there is none.
  std::size_t scan_string_run(std::size_t from) const {
    const char* data = text_.data();
    const std::size_t size = text_.size();
    std::size_t i = from;
#if defined(__SSE2__)
    // 16 bytes at a time: a signed compare with ' ' flags control
    // characters and non-ASCII bytes (negative as signed) together.
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    const __m128i space = _mm_set1_epi8(' ');
    for (; i + 16 <= size; i += 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + i));
      const __m128i special = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                                           _mm_cmplt_epi8(v, space));
      if (const auto mask = static_cast<unsigned>(_mm_movemask_epi8(special))) return i + std::countr_zero(mask);
    }
#endif
    if constexpr (std::endian::native == std::endian::little) {
      for (; i + 8 <= size; i += 8) {
        std::uint64_t word;
        std::memcpy(&word, data + i, 8);
        if (std::uint64_t mask = special_bytes(word)) return i + (std::countr_zero(mask) >> 3);
      }
    }
    for (; i < size; ++i) {
      auto c = static_cast<unsigned char>(data[i]);
      if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) return i;
    }
    return size;
  }

  // The string starting at `start` (after its opening quote) has an escape
  // at pos_: reserves its raw length (never less than the decoded one) so
  // that decoding appends without growing the string again and again.
  void reserve_for_escaped_string(std::string& out, std::size_t start) const {
    const char* data = text_.data();
    std::size_t i = pos_;
    while (true) {
      const void* quote = std::memchr(data + i, '"', text_.size() - i);
      if (quote == nullptr) return;  // unterminated: the caller reports it
      const std::size_t at = static_cast<std::size_t>(static_cast<const char*>(quote) - data);
      std::size_t backslashes = 0;
      while (data[at - 1 - backslashes] == '\\') ++backslashes;  // stops at the opening quote
      if (backslashes % 2 == 0) {
        out.reserve(at - start);
        return;
      }
      i = at + 1;
    }
  }

  // Parses the string at pos_ (the opening quote) into `parsed` (empty).
  [[gnu::always_inline]] bool parse_string(ParsedString& parsed) {
    ++pos_;  // opening quote
    std::size_t run_start = pos_;
    std::string& out = parsed.decoded;
    const auto* bytes = reinterpret_cast<const unsigned char*>(text_.data());
    while (true) {
      pos_ = scan_string_run(pos_);
      if (pos_ >= text_.size()) return fail("unterminated string");
      const unsigned char c = bytes[pos_];
      if (c == '"') {
        if (parsed.escaped) {
          out.append(text_.data() + run_start, pos_ - run_start);
        } else {
          parsed.view = text_.substr(run_start, pos_ - run_start);
        }
        ++pos_;
        return true;
      }
      if (c >= 0x80) {
        std::size_t len = utf8_sequence_length(bytes + pos_, bytes + text_.size());
        if (len == 0) return fail("invalid UTF-8 in string");
        pos_ += len;
        continue;
      }
      if (c < 0x20) return fail("control character in string (must be escaped)");
      // A backslash.
      if (!parsed.escaped) {
        parsed.escaped = true;
        reserve_for_escaped_string(out, run_start);
      }
      out.append(text_.data() + run_start, pos_ - run_start);
      ++pos_;
      if (pos_ >= text_.size()) return fail("unterminated string");
      const char letter = text_[pos_];
      switch (decode_escape(text_, pos_, out)) {
        case EscapeError::None: break;
        case EscapeError::Truncated: return fail("unexpected end of input in \\u escape");
        case EscapeError::BadHex: return fail("invalid hex digit in \\u escape");
        case EscapeError::LoneSurrogate: return fail("lone surrogate in \\u escape");
        case EscapeError::Unknown: return fail(std::string("invalid escape '\\") + letter + "'");
      }
      run_start = pos_;
    }
  }

  template <typename Sink>
  bool parse_number(const Sink& sink) {
    const std::size_t start = pos_;
    const char* data = text_.data();
    const std::size_t size = text_.size();
    bool is_integer = true;
    bool negative = false;
    if (pos_ < size && data[pos_] == '-') {
      negative = true;
      ++pos_;
    }
    if (pos_ >= size) return fail_unexpected();
    const std::size_t digits_start = pos_;
    if (data[pos_] == '0') {
      ++pos_;
      if (pos_ < size && is_digit(data[pos_])) return fail("leading zero in number");
    } else if (data[pos_] >= '1' && data[pos_] <= '9') {
      while (pos_ < size && is_digit(data[pos_])) ++pos_;
    } else {
      return fail_unexpected();
    }
    const std::size_t digits_end = pos_;
    if (pos_ < size && data[pos_] == '.') {
      is_integer = false;
      ++pos_;
      if (pos_ >= size || !is_digit(data[pos_])) return fail("expected a digit after '.' in number");
      while (pos_ < size && is_digit(data[pos_])) ++pos_;
    }
    if (pos_ < size && (data[pos_] == 'e' || data[pos_] == 'E')) {
      is_integer = false;
      ++pos_;
      if (pos_ < size && (data[pos_] == '+' || data[pos_] == '-')) ++pos_;
      if (pos_ >= size || !is_digit(data[pos_])) return fail("expected a digit in number exponent");
      while (pos_ < size && is_digit(data[pos_])) ++pos_;
    }
    if (is_integer && digits_end - digits_start <= 18) {
      // Up to 18 digits always fit in int64: no overflow check needed.
      std::int64_t magnitude = 0;
      for (std::size_t i = digits_start; i < digits_end; ++i) magnitude = magnitude * 10 + (data[i] - '0');
      sink(negative ? -magnitude : magnitude);
      return true;
    }
    const char* first = data + start;
    const char* last = data + pos_;
    if (is_integer) {
      std::int64_t i;
      auto [end, ec] = std::from_chars(first, last, i);
      if (ec == std::errc() && end == last) {
        sink(i);
        return true;
      }
      // Too large for int64: a Real that keeps its digits (writing it
      // back must not round it), within double's range like every number.
      double d;
      if (std::from_chars(first, last, d).ec == std::errc::result_out_of_range) {
        pos_ = start;
        return fail("number out of range");
      }
      sink(BigInteger{std::string(first, last)});
      return true;
    }
    double d;
    auto [end, ec] = std::from_chars(first, last, d);
    if (ec == std::errc::result_out_of_range) {
      // Underflow (a tiny magnitude) rounds to zero; overflow has no value.
      std::string_view lexeme(first, static_cast<std::size_t>(last - first));
      std::size_t exp = lexeme.find_first_of("eE");
      if (exp == std::string_view::npos || exp + 1 >= lexeme.size() || lexeme[exp + 1] != '-') {
        pos_ = start;
        return fail("number out of range");
      }
      d = lexeme.front() == '-' ? -0.0 : 0.0;
    } else if (ec != std::errc() || end != last) {
      pos_ = start;
      return fail("invalid number");
    }
    sink(d);
    return true;
  }

  std::string_view text_;
  const ParseOptions& options_;
  std::size_t pos_ = 0;
  bool failed_ = false;
  Error error_;
  // Scratch space for the members and elements of the containers being
  // parsed (outer containers' entries below inner ones').
  ScratchStack<Member, 24> members_;
  ScratchStack<Value, 32> values_;
};

}  // namespace

Result<Value> parse(std::string_view text, const ParseOptions& options) {
  return Parser(text, options).run();
}

}  // namespace weld::json
