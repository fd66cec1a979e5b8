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

/// Shows progress on stderr while the batch runs: a live bar on a terminal,
/// else one line every 10 s. (The result writer flushes on its own.)
class ProgressDisplay {
 public:
  /// `total_lines`: the input's line count when known (a regular file on a
  /// terminal), for the bar's percentage and ETA.
  ProgressDisplay(const batch::BatchProgress& progress, bool terminal, std::optional<std::uint64_t> total_lines);
  ~ProgressDisplay();
  ProgressDisplay(const ProgressDisplay&) = delete;
  ProgressDisplay& operator=(const ProgressDisplay&) = delete;
  /// Stops the display (clears the bar).
  void stop();

 private:
  void loop();
  std::string status_text() const;

  const batch::BatchProgress& progress_;
  bool terminal_;
  std::optional<std::uint64_t> total_;
  std::chrono::steady_clock::time_point started_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool stopped_ = false;
  std::thread thread_;
};

}  // namespace weld::cli
