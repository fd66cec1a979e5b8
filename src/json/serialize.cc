#include "weld/json/serialize.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

// Speed notes (docs/bench-json.md has the figures): the proxy serializes every
// tagged request and reply, so the writer sizes the output once from a cheap
// walk of the value (exact when no string needs escapes), then writes through
// a raw pointer instead of growing the string piece by piece; strings are
// scanned 16 bytes at a time (SSE2; 8 elsewhere) for the bytes to escape and
// copied in whole runs.
// The output is byte for byte what the plain writer produced: parse_diff_test.cc
// and fuzz/json_diff_fuzz.cc compare it with a frozen copy (reference_json.h).

namespace weld::json {
namespace {

// Writes into `out` past its current end through a raw pointer. The string's
// size covers the reserved space while writing; finish() trims it.
class Writer {
 public:
  explicit Writer(std::string& out) : out_(out) { point_at(out.size()); }
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;
  ~Writer() { out_.resize(static_cast<std::size_t>(cur_ - out_.data())); }

  /// Makes room for `n` more bytes; returns where to write them.
  char* reserve(std::size_t n) {
    if (static_cast<std::size_t>(end_ - cur_) < n) grow(n);
    return cur_;
  }
  /// Declares `n` bytes written at the pointer reserve() returned.
  void commit(std::size_t n) { cur_ += n; }
  /// Declares the bytes up to `end` (inside the reserved space) written.
  void commit_to(char* end) { cur_ = end; }

  void put(char c) { *reserve(1) = c; ++cur_; }
  void put(const char* data, std::size_t n) {
    std::memcpy(reserve(n), data, n);
    cur_ += n;
  }

 private:
  void point_at(std::size_t used) {
    cur_ = out_.data() + used;
    end_ = out_.data() + out_.size();
  }

  // Exposes the reserved capacity a slice at a time (resize() zero-fills
  // what it exposes) and asks the allocator for more only when it runs out.
  void grow(std::size_t n) {
    const auto used = static_cast<std::size_t>(cur_ - out_.data());
    const std::size_t want = used + n;
    if (want > out_.capacity()) out_.reserve(std::max(want, out_.capacity() * 2));
    out_.resize(std::min(out_.capacity(), want + kSlice));
    point_at(used);
  }

  static constexpr std::size_t kSlice = 512;

  std::string& out_;
  char* cur_ = nullptr;  // next byte to write
  char* end_ = nullptr;  // end of the writable space (out_.size())
};

// Bytes a JSON string must escape: '"', '\\' and control characters (non-ASCII
// UTF-8 is written as is). High bit set in each such byte of `word` (only the
// lowest set bit is exact, which is the one used).
inline std::uint64_t escape_bytes(std::uint64_t word) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
  const std::uint64_t quote = word ^ (kOnes * '"');
  const std::uint64_t backslash = word ^ (kOnes * '\\');
  return (((quote - kOnes) & ~quote) | ((backslash - kOnes) & ~backslash) | ((word - kOnes * 0x20) & ~word)) &
         (kOnes * 0x80);
}

// The bytes to escape, as a table for the bytes the 8-byte loop does not cover.
constexpr struct EscapeTable {
  bool escape[256] = {};
  constexpr EscapeTable() {
    for (int c = 0; c < 0x20; ++c) escape[c] = true;
    escape[static_cast<unsigned char>('"')] = true;
    escape[static_cast<unsigned char>('\\')] = true;
  }
} kEscapeTable;

// A string to write, and how many bytes from its start may be read: when it
// lives in a std::string that is its capacity plus the terminator's byte
// (libstdc++ allocates that far, and a short string's own buffer is 16
// bytes), which lets short strings be scanned as one block; the bytes past
// size() are masked off.
struct Source {
  const char* data;
  std::size_t size;
  std::size_t readable;
};

inline std::uint64_t load_word(const char* p) {
  std::uint64_t word;
  std::memcpy(&word, p, 8);
  return word;
}

#if defined(__SSE2__)
// One bit per byte of `v` that must be escaped: '"', '\\' and control
// characters, the bytes b with max(b, 0x1F) == 0x1F (an unsigned compare;
// non-ASCII is copied as is).
inline unsigned escape_lanes(__m128i v) {
  const __m128i last_control = _mm_set1_epi8(0x1F);
  const __m128i escape = _mm_or_si128(
      _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
      _mm_cmpeq_epi8(_mm_max_epu8(v, last_control), last_control));
  return static_cast<unsigned>(_mm_movemask_epi8(escape));
}
#endif

// Copies s[from..] to `p` up to the first byte to escape; returns that byte's
// index (s.size when none). Copies 16 (or 8) bytes at a time, so it may write
// up to 16 bytes past the copied run (the caller reserves that slack).
inline std::size_t copy_run(const Source& s, std::size_t from, char* p) {
  std::size_t i = from;
#if defined(__SSE2__)
  for (; i + 16 <= s.size; i += 16) {  // 16 bytes at a time
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data + i));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p + (i - from)), v);
    if (const unsigned mask = escape_lanes(v)) return i + std::countr_zero(mask);
  }
  if (i == s.size) return i;
  if (i + 16 <= s.readable) {
    // Fewer than 16 bytes left, but 16 readable (every short string): one
    // block, the bytes past the end masked off.
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data + i));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p + (i - from)), v);
    const unsigned mask = escape_lanes(v) & ((1u << (s.size - i)) - 1);
    return mask != 0 ? i + std::countr_zero(mask) : s.size;
  }
