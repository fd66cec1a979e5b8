// `weld batch` progress and summary (docs/batch.md, "Progress and
// summary"): a live bar on a terminal, otherwise one line every
// --progress-interval (10 s), both with the total, the percentage and the
// ETA when the input is a file (rows done, rate, succeeded/errored,
// retries); what
// stderr says when the batch ends; a final summary line that counts every
// row of the shard as the output file holds it; `--summary FILE`.

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <vector>

#include "batch_support.h"
#include "weld/json/serialize.h"

namespace weld::cli {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::chrono::milliseconds kBarInterval{200};

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

// Rows this run answered (their lines are in the file).
std::uint64_t done_rows(const batch::BatchProgress& p) {
  return p.succeeded.load() + p.errored.load();
}

// The shard's rows as the file holds them.
struct Tally {
  std::uint64_t rows, succeeded, errored, earlier_succeeded, earlier_errored, not_done;
};

Tally tally(const batch::BatchProgress& p) {
  Tally t{};
  t.rows = p.rows.load();
  t.earlier_succeeded = p.earlier_succeeded.load();
  t.earlier_errored = p.earlier_errored.load();
  t.succeeded = p.succeeded.load() + t.earlier_succeeded;
  t.errored = p.errored.load() + t.earlier_errored;
  const std::uint64_t answered = t.succeeded + t.errored;
  t.not_done = t.rows > answered ? t.rows - answered : 0;
  return t;
}

std::string rows_text(std::uint64_t n) { return std::to_string(n) + (n == 1 ? " row" : " rows"); }

void write_stderr(const std::string& text) {
  std::fwrite(text.data(), 1, text.size(), stderr);
  std::fflush(stderr);
}

}  // namespace

std::string batch_summary_line(const batch::BatchProgress& p, const BatchSummaryInfo& info) {
  const double wall = seconds_of(info.wall);
  const Tally t = tally(p);
  std::string text = "weld batch: " + std::to_string(t.rows) + " rows";
  if (info.shard.count > 1)
    text += " in shard " + std::to_string(info.shard.index) + "/" + std::to_string(info.shard.count);
  if (!p.input_read.load()) text += " (the input was not read past line " + std::to_string(p.last_line.load()) + ")";
  text += ": " + std::to_string(t.succeeded) + " succeeded, " + std::to_string(t.errored) + " errored";
  if (t.not_done > 0) text += ", " + std::to_string(t.not_done) + " not done";
  const std::uint64_t earlier = t.earlier_succeeded + t.earlier_errored;
  if (earlier > 0) {
    text += "; " + std::to_string(earlier) + " answered by an earlier run (" + std::to_string(t.earlier_succeeded) +
            " succeeded, " + std::to_string(t.earlier_errored) + " errored)";
  }
  text += "; " + std::to_string(p.attempts.load()) + " attempts, " + std::to_string(p.repairs.load()) + " repairs";
  if (info.pauses > 0) text += ", " + std::to_string(info.pauses) + " rate-limit pauses";
  text += "; " + fixed(wall, 1) + " s, " + fixed(wall > 0 ? static_cast<double>(done_rows(p)) / wall : 0.0, 1) +
          " rows/s\n";
  return text;
}

std::string batch_summary_json(const batch::BatchProgress& p, const BatchSummaryInfo& info) {
  const double wall = seconds_of(info.wall);
  const Tally t = tally(p);
  auto count = [](std::uint64_t n) { return static_cast<std::int64_t>(n); };
  json::Value summary = json::Object{
      {"rows", count(t.rows)},
      {"succeeded", count(t.succeeded)},
      {"errored", count(t.errored)},
      {"not_done", count(t.not_done)},
      {"skipped", count(t.earlier_succeeded + t.earlier_errored)},
      {"earlier", json::Object{{"succeeded", count(t.earlier_succeeded)}, {"errored", count(t.earlier_errored)}}},
      {"input_read", p.input_read.load()},
      {"attempts", count(p.attempts.load())},
      {"retries", count(p.retries.load())},
      {"repairs", count(p.repairs.load())},
      {"turns", count(p.turns.load())},
      {"rate_limit_pauses", count(info.pauses)},
      {"usage", json::Object{{"input_tokens", count(p.input_tokens.load())},
                             {"output_tokens", count(p.output_tokens.load())}}},
      {"wall_time_ms", static_cast<std::int64_t>(wall * 1000)},
      {"rows_per_second", wall > 0 ? static_cast<double>(done_rows(p)) / wall : 0.0},
      {"shard", json::Object{{"index", static_cast<std::int64_t>(info.shard.index)},
                             {"count", static_cast<std::int64_t>(info.shard.count)}}},
      {"exit_code", info.exit_code}};
  return json::serialize(summary) + "\n";
}

