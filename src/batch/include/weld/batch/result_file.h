#pragma once
/// \file
/// The output side of `weld batch` (SPEC §7): reading what an earlier run
/// already wrote to `-o FILE` (resume), and writing result lines so that a
/// kill at any moment leaves only whole lines plus at most one torn last
/// line, which the next run cuts off.
///
/// \code
///   weld::batch::IdSet ids;
///   auto scan = weld::batch::resume_from("out.jsonl", ids);   // marks answered rows done
///   auto writer = weld::batch::ResultWriter::open("out.jsonl");
///   writer->write(line);  // thread-safe; whole lines
///   writer->flush();
/// \endcode

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "weld/base/result.h"
#include "weld/batch/ids.h"

namespace weld::batch {

/// What `resume_from` found.
struct ResumeScan {
  /// Result lines read (rows already answered).
  std::uint64_t lines = 0;
  /// Bytes of a torn last line cut off (0 when the file ended in "\n").
  std::uint64_t torn_bytes = 0;
};

/// Reads the result lines of `path` (absent: nothing to resume) and marks
/// each answered row done in `ids`; cuts a torn last line (the bytes after
/// the last "\n") off the file. A complete line that is not a result line
/// is an error naming the line: the file is probably not this batch's output.
Result<ResumeScan> resume_from(const std::string& path, IdSet& ids);

/// Appends result lines to a file or standard output. Lines are buffered
/// and written with one write() per buffer, at the latest after 100 ms (see
/// `flush_if_due`), so a kill loses at most the buffered rows, which the
/// next run does again. Thread-safe.
class ResultWriter {
 public:
  /// "-" is standard output; else the file, created or appended to.
  static Result<std::unique_ptr<ResultWriter>> open(const std::string& path);
  ~ResultWriter();
  ResultWriter(const ResultWriter&) = delete;
  ResultWriter& operator=(const ResultWriter&) = delete;

  /// Adds one whole line (ending in "\n"). An Error once a write failed.
  Status write(std::string_view line);
  /// Writes what is buffered.
  Status flush();
  /// Writes what is buffered if the oldest buffered line waited 100 ms.
  Status flush_if_due();

 private:
  ResultWriter(int fd, bool owned) : fd_(fd), owned_(owned) {}
  Status flush_locked();

  int fd_;
  bool owned_;
  std::mutex mutex_;
  std::string buffer_;
  std::chrono::steady_clock::time_point oldest_{};
  std::optional<Error> failed_;
};

}  // namespace weld::batch
