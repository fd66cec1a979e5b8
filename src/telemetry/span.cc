// A span's attributes and text, kept in place (span.h).

#include "weld/telemetry/span.h"

namespace weld::telemetry {

SpanAttribute& SpanData::append(AttributeKey key) {
  SpanAttribute* attribute;
  if (heap_attributes_.empty() && attribute_count_ < kInlineAttributes) {
    attribute = &inline_attributes_[attribute_count_];
  } else {
    if (heap_attributes_.empty()) {
      heap_attributes_.reserve(2 * kInlineAttributes);
      heap_attributes_.assign(inline_attributes_.begin(), inline_attributes_.end());
    }
    attribute = &heap_attributes_.emplace_back();
  }
  ++attribute_count_;
  key_bits_ |= std::uint64_t{1} << (key.hash() % 64);
  attribute->key = key;
  return *attribute;
}

SpanAttribute& SpanData::slot(AttributeKey key, ValueKind kind) {
  if ((key_bits_ & (std::uint64_t{1} << (key.hash() % 64))) != 0) {
    SpanAttribute* begin = heap_attributes_.empty() ? inline_attributes_.data() : heap_attributes_.data();
    for (SpanAttribute* at = begin; at != begin + attribute_count_; ++at) {
      if (at->key == key) {
        at->kind = kind;  // a replaced string's old text stays in the store, unused
        return *at;
      }
    }
  }
  SpanAttribute& attribute = append(key);
  attribute.kind = kind;
  return attribute;
}

TextRef SpanData::store(std::string_view bytes) {
  const TextRef ref{text_size_, static_cast<std::uint32_t>(bytes.size())};
  if (heap_text_.empty() && bytes.size() <= kInlineText - text_size_) {
    if (!bytes.empty()) std::memcpy(inline_text_.data() + text_size_, bytes.data(), bytes.size());
  } else {
    if (heap_text_.empty()) {
      heap_text_.reserve(2 * kInlineText + bytes.size());
      heap_text_.assign(inline_text_.data(), text_size_);
    }
    heap_text_.append(bytes);
  }
  text_size_ += ref.size;
  return ref;
}

void SpanData::set(AttributeKey key, std::string_view value) {
  const TextRef ref = store(value);
  slot(key, ValueKind::String).text = ref;
}

void SpanData::set(AttributeKey key, std::span<const std::string> items) {
  // Each item as its 32-bit length then its bytes (for_each_item).
  const std::uint32_t offset = text_size_;
  for (const std::string& item : items) {
    const auto size = static_cast<std::uint32_t>(item.size());
    char length[sizeof size];
    std::memcpy(length, &size, sizeof size);
    store({length, sizeof length});
    store(item);
  }
  slot(key, ValueKind::StringArray).text = TextRef{offset, text_size_ - offset};
}

}  // namespace weld::telemetry
