#pragma once
// Protobuf wire format, the pieces both writers of OTLP protobuf use: the
// body writer (otlp_proto.cc) and a span recording its attributes as their
// KeyValue bytes when they are set (span.cc), so that exporting a span
// copies bytes instead of encoding its attributes again.

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

namespace weld::telemetry::detail::wire {

enum WireType : std::uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

// Lengths, keys and most values are shorter than 128: one byte, said first.
inline std::size_t varint_size(std::uint64_t value) {
  if (value < 0x80) [[likely]] return 1;
  std::size_t size = 1;
  for (; value >= 0x80; value >>= 7) ++size;
  return size;
}

inline char* put_varint(char* p, std::uint64_t value) {
  if (value < 0x80) [[likely]] {
    *p = static_cast<char>(value);
    return p + 1;
  }
  while (value >= 0x80) {
    *p++ = static_cast<char>((value & 0x7F) | 0x80);
    value >>= 7;
  }
  *p++ = static_cast<char>(value);
  return p;
}

inline char* put_tag(char* p, std::uint32_t field, WireType type) {
  return put_varint(p, (static_cast<std::uint64_t>(field) << 3) | type);
}

// Copies a short string (an attribute key or value, an id) without a call
// to memcpy, whose setup costs more than the copy of a few bytes: two
// overlapping loads and stores of 4 bytes cover 4 to 8 bytes, of 8 bytes 8 to
// 16, four of 8 bytes 16 to 32.
inline void copy_bytes(char* to, const char* from, std::size_t n) {
  auto move8 = [](char* dst, const char* src) {
    std::uint64_t word;
    std::memcpy(&word, src, 8);
    std::memcpy(dst, &word, 8);
  };
  if (n >= 8 && n <= 16) {
    move8(to, from);
    move8(to + n - 8, from + n - 8);
  } else if (n > 16 && n <= 32) {
    move8(to, from);
    move8(to + 8, from + 8);
    move8(to + n - 16, from + n - 16);
    move8(to + n - 8, from + n - 8);
  } else if (n >= 4 && n < 8) {
    std::uint32_t head, tail;
    std::memcpy(&head, from, 4);
    std::memcpy(&tail, from + n - 4, 4);
    std::memcpy(to, &head, 4);
    std::memcpy(to + n - 4, &tail, 4);
  } else if (n < 4) {
    for (std::size_t i = 0; i < n; ++i) to[i] = from[i];
  } else {
    std::memcpy(to, from, n);
  }
}

inline char* put_bytes(char* p, std::string_view bytes) {
  copy_bytes(p, bytes.data(), bytes.size());
  return p + bytes.size();
}

// A length-delimited field: tag, length, bytes.
inline char* put_bytes_field(char* p, std::uint32_t field, std::string_view bytes) {
  p = put_tag(p, field, kLengthDelimited);
  p = put_varint(p, bytes.size());
  return put_bytes(p, bytes);
}

// `bytes` (8 or 4) little-endian, as fixed64 and fixed32 are on the wire
// (one store on such a host).
inline char* put_fixed(char* p, std::uint64_t value, int bytes) {
  for (int byte = 0; byte < bytes; ++byte) *p++ = static_cast<char>(value >> (8 * byte));
  return p;
}

// AnyValue (common.proto): string_value 1, bool_value 2, int_value 3,
// double_value 4, array_value 5 (ArrayValue: repeated AnyValue values 1).
// any_size is the message's length, put_any writes its fields.
inline std::size_t any_size(std::string_view text) { return 1 + varint_size(text.size()) + text.size(); }
inline std::size_t any_size(std::int64_t number) { return 1 + varint_size(static_cast<std::uint64_t>(number)); }
inline std::size_t any_size(double) { return 1 + 8; }
inline std::size_t any_size(bool) { return 2; }
inline std::size_t array_size(std::span<const std::string> items) {
  std::size_t size = 0;
  for (const std::string& item : items) {
    const std::size_t any = any_size(std::string_view(item));
    size += 1 + varint_size(any) + any;
  }
  return size;
}
inline std::size_t any_size(std::span<const std::string> items) {
  const std::size_t array = array_size(items);
  return 1 + varint_size(array) + array;
}

inline char* put_any(char* p, std::string_view text) { return put_bytes_field(p, 1, text); }
inline char* put_any(char* p, std::int64_t number) {
  p = put_tag(p, 3, kVarint);
  return put_varint(p, static_cast<std::uint64_t>(number));
}
inline char* put_any(char* p, double number) {
  p = put_tag(p, 4, kFixed64);
  std::uint64_t bits;
  std::memcpy(&bits, &number, sizeof bits);
  return put_fixed(p, bits, 8);
}
inline char* put_any(char* p, bool flag) {
  p = put_tag(p, 2, kVarint);
  *p++ = flag ? 1 : 0;
  return p;
}
inline char* put_any(char* p, std::span<const std::string> items) {
  p = put_tag(p, 5, kLengthDelimited);
  p = put_varint(p, array_size(items));
  for (const std::string& item : items) {
    p = put_tag(p, 1, kLengthDelimited);
    p = put_varint(p, any_size(std::string_view(item)));
    p = put_any(p, std::string_view(item));
  }
  return p;
}

// KeyValue (key 1, value 2) as field `field` of its parent, tag and length
// included: its sizes, then its bytes (exactly `total` of them).
struct KeyValueSizes {
  std::size_t any;    // the AnyValue
  std::size_t body;   // the KeyValue
  std::size_t total;  // the field
};

template <typename Value>
KeyValueSizes key_value_sizes(std::uint32_t field, std::string_view key, const Value& value) {
  const std::size_t any = any_size(value);
  const std::size_t body = 1 + varint_size(key.size()) + key.size() + 1 + varint_size(any) + any;
  return {any, body, varint_size(field << 3) + varint_size(body) + body};
}

template <typename Value>
std::size_t key_value_size(std::uint32_t field, std::string_view key, const Value& value) {
  return key_value_sizes(field, key, value).total;
}

template <typename Value>
char* put_key_value(char* p, std::uint32_t field, std::string_view key, const Value& value,
                    const KeyValueSizes& sizes) {
  if (field < 16 && sizes.body < 0x80) [[likely]] {
    // Every tag and length one byte (a KeyValue shorter than 128 bytes: all
    // the attributes the proxy sets), written without asking each varint's
    // width (what a span's attribute costs the request thread).
    p[0] = static_cast<char>((field << 3) | kLengthDelimited);
    p[1] = static_cast<char>(sizes.body);
    p[2] = static_cast<char>((1 << 3) | kLengthDelimited);
    p[3] = static_cast<char>(key.size());
    p = put_bytes(p + 4, key);
    p[0] = static_cast<char>((2 << 3) | kLengthDelimited);
    p[1] = static_cast<char>(sizes.any);
    return put_any(p + 2, value);
  }
  p = put_tag(p, field, kLengthDelimited);
  p = put_varint(p, sizes.body);
  p = put_bytes_field(p, 1, key);
  p = put_tag(p, 2, kLengthDelimited);
  p = put_varint(p, sizes.any);
  return put_any(p, value);
}

template <typename Value>
char* put_key_value(char* p, std::uint32_t field, std::string_view key, const Value& value) {
  return put_key_value(p, field, key, value, key_value_sizes(field, key, value));
}

}  // namespace weld::telemetry::detail::wire
