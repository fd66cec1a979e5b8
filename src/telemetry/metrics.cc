// Cumulative metric values for OTLP export (docs/telemetry.md, "Metrics").

#include "weld/telemetry/metrics.h"

#include <algorithm>
#include <chrono>

namespace weld::telemetry {

std::uint64_t unix_nano_now() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count());
}

MetricsRecorder::MetricsRecorder() : start_unix_nano_(unix_nano_now()) {}

MetricPoint& MetricsRecorder::point(const Instrument& instrument, Labels&& labels) {
  auto [by_labels, inserted] = values_.try_emplace(&instrument);
  if (inserted) order_.push_back(&instrument);
  auto found = by_labels->second.find(labels);
  if (found != by_labels->second.end()) return found->second;
  MetricPoint fresh;
  fresh.attributes = labels;
  if (instrument.kind == InstrumentKind::Histogram) fresh.bucket_counts.assign(instrument.bounds.size() + 1, 0);
  return by_labels->second.emplace(std::move(labels), std::move(fresh)).first->second;
}

void MetricsRecorder::add(const Instrument& instrument, std::int64_t value, Labels labels) {
  std::lock_guard lock(mutex_);
  point(instrument, std::move(labels)).total += value;
}

void MetricsRecorder::record(const Instrument& instrument, double value, Labels labels) {
  std::lock_guard lock(mutex_);
  MetricPoint& p = point(instrument, std::move(labels));
  // Bucket i counts values in (bounds[i-1], bounds[i]] (OTLP explicit buckets).
  std::size_t bucket = static_cast<std::size_t>(
      std::lower_bound(instrument.bounds.begin(), instrument.bounds.end(), value) - instrument.bounds.begin());
  ++p.bucket_counts[bucket];
  p.min = p.count == 0 ? value : std::min(p.min, value);
  p.max = p.count == 0 ? value : std::max(p.max, value);
  ++p.count;
  p.sum += value;
  p.has_min_max = true;
}

MetricsSnapshot MetricsRecorder::snapshot() const {
  MetricsSnapshot out;
  out.start_unix_nano = start_unix_nano_;
  out.time_unix_nano = unix_nano_now();
  std::lock_guard lock(mutex_);
  for (const Instrument* instrument : order_) {
    MetricData data;
    data.instrument = instrument;
    for (const auto& [labels, p] : values_.at(instrument)) data.points.push_back(p);
    out.metrics.push_back(std::move(data));
  }
  return out;
}

}  // namespace weld::telemetry
