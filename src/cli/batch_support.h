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

/// The final summary line for stderr (with its "\n").
std::string batch_summary_line(const batch::BatchProgress& progress, const BatchSummaryInfo& info);
/// The summary as JSON (`--summary FILE`).
std::string batch_summary_json(const batch::BatchProgress& progress, const BatchSummaryInfo& info);

/// Shows progress on stderr while the batch runs (SPEC §7): a live bar on a
/// terminal, else one line every 10 s. Also flushes the result writer when
/// its oldest line has waited long enough, so a slow batch's lines appear.
class ProgressDisplay {
 public:
  /// `total_lines`: the input's line count when known (a regular file on a
  /// terminal), for the bar's percentage and ETA.
  ProgressDisplay(const batch::BatchProgress& progress, batch::ResultWriter& writer, bool terminal,
                  std::optional<std::uint64_t> total_lines);
  ~ProgressDisplay();
  ProgressDisplay(const ProgressDisplay&) = delete;
  ProgressDisplay& operator=(const ProgressDisplay&) = delete;
  /// Stops the display (clears the bar).
  void stop();

 private:
  void loop();
  std::string status_text() const;

  const batch::BatchProgress& progress_;
  batch::ResultWriter& writer_;
  bool terminal_;
  std::optional<std::uint64_t> total_;
  std::chrono::steady_clock::time_point started_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool stopped_ = false;
  std::thread thread_;
};

}  // namespace weld::cli
