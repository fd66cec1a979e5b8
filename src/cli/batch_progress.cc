// `weld batch` progress and summary (SPEC §7): a live bar on a terminal
// (rows done of total when known, rate, ETA, succeeded/errored, retries),
// otherwise one line every 10 s; a final summary line; `--summary FILE`.

#include <cmath>
#include <cstdio>

#include "batch_support.h"
#include "weld/json/serialize.h"

namespace weld::cli {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::chrono::milliseconds kBarInterval{200};
constexpr std::chrono::seconds kLineInterval{10};

double seconds_of(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

std::string fixed(double value, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

std::string duration_text(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  auto s = static_cast<std::uint64_t>(seconds);
  if (s >= 3600) return std::to_string(s / 3600) + "h" + std::to_string(s % 3600 / 60) + "m";
  if (s >= 60) return std::to_string(s / 60) + "m" + std::to_string(s % 60) + "s";
  return std::to_string(s) + "s";
}

std::uint64_t done_rows(const batch::BatchProgress& p) {
  return p.succeeded.load() + p.errored.load();
}

void write_stderr(const std::string& text) {
  std::fwrite(text.data(), 1, text.size(), stderr);
  std::fflush(stderr);
}

}  // namespace

std::string batch_summary_line(const batch::BatchProgress& p, const BatchSummaryInfo& info) {
  const double wall = seconds_of(info.wall);
  const std::uint64_t done = done_rows(p);
  std::string text = "weld batch: " + std::to_string(p.rows.load()) + " rows";
  if (info.shard.count > 1)
    text += " in shard " + std::to_string(info.shard.index) + "/" + std::to_string(info.shard.count);
  text += ": " + std::to_string(p.succeeded.load()) + " succeeded, " + std::to_string(p.errored.load()) + " errored, " +
          std::to_string(p.skipped.load()) + " skipped (already done)";
  const std::uint64_t left = p.rows.load() - done - p.skipped.load();
  if (left > 0) text += ", " + std::to_string(left) + " not done";
  text += "; " + std::to_string(p.attempts.load()) + " attempts, " + std::to_string(p.repairs.load()) + " repairs";
  if (info.pauses > 0) text += ", " + std::to_string(info.pauses) + " rate-limit pauses";
  text += "; " + fixed(wall, 1) + " s, " + fixed(wall > 0 ? static_cast<double>(done) / wall : 0.0, 1) + " rows/s\n";
  return text;
}

std::string batch_summary_json(const batch::BatchProgress& p, const BatchSummaryInfo& info) {
  const double wall = seconds_of(info.wall);
  const std::uint64_t done = done_rows(p);
  json::Value summary = json::Object{
      {"rows", static_cast<std::int64_t>(p.rows.load())},
      {"succeeded", static_cast<std::int64_t>(p.succeeded.load())},
      {"errored", static_cast<std::int64_t>(p.errored.load())},
      {"skipped", static_cast<std::int64_t>(p.skipped.load())},
      {"not_done", static_cast<std::int64_t>(p.rows.load() - done - p.skipped.load())},
      {"attempts", static_cast<std::int64_t>(p.attempts.load())},
      {"retries", static_cast<std::int64_t>(p.retries.load())},
      {"repairs", static_cast<std::int64_t>(p.repairs.load())},
      {"turns", static_cast<std::int64_t>(p.turns.load())},
      {"rate_limit_pauses", static_cast<std::int64_t>(info.pauses)},
      {"usage", json::Object{{"input_tokens", static_cast<std::int64_t>(p.input_tokens.load())},
                             {"output_tokens", static_cast<std::int64_t>(p.output_tokens.load())}}},
      {"wall_time_ms", static_cast<std::int64_t>(wall * 1000)},
      {"rows_per_second", wall > 0 ? static_cast<double>(done) / wall : 0.0},
      {"shard", json::Object{{"index", static_cast<std::int64_t>(info.shard.index)},
                             {"count", static_cast<std::int64_t>(info.shard.count)}}},
      {"exit_code", info.exit_code}};
  return json::serialize(summary) + "\n";
}

ProgressDisplay::ProgressDisplay(const batch::BatchProgress& progress, batch::ResultWriter& writer, bool terminal,
                                 std::optional<std::uint64_t> total_lines)
    : progress_(progress), writer_(writer), terminal_(terminal), total_(total_lines), started_(Clock::now()) {
  thread_ = std::thread([this] { loop(); });
}

ProgressDisplay::~ProgressDisplay() { stop(); }

void ProgressDisplay::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopped_) return;
    stopped_ = true;
    cv_.notify_all();
  }
  thread_.join();
  if (terminal_) write_stderr("\r\033[K");
}

std::string ProgressDisplay::status_text() const {
  const double elapsed = seconds_of(Clock::now() - started_);
  const std::uint64_t done = done_rows(progress_);
  const double rate = elapsed > 0 ? static_cast<double>(done) / elapsed : 0.0;
  std::string text;
  if (total_ && *total_ > 0) {
    const double fraction = std::min(1.0, static_cast<double>(progress_.lines.load()) / static_cast<double>(*total_));
    if (terminal_) {
      constexpr int kWidth = 24;
      const int filled = static_cast<int>(fraction * kWidth);
      text += "[" + std::string(static_cast<std::size_t>(filled), '#') +
              std::string(static_cast<std::size_t>(kWidth - filled), ' ') + "] ";
    }
    text += fixed(fraction * 100, 1) + "% of " + std::to_string(*total_) + " lines, ";
    const double line_rate = elapsed > 0 ? static_cast<double>(progress_.lines.load()) / elapsed : 0.0;
    const double eta = line_rate > 0 ? static_cast<double>(*total_ - std::min(*total_, progress_.lines.load())) / line_rate
                                     : NAN;
    text += std::to_string(done) + " rows done, " + fixed(rate, 1) + " rows/s, ETA " + duration_text(eta);
  } else {
    text += std::to_string(done) + " rows done, " + fixed(rate, 1) + " rows/s";
  }
  text += " (" + std::to_string(progress_.succeeded.load()) + " ok, " + std::to_string(progress_.errored.load()) +
          " errored, " + std::to_string(progress_.skipped.load()) + " skipped, " +
          std::to_string(progress_.retries.load()) + " retries)";
  return text;
}

void ProgressDisplay::loop() {
  Clock::time_point next_line = Clock::now() + kLineInterval;
  std::unique_lock lock(mutex_);
  while (!cv_.wait_for(lock, kBarInterval, [this] { return stopped_; })) {
    (void)writer_.flush_if_due();  // a failure is reported by the next write
    if (terminal_) {
      write_stderr("\r\033[K" + status_text());
    } else if (Clock::now() >= next_line) {
      next_line += kLineInterval;
      write_stderr("weld batch: " + status_text() + "\n");
    }
  }
}

}  // namespace weld::cli
