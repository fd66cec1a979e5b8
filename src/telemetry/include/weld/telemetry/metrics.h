#pragma once
/// \file
/// Metric instruments and their cumulative values (OTLP Sum and Histogram),
/// recorded from any thread and read by the exporter. Every instrument weld
/// exports is declared once in instruments.h.

#include <cstdint>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "weld/telemetry/span.h"

namespace weld::telemetry {

/// Counter (monotonic sum of integers) or histogram (of doubles).
enum class InstrumentKind { Counter, Histogram };

/// What an instrument is; constants in instruments.h.
struct Instrument {
  std::string_view name;
  std::string_view description;
  /// UCUM unit: "{request}", "s", "{token}".
  std::string_view unit;
  InstrumentKind kind = InstrumentKind::Counter;
  /// Histogram bucket upper bounds (explicit, increasing).
  std::span<const double> bounds;
};

/// One attribute set's value of one instrument.
struct MetricPoint {
  /// String attributes only (agent, outcome, token type): cheap to compare.
  std::vector<std::pair<std::string, std::string>> attributes;
  /// Counter: the total.
  std::int64_t total = 0;
  /// Histogram: observations per bucket (bounds.size() + 1), count, sum, min, max.
  std::vector<std::uint64_t> bucket_counts;
  std::uint64_t count = 0;
  double sum = 0;
  double min = 0;
  double max = 0;
  /// Whether min and max are known (a point kept by someone else may not say).
  bool has_min_max = false;
};

/// All points of one instrument.
struct MetricData {
  const Instrument* instrument = nullptr;
  std::vector<MetricPoint> points;
};

/// A copy of every instrument's values at one moment.
struct MetricsSnapshot {
  std::uint64_t start_unix_nano = 0;
  std::uint64_t time_unix_nano = 0;
  std::vector<MetricData> metrics;
};

/// Cumulative values of the instruments used so far. Thread-safe.
class MetricsRecorder {
 public:
  using Labels = std::vector<std::pair<std::string, std::string>>;

  MetricsRecorder();
  /// Adds `value` (>= 0) to a counter.
  void add(const Instrument& instrument, std::int64_t value, Labels labels = {});
  /// Records one observation of a histogram.
  void record(const Instrument& instrument, double value, Labels labels = {});
  /// The values now; empty `metrics` when nothing was recorded.
  MetricsSnapshot snapshot() const;

 private:
  MetricPoint& point(const Instrument& instrument, Labels&& labels);

  mutable std::mutex mutex_;
  std::uint64_t start_unix_nano_;
  // Keyed by instrument, then labels; std::map keeps the export order stable.
  std::map<const Instrument*, std::map<Labels, MetricPoint>> values_;
  std::vector<const Instrument*> order_;
};

}  // namespace weld::telemetry
