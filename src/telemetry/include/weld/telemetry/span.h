#pragma once
/// \file
/// A finished span as it is exported (OTLP `Span`), and its attributes.
/// Attribute values are what weld decides to record — counts, names, ids,
/// outcomes — never a prompt, a payload, a schema or a key (SPEC §2.6, §8).

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
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
  // A pointer and a 32-bit size, not a string_view: a span's attribute is 32 bytes.
  const char* text_;
  std::uint32_t size_;
  std::uint32_t hash_;
};

/// Which of OTLP AnyValue's kinds a span attribute holds.
enum class ValueKind : std::uint8_t { String, Int, Double, Bool, StringArray };

/// Bytes in a span's text store (SpanData): where they start and how many.
struct TextRef {
  std::uint32_t offset;
  std::uint32_t size;
};

/// One key/value of a span, 32 bytes. A string (or an array of strings) is
/// kept in the span's text store; read it with SpanData::string_value /
/// for_each_item.
struct SpanAttribute {
  AttributeKey key;
  ValueKind kind;
  union {
    std::int64_t int_value;
    double double_value;
    bool bool_value;
    TextRef text;
  };
};

/// OTLP SpanKind (the numbers are the protocol's).
enum class SpanKind { Internal = 1, Server = 2, Client = 3 };

/// OTLP Status.code (the numbers are the protocol's).
enum class StatusCode { Unset = 0, Ok = 1, Error = 2 };

/// A span as it is recorded and exported: fixed fields, attributes in place
/// and their text in a store of its own. A span of up to 16 attributes and
/// 256 bytes of text (name, string values, status message) lives in this
/// object with no allocation of its own — what keeps recording a span cheap
/// next to the work it watches (issue 18); more spills to the heap.
class SpanData {
 public:
  SpanContext context;
  /// All zero for a root span.
  SpanId parent_span_id{};
  SpanKind kind = SpanKind::Internal;
  StatusCode status = StatusCode::Unset;
  /// Nanoseconds since the Unix epoch.
  std::uint64_t start_unix_nano = 0;
  std::uint64_t end_unix_nano = 0;

  std::string_view name() const { return text(name_); }
  void set_name(std::string_view name) { name_ = store(name); }
  /// Short, fixed text (an error code), never model or user text.
  std::string_view status_message() const { return text(status_message_); }
  void set_status_message(std::string_view message) { status_message_ = store(message); }

  /// The attributes in the order first set.
  std::span<const SpanAttribute> attributes() const {
    return heap_attributes_.empty() ? std::span<const SpanAttribute>(inline_attributes_.data(), attribute_count_)
                                    : std::span<const SpanAttribute>(heap_attributes_);
  }
  /// Sets (adds, or replaces the value of) attribute `key`.
  void set(AttributeKey key, std::string_view value);
  void set(AttributeKey key, std::int64_t value) { slot(key, ValueKind::Int).int_value = value; }
  void set(AttributeKey key, double value) { slot(key, ValueKind::Double).double_value = value; }
  void set(AttributeKey key, bool value) { slot(key, ValueKind::Bool).bool_value = value; }
  void set(AttributeKey key, std::span<const std::string> items);

  /// The value of a ValueKind::String attribute.
  std::string_view string_value(const SpanAttribute& attribute) const { return text(attribute.text); }
  /// Calls `f(std::string_view)` with each item of a ValueKind::StringArray attribute.
  template <typename F>
  void for_each_item(const SpanAttribute& attribute, F&& f) const {
    std::string_view items = text(attribute.text);
    while (items.size() >= sizeof(std::uint32_t)) {
      std::uint32_t size;
      std::memcpy(&size, items.data(), sizeof size);
      items.remove_prefix(sizeof size);
      f(items.substr(0, size));
      items.remove_prefix(std::min<std::size_t>(size, items.size()));
    }
  }

 private:
  static constexpr std::size_t kInlineAttributes = 16;
  static constexpr std::size_t kInlineText = 256;

  SpanAttribute& slot(AttributeKey key, ValueKind kind);
  SpanAttribute& append(AttributeKey key);
  TextRef store(std::string_view bytes);
  std::string_view text(TextRef ref) const {
    return {(heap_text_.empty() ? inline_text_.data() : heap_text_.data()) + ref.offset, ref.size};
  }

  TextRef name_{};
  TextRef status_message_{};
  /// One bit per key set (bit `hash % 64`): a key whose bit is clear is new,
  /// and is appended without searching the attributes for it.
  std::uint64_t key_bits_ = 0;
  std::uint32_t attribute_count_ = 0;
  std::uint32_t text_size_ = 0;
  std::array<SpanAttribute, kInlineAttributes> inline_attributes_;
  /// All the attributes, once there are more than fit in place.
  std::vector<SpanAttribute> heap_attributes_;
  std::array<char, kInlineText> inline_text_;
  /// All the text, once there is more than fits in place.
  std::string heap_text_;
};

/// Nanoseconds since the Unix epoch, now.
std::uint64_t unix_nano_now();

}  // namespace weld::telemetry