#endif
  if constexpr (std::endian::native == std::endian::little) {
    for (; i + 8 <= s.size; i += 8) {
      const std::uint64_t word = load_word(s.data + i);
      std::memcpy(p + (i - from), &word, 8);
      if (std::uint64_t mask = escape_bytes(word)) return i + (std::countr_zero(mask) >> 3);
    }
    if (i == s.size) return i;
    if (i + 8 <= s.readable) {
      // Fewer than 8 bytes left, but 8 readable: one word, the bytes past
      // the end masked off.
      const std::uint64_t word = load_word(s.data + i);
      std::memcpy(p + (i - from), &word, 8);
      const std::uint64_t mask = escape_bytes(word) & (~std::uint64_t{0} >> (64 - 8 * (s.size - i)));
      return mask != 0 ? i + (std::countr_zero(mask) >> 3) : s.size;
    }
    if (s.size - from >= 8) {
      // The last 8 bytes of the run, overlapping bytes already checked.
      const std::size_t last = s.size - 8;
      const std::uint64_t word = load_word(s.data + last);
      std::memcpy(p + (last - from), &word, 8);
      const std::uint64_t mask = escape_bytes(word);
      return mask != 0 ? last + (std::countr_zero(mask) >> 3) : s.size;
    }
  }
  for (; i < s.size; ++i) {
    const char c = s.data[i];
    if (kEscapeTable.escape[static_cast<unsigned char>(c)]) return i;
    p[i - from] = c;
  }
  return s.size;
}

// Writes `before` (unless 0), the quoted string, then `after` (unless 0).
[[gnu::always_inline]] inline void write_string_to(Writer& w, const Source& s, char before = 0, char after = 0) {
  static constexpr char kHex[] = "0123456789abcdef";
  // Room for the common case (nothing to escape) and copy_run's slack; each
  // escape asks for more.
  constexpr std::size_t kSlack = 16;
  char* p = w.reserve(s.size + 4 + kSlack);
  if (before != 0) *p++ = before;
  *p++ = '"';
  std::size_t i = 0;
  while (true) {
    const std::size_t stop = copy_run(s, i, p);
    p += stop - i;
    if (stop == s.size) break;
    const auto c = static_cast<unsigned char>(s.data[stop]);
    i = stop + 1;
    // Room for this escape, the rest of the string, the quote and `after`.
    w.commit_to(p);
    p = w.reserve(6 + (s.size - i) + 2 + kSlack);
    *p++ = '\\';
    switch (c) {
      case '"': *p++ = '"'; break;
      case '\\': *p++ = '\\'; break;
      case '\n': *p++ = 'n'; break;
      case '\r': *p++ = 'r'; break;
      case '\t': *p++ = 't'; break;
      case '\b': *p++ = 'b'; break;
      case '\f': *p++ = 'f'; break;
      default:
        std::memcpy(p, "u00", 3);
        p[3] = kHex[c >> 4];
        p[4] = kHex[c & 0xF];
        p += 5;
    }
  }
  *p++ = '"';
  if (after != 0) *p++ = after;
  w.commit_to(p);
}

inline Source source_of(const std::string& s) { return {s.data(), s.size(), s.capacity() + 1}; }

void write_real(Writer& w, double d) {
  if (!std::isfinite(d)) {  // not representable in JSON; JSON.stringify writes null
    w.put("null", 4);
    return;
  }
  char* p = w.reserve(32 + 2);
  auto [end, ec] = std::to_chars(p, p + 32, d);
  std::string_view text(p, static_cast<std::size_t>(end - p));
  if (text.find_first_of(".eE") == std::string_view::npos) {
    std::memcpy(end, ".0", 2);
    end += 2;
  }
  w.commit_to(end);
}

