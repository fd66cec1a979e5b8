#pragma once
/// \file
/// A finished span as it is exported (OTLP `Span`), and its attributes.
/// Attribute values are what weld decides to record — counts, names, ids,
/// outcomes — never a prompt, a payload, a schema or a key (docs/telemetry.md, "What is never exported").

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "weld/telemetry/trace_context.h"

namespace weld::telemetry {

/// An attribute value: OTLP AnyValue's string, int, double, bool, or an
/// array of strings (e.g. gen_ai.response.finish_reasons).
using AttributeValue = std::variant<std::string, std::int64_t, double, bool, std::vector<std::string>>;

/// One key/value (a resource attribute: keys may come from
/// OTEL_RESOURCE_ATTRIBUTES).
struct Attribute {
  std::string key;
  AttributeValue value;
};

using Attributes = std::vector<Attribute>;

/// A span attribute's key: always a string literal (a semantic-convention
/// name such as "gen_ai.request.model"), so a span holds it without a copy
/// and it never dangles — the constructor accepts literals only.
class AttributeKey {
 public:
  template <std::size_t N>
  consteval AttributeKey(const char (&literal)[N])  // NOLINT: implicit by design
      : text_(literal), size_(N - 1), hash_(fnv1a({literal, N - 1})) {}
  /// An unused slot's key (left uninitialised: a span's slots cost nothing until used).
  AttributeKey() = default;
  constexpr operator std::string_view() const { return text(); }  // NOLINT
  constexpr std::string_view text() const { return {text_, size_}; }
  /// A hash of the text, computed at compile time: keys compare by it first.
  constexpr std::uint32_t hash() const { return hash_; }
  friend constexpr bool operator==(const AttributeKey& a, const AttributeKey& b) {
    return a.hash_ == b.hash_ && a.text() == b.text();
  }

 private:
  static consteval std::uint32_t fnv1a(std::string_view text) {
    std::uint32_t hash = 2166136261u;
    for (char c : text) hash = (hash ^ static_cast<unsigned char>(c)) * 16777619u;
    return hash;
  }
  // A pointer and a 32-bit size, not a string_view: 16 bytes with the hash.
  const char* text_;
  std::uint32_t size_;
  std::uint32_t hash_;
};

/// Which of OTLP AnyValue's kinds a span attribute holds.
enum class ValueKind : std::uint8_t { String, Int, Double, Bool, StringArray };

/// Bytes in a span's byte store (SpanData): where they start and how many.
struct TextRef {
  std::uint32_t offset;
  std::uint32_t size;
};

/// One attribute of a span, read back from its protobuf encoding (for the
/// JSON encoding and tests; the protobuf exporter copies the bytes). Views
/// into the span: good while it lives unchanged.
struct AttributeView {
  std::string_view key;
  ValueKind kind = ValueKind::String;
  std::int64_t int_value = 0;
  double double_value = 0;
  bool bool_value = false;
  /// A String's value; a StringArray's items, encoded (read them with
  /// SpanData::for_each_item).
  std::string_view text;
};

/// OTLP SpanKind (the numbers are the protocol's).
enum class SpanKind { Internal = 1, Server = 2, Client = 3 };

/// OTLP Status.code (the numbers are the protocol's).
enum class StatusCode { Unset = 0, Ok = 1, Error = 2 };

/// A span as it is recorded and exported. Each attribute is encoded as
/// OTLP protobuf (a Span `attributes` field) when it is set, and that is all
/// a span keeps of it: where its bytes lie. What costs to record is kept in
/// the object itself — up to 16 attributes and 640 bytes of text and
/// encoding, past which it spills to the heap; under 1 KB in all, an
/// allocator's small size — so a span is one allocation (Span holds it; when
/// it ends the exporter encodes it to protobuf on the ending thread, copying
/// its attributes' bytes, or queues it by pointer for JSON and the file,
/// which read the attributes back from their bytes), so that ending a span costs its thread little.
class SpanData {
 public:
  SpanData() = default;
  /// Copies and moves take the attributes and bytes in use, not the whole place.
  SpanData(const SpanData& other) { *this = other; }
  SpanData(SpanData&& other) noexcept { *this = std::move(other); }
  SpanData& operator=(const SpanData& other) {
    if (this != &other) {
      copy_in_place(other);
      heap_attributes_ = other.heap_attributes_;
      heap_bytes_ = other.heap_bytes_;
    }
    return *this;
  }
  SpanData& operator=(SpanData&& other) noexcept {
    if (this != &other) {
      copy_in_place(other);
      heap_attributes_ = std::move(other.heap_attributes_);
      heap_bytes_ = std::move(other.heap_bytes_);
      other.heap_attributes_.clear();
      other.heap_bytes_.clear();
    }
    return *this;
  }

  SpanContext context;
  /// All zero for a root span.
  SpanId parent_span_id{};
  SpanKind kind = SpanKind::Internal;
  StatusCode status = StatusCode::Unset;
  /// Nanoseconds since the Unix epoch.
  std::uint64_t start_unix_nano = 0;
  std::uint64_t end_unix_nano = 0;

