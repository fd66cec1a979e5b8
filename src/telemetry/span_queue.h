#pragma once
// The exporter's queue of ended spans (telemetry.cc), in the order they
// ended: as records, which the JSON encoding and --telemetry-file read, or,
// when traces go out as protobuf only, as their encoded ScopeSpans `spans`
// fields. The exporter uses one form: a span encoded by the thread that
// ended it is freed there, while that thread's cache still holds it, and
// the sender only concatenates bytes (handing the 1.3 KB record
// to the sender's core cost the proxy more than recording it).

#include <cstddef>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "weld/telemetry/span.h"

namespace weld::telemetry::detail {

class SpanQueue {
 public:
  /// Spans held, in either form.
  std::size_t size() const { return records_.size() + ends_.size(); }
  bool empty() const { return size() == 0; }

  void push(std::unique_ptr<SpanData> record) { records_.push_back(std::move(record)); }
  /// One span's encoded `spans` field (otlp.h `append_span_field`),
  /// written in place by `encode(std::string& out)`, which appends it to `out`.
  template <typename Encode>
  void push_encoded_with(Encode&& encode) {
    encode(encoded_);
    ends_.push_back(encoded_.size());
  }

  /// Moves the spans of `from` to the end of this queue, in order, as long
  /// as it holds fewer than `limit`; `from` is emptied (its allocations
  /// kept). Returns how many did not fit (they are gone).
  std::size_t append(SpanQueue& from, std::size_t limit);

  /// Moves the first `n` spans of each form into `into` (emptied first) and
  /// keeps the rest. The two swap storage, so that once both have grown,
  /// taking allocates nothing.
  void take_front(std::size_t n, SpanQueue& into);
  /// Empties the queue, keeping its allocations.
  void clear();

  std::span<const std::unique_ptr<SpanData>> records() const { return records_; }
  /// Encoded spans held.
  std::size_t encoded_count() const { return ends_.size(); }
  /// The bytes of encoded spans [from, to), one field after another.
  std::string_view encoded(std::size_t from, std::size_t to) const {
    const std::size_t begin = from == 0 ? 0 : ends_[from - 1];
    const std::size_t end = to == 0 ? 0 : ends_[to - 1];
    return std::string_view(encoded_).substr(begin, end - begin);
  }

 private:
  std::vector<std::unique_ptr<SpanData>> records_;
  std::string encoded_;
  /// Where each encoded span ends in `encoded_`.
  std::vector<std::size_t> ends_;
};

/// The spans one thread has ended, gathered there for its exporter (issue
/// 18: a lock and a queue shared by every request thread cost the proxy
/// more than encoding the spans). Its mutex is the thread's own but when
/// the sender collects; the exporter takes its spans a chunk at a time.
struct ThreadSpans {
  std::mutex mutex;
  SpanQueue spans;
  /// No more spans come here: the thread has ended, or now ends spans for
  /// another exporter. The exporter drops the entry once it is emptied.
  bool retired = false;
  /// The exporter has flushed: spans ending now take the exporter's own
  /// path (which counts them as dropped).
  bool closed = false;
};

}  // namespace weld::telemetry::detail
