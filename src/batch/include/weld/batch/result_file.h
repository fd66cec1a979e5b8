#pragma once
/// \file
/// The output side of `weld batch` (docs/batch.md, "Resume"): opening
/// `-o FILE` for a run — locked against a second writer, checked to be this
/// batch's result file before anything in it changes, the rows it already
/// answers marked — and writing result lines so that a kill at any moment
/// leaves only whole lines plus at most one torn last line, which the next
/// run moves aside.
///
/// \code
///   weld::batch::IdSet ids;
///   weld::batch::ResumeScan scan;
///   auto writer = weld::batch::ResultWriter::open("out.jsonl", {.format = weld::batch::OutputFormat::Weld}, ids, scan);
///   if (!writer) …  // Unavailable: another writer (exit 75); Config: not this batch's file (exit 52)
///   (*writer)->write(line, /*errored=*/false);  // thread-safe; whole lines, on disk within 100 ms
/// \endcode

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "weld/base/result.h"
#include "weld/base/setting_names.h"
#include "weld/batch/ids.h"
#include "weld/batch/result_line.h"

namespace weld::batch {

/// How the output is opened.
struct OutputOptions {
  /// The shape this run writes; a file holding the other shape is refused.
  OutputFormat format = OutputFormat::Weld;
  /// Errored lines are removed from the file (which is rewritten: a new
  /// file renamed over it), so that their rows run again.
  bool retry_errored = false;
  /// How the messages name the file and the format (the CLI: `-o`,
  /// `--output-format`).
  SettingNames names{};
};

/// What opening an existing file found and did.
struct ResumeScan {
  /// Result lines kept (their rows are answered).
  std::uint64_t lines = 0;
  /// Of those, errored lines.
  std::uint64_t errored = 0;
  /// Lines that answer a row an earlier line of the file already answers
  /// (the later line counts).
  std::uint64_t repeated = 0;
  /// `retry_errored`: errored lines removed.
  std::uint64_t removed_errored = 0;
  /// Bytes after the last "\n": a result line cut short, moved to
  /// `torn_path` (0 when the file ended in "\n").
  std::uint64_t torn_bytes = 0;
  std::string torn_path;
  /// The bytes after the last "\n" were a whole result line lacking only
  /// its "\n", which was added (the line is kept and counted).
  bool completed_last_line = false;
};

/// Appends result lines to `-o FILE` or standard output. Lines are
/// buffered and written with one write() per buffer, at the latest 100 ms
/// after the oldest was added (a thread of the writer sees to it), so a kill
/// loses at most the buffered rows, which the next run does again.
/// Thread-safe.
class ResultWriter {
 public:
  /// Called after each successful write() with the lines it put in the
  /// file: succeeded and errored ones.
  using OnWritten = std::function<void(std::uint64_t succeeded, std::uint64_t errored)>;

  /// "-" is standard output. A regular file is created, or resumed: it is
  /// locked (flock) for as long as the writer lives — another writer's lock
  /// is an `Unavailable` error naming the file; every complete line must be
  /// a result line of `options.format` — else a `Config` error naming the
  /// line, the file left as it was; the rows its lines answer are marked
  /// done in `ids` (errored ones as such); then a torn last line is moved to
  /// FILE.torn, and `options.retry_errored` removes the errored lines.
  /// Anything else (a FIFO, a device) is opened for appending, unread.
  /// Failures to write while opening (a full disk) are `Unavailable`.
  static Result<std::unique_ptr<ResultWriter>> open(const std::string& path, const OutputOptions& options, IdSet& ids,
                                                    ResumeScan& scan);
  ~ResultWriter();
  ResultWriter(const ResultWriter&) = delete;
  ResultWriter& operator=(const ResultWriter&) = delete;

  /// Called with each line `write` accepts, outside the writer's lock:
  /// results handed to a caller as they finish (the Python module's
  /// weld.batch yields them).
  using OnLine = std::function<void(std::string_view line, bool errored)>;

  /// Sets what is told of each write (before the first `write`).
  void on_written(OnWritten hook) { on_written_ = std::move(hook); }
  /// Sets what is told of each line (before the first `write`).
  void on_line(OnLine hook) { on_line_ = std::move(hook); }
  /// Adds one whole line (ending in "\n") of a row that succeeded or
  /// errored. An Error once a write failed: `Unavailable` when the file
  /// system may take it later (no space, quota, I/O error), else `Io`.
  Status write(std::string_view line, bool errored);
  /// Writes what is buffered.
  Status flush();

 private:
  ResultWriter(int fd, bool owned, std::string path) : fd_(fd), owned_(owned), path_(std::move(path)) {}
  Status append(std::string_view line, bool errored);
  Status flush_locked();
  void flush_loop();

  int fd_;
  bool owned_;
  std::string path_;
  OnWritten on_written_;
  OnLine on_line_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::string buffer_;
  /// Where each buffered line ends in buffer_, and whether it is errored.
  std::vector<std::pair<std::size_t, bool>> ends_;
  std::chrono::steady_clock::time_point oldest_{};
  std::optional<Error> failed_;
  bool stopping_ = false;
  std::thread flusher_;  // started by the first write
};

}  // namespace weld::batch
