// Partial structured answers (the rate rule in partial_result.h and
// docs/run.md "Partial results").

#include "weld/agent/partial_result.h"

#include <utility>

#include "weld/json/parse.h"
#include "weld/json/partial.h"

namespace weld::agent {

PartialResults::PartialResults(Report report, std::chrono::milliseconds interval,
                               std::function<Clock::time_point()> now)
    : report_(std::move(report)), interval_(interval), now_(std::move(now)) {}

void PartialResults::start_attempt() {
  ++attempt_;
  text_.clear();
  last_.clear();
  last_values_ = 0;
  last_time_ = {};
}

void PartialResults::feed(std::string_view fragment) {
  if (attempt_ == 0) start_attempt();
  if (text_.size() > kMaxText) return;
  text_.append(fragment);
  std::optional<json::ClosedPrefix> closed = json::close_prefix(text_);
  if (!closed || closed->text == last_) return;
  const Clock::time_point now = now_();
  const bool value_completed = closed->complete_values > last_values_;
  if (!value_completed && !last_.empty() && now - last_time_ < interval_) return;
  // close_prefix's text is JSON for any prefix of a JSON document; a model
  // that writes something else simply gets no partials.
  Result<json::Value> value = json::parse(closed->text);
  if (!value) return;
  last_ = std::move(closed->text);
  last_values_ = closed->complete_values;
  last_time_ = now;
  report_(*value, attempt_);
}

}  // namespace weld::agent
