#pragma once
// Helpers of `weld batch` (batch_command.cc): the progress display and the
// summary (batch_progress.cc).

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "weld/batch/result_file.h"
#include "weld/batch/runner.h"

namespace weld::cli {

/// What the summary reports besides the counters.
struct BatchSummaryInfo {
  batch::Shard shard;
  std::chrono::steady_clock::duration wall{};
  std::uint64_t pauses = 0;  ///< 429 / Retry-After pauses of the whole batch
  int exit_code = 0;
};

/// The final summary line for stderr (with its "\n"): every row of the
/// shard as the output file holds it (docs/batch.md, "Progress and summary").
std::string batch_summary_line(const batch::BatchProgress& progress, const BatchSummaryInfo& info);
/// The summary as JSON (`--summary FILE`).
std::string batch_summary_json(const batch::BatchProgress& progress, const BatchSummaryInfo& info);

/// What opening `-o FILE` found and did, for stderr (with its "\n").
std::string resume_note(const std::string& output, const batch::ResumeScan& scan);
/// What stderr says when the batch ends, before the summary: why it
/// stopped and what to do, or the warnings of a finished batch (an empty
/// input, rows errored in an earlier run). Empty when there is nothing to say.
std::string ending_text(const batch::BatchOutcome& outcome, const batch::BatchProgress& progress,
                        const std::string& output, const std::string& input);

/// The input as a regular file (a path, or standard input redirected from
/// one): its bytes from `offset` on are counted as lines for the progress
/// display's total, percentage and ETA.
struct CountableInput {
  int fd = -1;
  std::uint64_t offset = 0;
};

/// Shows progress on stderr while the batch runs (docs/batch.md, "Progress
/// and summary"): a live bar on a terminal, else one line every `interval`;
/// both with the total, the percentage and the ETA once the input's lines
/// are counted (in the background, so the batch starts at once). (The
/// result writer flushes on its own.)
class ProgressDisplay {
 public:
  ProgressDisplay(const batch::BatchProgress& progress, bool terminal, std::chrono::milliseconds interval,
                  std::optional<CountableInput> input);
  ~ProgressDisplay();
  ProgressDisplay(const ProgressDisplay&) = delete;
  ProgressDisplay& operator=(const ProgressDisplay&) = delete;
  /// Stops the display (clears the bar).
  void stop();

 private:
  void loop();
  void count(CountableInput input);
  std::string status_text() const;

  const batch::BatchProgress& progress_;
  bool terminal_;
  std::chrono::milliseconds interval_;
  std::chrono::steady_clock::time_point started_;
  std::atomic<bool> total_known_{false};
  std::atomic<std::uint64_t> total_{0};
  std::atomic<bool> stopping_{false};
  std::mutex mutex_;
  std::condition_variable cv_;
  bool stopped_ = false;
  std::thread counter_;
  std::thread thread_;
};

}  // namespace weld::cli