  std::string_view name() const { return bytes(name_); }
  void set_name(std::string_view name) { name_ = store(name); }
  /// Short, fixed text (an error code), never model or user text.
  std::string_view status_message() const { return bytes(status_message_); }
  void set_status_message(std::string_view message) { status_message_ = store(message); }

  /// Sets (adds, or replaces the value of) attribute `key`.
  void set(AttributeKey key, std::string_view value);
  void set(AttributeKey key, std::int64_t value);
  void set(AttributeKey key, double value);
  void set(AttributeKey key, bool value);
  void set(AttributeKey key, std::span<const std::string> items);

  /// How many attributes the span has (a replaced value counts once).
  std::size_t attribute_count() const { return attribute_count_; }
  /// Attribute `i` (in the order first set), read back from its bytes.
  AttributeView attribute(std::size_t i) const;
  /// All of them, in that order.
  std::vector<AttributeView> attributes() const;
  /// Calls `f(std::string_view)` with each item of a ValueKind::StringArray attribute.
  template <typename F>
  static void for_each_item(const AttributeView& attribute, F&& f) {
    std::string_view items = attribute.text;
    while (!items.empty()) f(next_item(items));
  }

  /// Where each attribute's protobuf bytes lie (Span field 9, a KeyValue,
  /// tag and length included), in the order first set: read with bytes().
  std::span<const TextRef> encoded_refs() const {
    return {heap_attributes_.empty() ? inline_attributes_.data() : heap_attributes_.data(), attribute_count_};
  }
  /// The attributes' protobuf bytes in all (the sum of their sizes).
  std::size_t encoded_attributes_size() const { return encoded_attributes_size_; }
  /// The attributes' protobuf bytes as one run, when they lie together in
  /// the store in the order they were set (no value replaced, nothing stored
  /// between two of them: the usual span); else nullopt, and encoded_refs()
  /// says where each attribute's bytes are.
  std::optional<std::string_view> encoded_attributes() const {
    if (!encoded_together_) return std::nullopt;
    return bytes(TextRef{encoded_begin_, encoded_attributes_size_});
  }
  /// Bytes of the store: an attribute's encoding, the name, the status message.
  std::string_view bytes(TextRef ref) const {
    return {(heap_bytes_.empty() ? inline_bytes_.data() : heap_bytes_.data()) + ref.offset, ref.size};
  }

 private:
  static constexpr std::size_t kInlineAttributes = 16;
  static constexpr std::size_t kInlineBytes = 640;

  /// Copies everything but the heap parts: the fields, and the attributes
  /// and bytes in use in place.
  void copy_in_place(const SpanData& other);

  /// Encodes attribute `key` at the end of the store and records where: a
  /// new key is appended to the attributes without searching them.
  template <typename Value>
  void set_encoded(AttributeKey key, const Value& value);
  /// The same for a key that may be set already, or past what fits in place.
  void add_slowly(AttributeKey key, TextRef encoded);
  /// `size` bytes at the end of the store, to write at once (the pointer is
  /// good until the next call); `ref` says where they are.
  char* extend(std::size_t size, TextRef& ref) {
    if (heap_bytes_.empty() && size <= kInlineBytes - byte_count_) [[likely]] {
      ref = TextRef{byte_count_, static_cast<std::uint32_t>(size)};
      char* at = inline_bytes_.data() + byte_count_;
      byte_count_ += static_cast<std::uint32_t>(size);
      return at;
    }
    return extend_slowly(size, ref);
  }
  /// The same past the bytes that fit in place.
  char* extend_slowly(std::size_t size, TextRef& ref);
  TextRef store(std::string_view bytes);
  /// The first item of encoded StringArray items, which it then drops.
  static std::string_view next_item(std::string_view& items);

  TextRef name_{};
  TextRef status_message_{};
  /// One bit per key set (bit `hash % 64`): a key whose bit is clear is new,
  /// and is appended without searching the attributes for it.
  std::uint64_t key_bits_ = 0;
  std::uint32_t attribute_count_ = 0;
  std::uint32_t byte_count_ = 0;
  std::uint32_t encoded_attributes_size_ = 0;
  /// Where the first attribute's bytes begin, and whether every later
  /// attribute's follow on (see encoded_attributes()).
  std::uint32_t encoded_begin_ = 0;
  bool encoded_together_ = true;
  // The heap parts lie with the fields above, before the bytes in place:
  // every set() asks whether they are in use, and a span is set again after
  // the request's other work has pushed it out of the cache — lines fewer
  // to bring back each time.
  /// Where all the attributes lie, once there are more than fit in place.
  std::vector<TextRef> heap_attributes_;
  /// All the bytes, once there are more than fit in place.
  std::string heap_bytes_;
  std::array<TextRef, kInlineAttributes> inline_attributes_;
  std::array<char, kInlineBytes> inline_bytes_;
};

/// Nanoseconds since the Unix epoch, now.
std::uint64_t unix_nano_now();

}  // namespace weld::telemetry