inline void write_integer(Writer& w, std::int64_t i) {
  char* p = w.reserve(20);
  auto [end, ec] = std::to_chars(p, p + 20, i);
  w.commit_to(end);
}

void newline(Writer& w, int indent, int depth) {
  const auto spaces = static_cast<std::size_t>(indent * depth);
  char* p = w.reserve(1 + spaces);
  *p = '\n';
  std::memset(p + 1, ' ', spaces);
  w.commit(1 + spaces);
}

void write_container(Writer& w, const Value& value, int indent, int depth);

// Any value: scalars written here, in the caller's loop; containers recurse.
[[gnu::always_inline]] inline void write(Writer& w, const Value& value, int indent, int depth) {
  switch (value.type()) {
    case Type::Null: w.put("null", 4); return;
    case Type::Boolean: value.as_bool() ? w.put("true", 4) : w.put("false", 5); return;
    case Type::Integer: write_integer(w, value.as_integer()); return;
    case Type::Real:
      if (const std::string* digits = value.big_integer_digits()) {
        w.put(digits->data(), digits->size());
        return;
      }
      write_real(w, value.as_real());
      return;
    case Type::String: write_string_to(w, source_of(value.as_string())); return;
    case Type::Array:
    case Type::Object: write_container(w, value, indent, depth); return;
  }
}

void write_container(Writer& w, const Value& value, int indent, int depth) {
  if (value.is_array()) {
    const Array& array = value.as_array();
    w.put('[');
    for (std::size_t i = 0; i < array.size(); ++i) {
      if (i > 0) w.put(',');
      if (indent > 0) newline(w, indent, depth + 1);
      write(w, array[i], indent, depth + 1);
    }
    if (indent > 0 && !array.empty()) newline(w, indent, depth);
    w.put(']');
    return;
  }
  const Object& object = value.as_object();
  if (indent == 0) {
    // Compact: '{' or ',' then "key": in one go.
    char before = '{';
    for (const Member& member : object) {
      write_string_to(w, source_of(member.key), before, ':');
      write(w, member.value, indent, depth + 1);
      before = ',';
    }
    if (object.empty()) w.put('{');
    w.put('}');
    return;
  }
  w.put('{');
  for (std::size_t i = 0; i < object.size(); ++i) {
    if (i > 0) w.put(',');
    newline(w, indent, depth + 1);
    write_string_to(w, source_of(object[i].key), 0, ':');
    w.put(' ');
    write(w, object[i].value, indent, depth + 1);
  }
  if (!object.empty()) newline(w, indent, depth);
  w.put('}');
}

// Compact output size of `value` when no string needs an escape (numbers
// counted at their longest): enough to write most documents without growing.
// Scalars are sized inline; only containers recurse.
std::size_t estimate_size(const Value& value);

inline std::size_t estimate_member_size(const Value& value) {
  switch (value.type()) {
    case Type::Null: return 4;
    case Type::Boolean: return 5;
    case Type::Integer: return 20;
    case Type::Real: return 24;
    case Type::String: return value.as_string().size() + 2;
    default: return estimate_size(value);
  }
}

std::size_t estimate_size(const Value& value) {
  std::size_t size = 2;
  if (value.is_array()) {
    for (const Value& element : value.as_array()) size += estimate_member_size(element) + 1;
  } else if (value.is_object()) {
    for (const Member& member : value.as_object()) size += member.key.size() + 4 + estimate_member_size(member.value);
  } else {
    size = estimate_member_size(value);
  }
  return size;
}

}  // namespace

void write_string(std::string& out, std::string_view s) {
  Writer w(out);
  write_string_to(w, Source{s.data(), s.size(), s.size()});
}

std::string quote(std::string_view s) {
  std::string out;
  write_string(out, s);
  return out;
}

void serialize_to(std::string& out, const Value& value, const SerializeOptions& options) {
  // + 16: room for the 8-byte string copies' slack at the very end.
  if (options.indent == 0) out.reserve(out.size() + estimate_size(value) + 16);
  Writer w(out);
  write(w, value, options.indent, 0);
}

std::string serialize(const Value& value, const SerializeOptions& options) {
  std::string out;
  serialize_to(out, value, options);
  return out;
}

}  // namespace weld::json