std::string resume_note(const std::string& output, const batch::ResumeScan& scan) {
  std::string text = "weld batch: resuming \"" + output + "\": " + std::to_string(scan.lines) + " rows already answered";
  if (scan.errored > 0) text += " (" + std::to_string(scan.errored) + " errored)";
  if (scan.completed_last_line) text += ", its last line completed with the newline a kill cut off";
  if (scan.torn_bytes > 0)
    text += ", a torn last line of " + std::to_string(scan.torn_bytes) + " bytes moved to \"" + scan.torn_path + "\"";
  if (scan.removed_errored > 0) {
    const bool one = scan.removed_errored == 1;
    text += "; --retry-errored: " + std::to_string(scan.removed_errored) + (one ? " errored line" : " errored lines") +
            " removed, " + (one ? "its row runs" : "their rows run") + " again";
  }
  if (scan.repeated > 0)
    text += "; " + std::to_string(scan.repeated) + " lines answer a row an earlier line already answers (the later counts)";
  return text + "\n";
}

std::string ending_text(const batch::BatchOutcome& outcome, const batch::BatchProgress& p, const std::string& output,
                        const std::string& input) {
  const bool to_file = output != "-";
  const std::string file = to_file ? "\"" + output + "\"" : "the output";
  // Only -o FILE is read back: with -o - a rerun starts over.
  const std::string no_resume = "with -o - there is no file to resume from, so every row of the shard runs again "
                                "(-o FILE resumes)";
  switch (outcome.stop) {
    case batch::BatchStop::Finished: {
      std::string text;
      if (p.input_read.load() && p.lines.load() == 0)
        text += "weld batch: warning: the input " + (input == "-" ? std::string("(standard input)") : "\"" + input + "\"") +
                " holds no rows; nothing was run.\n";
      if (const std::uint64_t earlier = p.earlier_errored.load(); earlier > 0)
        text += "weld batch: " + rows_text(earlier) + " errored in an earlier run: " + (earlier == 1 ? "its line" : "their lines") +
                " in " + file + " say" + (earlier == 1 ? "s" : "") + " why; --retry-errored runs " +
                (earlier == 1 ? "it" : "them") + " again.\n";
      return text;
    }
    case batch::BatchStop::Cancelled: return "Operation cancelled.\n";
    case batch::BatchStop::Auth:
      return outcome.message +
             "\nweld batch: stopped: the provider refused the credentials, so every row would fail. Check the API key "
             "(WELD_API_KEY, or OPENAI_API_KEY / ANTHROPIC_API_KEY) and that --provider and --base-url name the server "
             "it belongs to; once the key is accepted, " +
             (to_file ? "the same command resumes where this one stopped.\n" : "run it again: " + no_resume + ".\n");
    case batch::BatchStop::Temporary:
      return outcome.message + "\nweld batch: stopped on a temporary failure; run the same command again later: " +
             (to_file ? "it resumes where this one stopped.\n" : no_resume + ".\n");
    case batch::BatchStop::OutputError:
      if (outcome.code != ErrorCode::Unavailable) return "weld batch: " + outcome.message + "\n";
      if (!to_file)
        return "weld batch: " + outcome.message +
               "\nweld batch: stopped: the rows finished before the failure were written (counted below); free space "
               "and run it again: " + no_resume + ".\n";
      return "weld batch: " + outcome.message + "\nweld batch: stopped: " + file +
             " holds every row finished before the failure (counted below); free space and run the same command "
             "again: it resumes.\n";
    case batch::BatchStop::InputError: return "weld batch: " + outcome.message + "\n";
  }
  return {};
}

ProgressDisplay::ProgressDisplay(const batch::BatchProgress& progress, bool terminal,
                                 std::chrono::milliseconds interval, std::optional<CountableInput> input)
    : progress_(progress), terminal_(terminal), interval_(interval), started_(Clock::now()) {
  if (input) counter_ = std::thread([this, in = *input] { count(in); });
  thread_ = std::thread([this] { loop(); });
}

