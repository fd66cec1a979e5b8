// A span's attributes and bytes, kept in place (span.h); each attribute
// encoded as OTLP protobuf when it is set.

#include "weld/telemetry/span.h"

#include "proto_wire.h"

namespace weld::telemetry {

namespace wire = detail::wire;

/// Span.attributes is field 9 (trace.proto).
constexpr std::uint32_t kAttributesField = 9;

void SpanData::copy_in_place(const SpanData& other) {
  context = other.context;
  parent_span_id = other.parent_span_id;
  kind = other.kind;
  status = other.status;
  start_unix_nano = other.start_unix_nano;
  end_unix_nano = other.end_unix_nano;
  name_ = other.name_;
  status_message_ = other.status_message_;
  key_bits_ = other.key_bits_;
  attribute_count_ = other.attribute_count_;
  byte_count_ = other.byte_count_;
  encoded_attributes_size_ = other.encoded_attributes_size_;
  encoded_begin_ = other.encoded_begin_;
  encoded_together_ = other.encoded_together_;
  if (other.heap_attributes_.empty()) {
    std::copy_n(other.inline_attributes_.begin(), attribute_count_, inline_attributes_.begin());
  }
  if (other.heap_bytes_.empty()) std::memcpy(inline_bytes_.data(), other.inline_bytes_.data(), byte_count_);
}

SpanAttribute& SpanData::slot_slowly(AttributeKey key, ValueKind kind) {
  const std::uint64_t bit = std::uint64_t{1} << (key.hash() % 64);
  SpanAttribute* begin = heap_attributes_.empty() ? inline_attributes_.data() : heap_attributes_.data();
  if ((key_bits_ & bit) != 0) [[unlikely]] {
    for (SpanAttribute* at = begin; at != begin + attribute_count_; ++at) {
      if (at->key == key) {
        at->kind = kind;  // a replaced value's old bytes stay in the store, unused
        return *at;
      }
    }
  }
  key_bits_ |= bit;
  SpanAttribute* attribute;
  if (heap_attributes_.empty() && attribute_count_ < kInlineAttributes) [[likely]] {
    attribute = begin + attribute_count_;
  } else {
    if (heap_attributes_.empty()) {
      heap_attributes_.reserve(2 * kInlineAttributes);
      heap_attributes_.assign(inline_attributes_.begin(), inline_attributes_.end());
    }
    attribute = &heap_attributes_.emplace_back();
  }
  ++attribute_count_;
  attribute->key = key;
  attribute->kind = kind;
  attribute->encoded = TextRef{0, 0};
  return *attribute;
}

char* SpanData::extend_slowly(std::size_t size, TextRef& ref) {
  ref = TextRef{byte_count_, static_cast<std::uint32_t>(size)};
  if (heap_bytes_.empty()) {
    heap_bytes_.reserve(2 * kInlineBytes + size);
    heap_bytes_.assign(inline_bytes_.data(), byte_count_);
  }
  heap_bytes_.resize(byte_count_ + size);
  char* at = heap_bytes_.data() + byte_count_;
  byte_count_ += static_cast<std::uint32_t>(size);
  return at;
}

TextRef SpanData::store(std::string_view bytes) {
  TextRef ref;
  wire::put_bytes(extend(bytes.size(), ref), bytes);
  return ref;
}

template <typename Value>
SpanAttribute& SpanData::set_encoded(AttributeKey key, ValueKind kind, const Value& value) {
  const std::string_view name = key.text();
  TextRef encoded;
  wire::put_key_value(extend(wire::key_value_size(kAttributesField, name, value), encoded), kAttributesField, name,
                      value);
  SpanAttribute& attribute = slot(key, kind);
  if (attribute.encoded.size != 0) {
    encoded_together_ = false;  // a replaced value's bytes stay between the others
  } else if (attribute_count_ == 1) {
    encoded_begin_ = encoded.offset;
  } else if (encoded.offset != encoded_begin_ + encoded_attributes_size_) {
    encoded_together_ = false;  // a status message or an array's items came between
  }
  encoded_attributes_size_ += encoded.size - attribute.encoded.size;  // a replaced value's bytes no longer count
  attribute.encoded = encoded;
  return attribute;
}

void SpanData::set(AttributeKey key, std::string_view value) {
  SpanAttribute& attribute = set_encoded(key, ValueKind::String, value);
  // The string's bytes end the encoding: the value is read from there.
  attribute.text = TextRef{attribute.encoded.offset + attribute.encoded.size - static_cast<std::uint32_t>(value.size()),
                           static_cast<std::uint32_t>(value.size())};
}

void SpanData::set(AttributeKey key, std::int64_t value) { set_encoded(key, ValueKind::Int, value).int_value = value; }

void SpanData::set(AttributeKey key, double value) { set_encoded(key, ValueKind::Double, value).double_value = value; }

void SpanData::set(AttributeKey key, bool value) { set_encoded(key, ValueKind::Bool, value).bool_value = value; }

void SpanData::set(AttributeKey key, std::span<const std::string> items) {
  // The items for reading back (for_each_item): each as its 32-bit length, then its bytes.
  std::size_t size = 0;
  for (const std::string& item : items) size += sizeof(std::uint32_t) + item.size();
  TextRef text;
  char* at = extend(size, text);
  for (const std::string& item : items) {
    const auto length = static_cast<std::uint32_t>(item.size());
    std::memcpy(at, &length, sizeof length);
    at = wire::put_bytes(at + sizeof length, item);
  }
  set_encoded(key, ValueKind::StringArray, items).text = text;
}

}  // namespace weld::telemetry
