#pragma once
/// \file
/// A finished span as it is exported (OTLP `Span`), and its attributes.
/// Attribute values are what weld decides to record — counts, names, ids,
/// outcomes — never a prompt, a payload, a schema or a key (SPEC §2.6, §8).

#include <cstdint>
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
      : text_(literal, N - 1), hash_(fnv1a(text_)) {}
  constexpr operator std::string_view() const { return text_; }  // NOLINT
  constexpr std::string_view text() const { return text_; }
  /// A hash of the text, computed at compile time: keys compare by it first.
  constexpr std::uint32_t hash() const { return hash_; }
  friend constexpr bool operator==(const AttributeKey& a, const AttributeKey& b) {
    return a.hash_ == b.hash_ && a.text_ == b.text_;
  }

 private:
  static consteval std::uint32_t fnv1a(std::string_view text) {
    std::uint32_t hash = 2166136261u;
    for (char c : text) hash = (hash ^ static_cast<unsigned char>(c)) * 16777619u;
    return hash;
  }
  std::string_view text_;
  std::uint32_t hash_;
};

/// One key/value of a span.
struct SpanAttribute {
  AttributeKey key;
  AttributeValue value;
};

/// OTLP SpanKind (the numbers are the protocol's).
enum class SpanKind { Internal = 1, Server = 2, Client = 3 };

/// OTLP Status.code (the numbers are the protocol's).
enum class StatusCode { Unset = 0, Ok = 1, Error = 2 };

/// A span once ended, ready to encode.
struct SpanData {
  SpanContext context;
  /// All zero for a root span.
  SpanId parent_span_id{};
  std::string name;
  SpanKind kind = SpanKind::Internal;
  /// Nanoseconds since the Unix epoch.
  std::uint64_t start_unix_nano = 0;
  std::uint64_t end_unix_nano = 0;
  std::vector<SpanAttribute> attributes;
  StatusCode status = StatusCode::Unset;
  /// Short, fixed text (an error code), never model or user text.
  std::string status_message;
};

/// Nanoseconds since the Unix epoch, now.
std::uint64_t unix_nano_now();

}  // namespace weld::telemetry