ProgressDisplay::~ProgressDisplay() { stop(); }

void ProgressDisplay::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopped_) return;
    stopped_ = true;
    stopping_.store(true);
    cv_.notify_all();
  }
  thread_.join();
  if (counter_.joinable()) counter_.join();
  if (terminal_) write_stderr("\r\033[K");
}

// One pass over the input with pread (the batch's own reading, at its own
// offset, is left alone), 1 MiB at a time; a last line without "\n"
// counts. A read error leaves the total unknown: the display goes on
// without it.
void ProgressDisplay::count(CountableInput input) {
  std::vector<char> buffer(1u << 20);
  std::uint64_t offset = input.offset;
  std::uint64_t lines = 0;
  char last = '\n';
  while (!stopping_.load()) {
    const ssize_t n = ::pread(input.fd, buffer.data(), buffer.size(), static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return;
    if (n == 0) {
      total_.store(lines + (last != '\n' ? 1 : 0));
      total_known_.store(true);
      return;
    }
    lines += static_cast<std::uint64_t>(std::count(buffer.data(), buffer.data() + n, '\n'));
    last = buffer[static_cast<std::size_t>(n) - 1];
    offset += static_cast<std::uint64_t>(n);
  }
}

// The percentage and the ETA count input lines *dealt with*: read, less the
// rows read but not yet answered (queued or in flight), so that neither the
// reader's lead nor the last rows in flight make the batch look done.
// Lines of other shards and rows an earlier run answered cost nothing, so
// the rate that gives the ETA leaves the earlier rows out (a resumed batch
// skips them at once).
std::string ProgressDisplay::status_text() const {
  const double elapsed = seconds_of(Clock::now() - started_);
  const std::uint64_t done = done_rows(progress_);
  const std::uint64_t earlier = progress_.earlier_succeeded.load() + progress_.earlier_errored.load();
  const double rate = elapsed > 0 ? static_cast<double>(done) / elapsed : 0.0;
  const std::uint64_t read = progress_.last_line.load();
  const std::uint64_t rows = progress_.rows.load();
  const std::uint64_t pending = rows > earlier + done ? rows - earlier - done : 0;
  const std::uint64_t dealt = read > pending ? read - pending : 0;
  std::string text;
  const std::uint64_t total = total_known_.load() ? std::max(total_.load(), read) : 0;
  if (total > 0) {
    const double fraction = static_cast<double>(dealt) / static_cast<double>(total);
    if (terminal_) {
      constexpr int kWidth = 24;
      const int filled = static_cast<int>(fraction * kWidth);
      text += "[" + std::string(static_cast<std::size_t>(filled), '#') +
              std::string(static_cast<std::size_t>(kWidth - filled), ' ') + "] ";
    }
    text += fixed(fraction * 100, 1) + "% of " + std::to_string(total) + " lines, ";
    const std::uint64_t worked = dealt > earlier ? dealt - earlier : 0;
    const double eta = worked > 0 ? static_cast<double>(total - dealt) * elapsed / static_cast<double>(worked) : NAN;
    text += std::to_string(done) + " rows done, " + fixed(rate, 1) + " rows/s, ETA " + duration_text(eta);
  } else {
    text += std::to_string(read) + " lines read, " + std::to_string(done) + " rows done, " + fixed(rate, 1) + " rows/s";
  }
  text += " (" + std::to_string(progress_.succeeded.load()) + " ok, " + std::to_string(progress_.errored.load()) +
          " errored, " + std::to_string(earlier) + " done earlier, " + std::to_string(progress_.retries.load()) +
          " retries)";
  return text;
}

void ProgressDisplay::loop() {
  const std::chrono::milliseconds tick = terminal_ ? kBarInterval : std::min(kBarInterval, interval_);
  Clock::time_point next_line = Clock::now() + interval_;
  std::unique_lock lock(mutex_);
  while (!cv_.wait_for(lock, tick, [this] { return stopped_; })) {
    if (terminal_) {
      write_stderr("\r\033[K" + status_text());
    } else if (Clock::now() >= next_line) {
      next_line += interval_;
      write_stderr("weld batch: " + status_text() + "\n");
    }
  }
}

}  // namespace weld::cli
