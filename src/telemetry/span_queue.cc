#include "span_queue.h"

#include <algorithm>

namespace weld::telemetry::detail {

void SpanQueue::take_front(std::size_t n, SpanQueue& into) {
  into.clear();
  std::swap(records_, into.records_);
  std::swap(encoded_, into.encoded_);
  std::swap(ends_, into.ends_);
  // What lies beyond the first `n` of each form comes back.
  const std::size_t records = std::min(n, into.records_.size());
  for (std::size_t i = records; i < into.records_.size(); ++i) records_.push_back(std::move(into.records_[i]));
  into.records_.resize(records);
  const std::size_t encoded = std::min(n, into.ends_.size());
  if (encoded < into.ends_.size()) {
    const std::size_t cut = encoded == 0 ? 0 : into.ends_[encoded - 1];
    encoded_.append(into.encoded_, cut);
    for (std::size_t i = encoded; i < into.ends_.size(); ++i) ends_.push_back(into.ends_[i] - cut);
    into.encoded_.resize(cut);
    into.ends_.resize(encoded);
  }
}

std::size_t SpanQueue::append(SpanQueue& from, std::size_t limit) {
  std::size_t room = size() < limit ? limit - size() : 0;
  const std::size_t records = std::min(room, from.records_.size());
  for (std::size_t i = 0; i < records; ++i) records_.push_back(std::move(from.records_[i]));
  room -= records;
  const std::size_t encoded = std::min(room, from.ends_.size());
  if (encoded > 0) {
    const std::size_t base = encoded_.size();
    encoded_.append(from.encoded_, 0, from.ends_[encoded - 1]);
    for (std::size_t i = 0; i < encoded; ++i) ends_.push_back(base + from.ends_[i]);
  }
  const std::size_t dropped = from.size() - records - encoded;
  from.clear();
  return dropped;
}

void SpanQueue::clear() {
  records_.clear();
  encoded_.clear();
  ends_.clear();
}

}  // namespace weld::telemetry::detail
