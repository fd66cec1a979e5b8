#pragma once
/// \file
/// Partial structured answers while they stream (docs/run.md, "Partial results"): the run feeds
/// the `structured_output` arguments (or, with `--mechanism native`, the
/// answer text) as they arrive, and `PartialResults` reports the longest
/// prefix that closes into JSON (weld::json::close_prefix) to the run's
/// observers — `-o stream-json --include-partial-messages` prints them as
/// `{"type":"partial_result",…}` lines.
///
/// Rate: a partial is reported when the closed prefix changed and either a
/// value completed since the last report (a field, an array element, a
/// container) or `interval` has passed since it; so a consumer sees every
/// completed field and a growing string at most every `interval`.
///
/// \code
///   weld::agent::PartialResults partials([&](const json::Value& v, int attempt) { … });
///   partials.start_attempt();
///   partials.feed("{\"summary\":\"Ren");   // reports {"summary":"Ren"}
/// \endcode

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "weld/json/value.h"

namespace weld::agent {

/// Tracks one streamed answer at a time and reports its partial values.
class PartialResults {
 public:
  using Clock = std::chrono::steady_clock;
  /// Receives a partial value and its attempt number (1-based; a new number
  /// means the earlier partials belong to an answer that was discarded).
  using Report = std::function<void(const json::Value& partial, int attempt)>;
  /// Default interval between reports of a growing string.
  static constexpr std::chrono::milliseconds kInterval{100};
  /// Answers longer than this get no more partials (closing a prefix costs
  /// a pass over it; the final envelope still comes).
  static constexpr std::size_t kMaxText = 1u << 20;

  explicit PartialResults(Report report, std::chrono::milliseconds interval = kInterval,
                          std::function<Clock::time_point()> now = Clock::now);

  /// A new answer starts (a structured_output call, or a native turn).
  void start_attempt();
  /// More text of the current answer.
  void feed(std::string_view fragment);
  /// The current attempt number (0 before the first).
  int attempt() const { return attempt_; }

 private:
  Report report_;
  std::chrono::milliseconds interval_;
  std::function<Clock::time_point()> now_;
  int attempt_ = 0;
  std::string text_;
  std::string last_;
  std::size_t last_values_ = 0;
  Clock::time_point last_time_{};
};

}  // namespace weld::agent
