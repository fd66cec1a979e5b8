// A span's attributes, each encoded as OTLP protobuf when it is set and
// kept as those bytes (span.h); read back from them when asked.

#include "weld/telemetry/span.h"

#include "proto_wire.h"

namespace weld::telemetry {

namespace wire = detail::wire;

/// Span.attributes is field 9 (trace.proto).
constexpr std::uint32_t kAttributesField = 9;

namespace {

// Reads what wire::put_key_value wrote; a span reads only its own bytes,
// and a short read gives empty values rather than reading past them.
struct Reader {
  std::string_view in;

  std::uint64_t varint() {
    std::uint64_t value = 0;
    for (int shift = 0; !in.empty() && shift < 64; shift += 7) {
      const auto byte = static_cast<unsigned char>(in.front());
      in.remove_prefix(1);
      value |= static_cast<std::uint64_t>(byte & 0x7F) << shift;
      if ((byte & 0x80) == 0) break;
    }
    return value;
  }
  // A length-delimited field's bytes (after its tag).
  std::string_view bytes() {
    const std::uint64_t size = varint();
    const std::string_view out = in.substr(0, std::min<std::uint64_t>(size, in.size()));
    in.remove_prefix(out.size());
    return out;
  }
  std::uint64_t fixed64() {
    std::uint64_t value = 0;
    if (in.size() < 8) return value;
    for (int byte = 0; byte < 8; ++byte) value |= std::uint64_t{static_cast<unsigned char>(in[byte])} << (8 * byte);
    in.remove_prefix(8);
    return value;
  }
  // The tag's field number (the wire type is known from it here).
  std::uint64_t field() { return varint() >> 3; }
};

// The KeyValue inside an attribute's bytes (Span field 9), its key and its
// AnyValue.
struct KeyValueBytes {
  std::string_view key;
  std::string_view any;
};

KeyValueBytes key_value_of(std::string_view encoded) {
  Reader r{encoded};
  r.field();  // 9
  Reader kv{r.bytes()};
  KeyValueBytes out;
  while (!kv.in.empty()) {
    const std::uint64_t field = kv.field();
    if (field == 1) {
      out.key = kv.bytes();
    } else {
      out.any = kv.bytes();  // 2
    }
  }
  return out;
}

}  // namespace

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

template <typename Value>
void SpanData::set_encoded(AttributeKey key, const Value& value) {
  const std::string_view name = key.text();
  TextRef encoded;
  const wire::KeyValueSizes sizes = wire::key_value_sizes(kAttributesField, name, value);
  wire::put_key_value(extend(sizes.total, encoded), kAttributesField, name, value, sizes);
  const std::uint64_t bit = std::uint64_t{1} << (key.hash() % 64);
  if ((key_bits_ & bit) == 0 && attribute_count_ < kInlineAttributes && heap_attributes_.empty()) [[likely]] {
    key_bits_ |= bit;
    if (attribute_count_ == 0) {
      encoded_begin_ = encoded.offset;
    } else if (encoded.offset != encoded_begin_ + encoded_attributes_size_) {
      encoded_together_ = false;  // a status message came between
    }
    inline_attributes_[attribute_count_++] = encoded;
    encoded_attributes_size_ += encoded.size;
    return;
  }
  add_slowly(key, encoded);
}

void SpanData::add_slowly(AttributeKey key, TextRef encoded) {
  const std::uint64_t bit = std::uint64_t{1} << (key.hash() % 64);
  TextRef* begin = heap_attributes_.empty() ? inline_attributes_.data() : heap_attributes_.data();
  if ((key_bits_ & bit) != 0) {
    for (TextRef* at = begin; at != begin + attribute_count_; ++at) {
      if (key_value_of(bytes(*at)).key == key.text()) {
        // The new value takes the old one's place; the old bytes stay in
        // the store, unused, between the others.
        encoded_attributes_size_ += encoded.size - at->size;
        *at = encoded;
        encoded_together_ = false;
        return;
      }
    }
  }
  key_bits_ |= bit;
  if (attribute_count_ == 0) {
    encoded_begin_ = encoded.offset;
  } else if (encoded.offset != encoded_begin_ + encoded_attributes_size_) {
    encoded_together_ = false;
  }
  if (heap_attributes_.empty() && attribute_count_ < kInlineAttributes) {
    inline_attributes_[attribute_count_] = encoded;
  } else {
    if (heap_attributes_.empty()) {
      heap_attributes_.reserve(2 * kInlineAttributes);
      heap_attributes_.assign(inline_attributes_.begin(), inline_attributes_.end());
    }
    heap_attributes_.push_back(encoded);
  }
  ++attribute_count_;
  encoded_attributes_size_ += encoded.size;
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

void SpanData::set(AttributeKey key, std::string_view value) { set_encoded(key, value); }
void SpanData::set(AttributeKey key, std::int64_t value) { set_encoded(key, value); }
void SpanData::set(AttributeKey key, double value) { set_encoded(key, value); }
void SpanData::set(AttributeKey key, bool value) { set_encoded(key, value); }
void SpanData::set(AttributeKey key, std::span<const std::string> items) { set_encoded(key, items); }

// AnyValue (common.proto): string_value 1, bool_value 2, int_value 3,
// double_value 4, array_value 5.
AttributeView SpanData::attribute(std::size_t i) const {
  const KeyValueBytes kv = key_value_of(bytes(encoded_refs()[i]));
  AttributeView out;
  out.key = kv.key;
  Reader any{kv.any};
  switch (any.field()) {
    case 1: out.kind = ValueKind::String; out.text = any.bytes(); break;
    case 2: out.kind = ValueKind::Bool; out.bool_value = any.varint() != 0; break;
    case 3: out.kind = ValueKind::Int; out.int_value = static_cast<std::int64_t>(any.varint()); break;
    case 4: {
      out.kind = ValueKind::Double;
      const std::uint64_t bits = any.fixed64();
      std::memcpy(&out.double_value, &bits, sizeof bits);
      break;
    }
    default: out.kind = ValueKind::StringArray; out.text = any.bytes(); break;  // 5
  }
  return out;
}

std::vector<AttributeView> SpanData::attributes() const {
  std::vector<AttributeView> out;
  out.reserve(attribute_count_);
  for (std::size_t i = 0; i < attribute_count_; ++i) out.push_back(attribute(i));
  return out;
}

// ArrayValue: values 1, each an AnyValue holding string_value 1.
std::string_view SpanData::next_item(std::string_view& items) {
  Reader r{items};
  r.field();
  Reader any{r.bytes()};
  items = r.in;
  any.field();
  return any.bytes();
}

}  // namespace weld::telemetry
