// Resume and result writing (SPEC §7: "Killing weld at any moment (even
// SIGKILL) and running the same command again ends with exactly one result
// line per row"). A row's line is written whole, after its run ended; a line
// cut short by a kill has no "\n" and is the only thing a rerun removes.

#include "weld/batch/result_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "weld/batch/input.h"
#include "weld/batch/result_line.h"

namespace weld::batch {
namespace {

constexpr std::size_t kFlushBytes = 64u << 10;
constexpr std::chrono::milliseconds kFlushDelay{100};

Error io_error(const std::string& what, const std::string& path) {
  return Error{ErrorCode::Io, what + " \"" + path + "\": " + std::strerror(errno), path};
}

// Offset just past the last "\n" of the file (0 when there is none).
Result<std::uint64_t> end_of_last_line(int fd, std::uint64_t size, const std::string& path) {
  char buffer[65536];
  std::uint64_t end = size;
  while (end > 0) {
    std::size_t chunk = static_cast<std::size_t>(std::min<std::uint64_t>(sizeof buffer, end));
    ssize_t n = ::pread(fd, buffer, chunk, static_cast<off_t>(end - chunk));
    if (n < 0 && errno == EINTR) continue;
    if (n != static_cast<ssize_t>(chunk)) return io_error("could not read", path);
    for (std::size_t i = chunk; i > 0; --i) {
      if (buffer[i - 1] == '\n') return end - chunk + i;
    }
    end -= chunk;
  }
  return std::uint64_t{0};
}

}  // namespace

Result<ResumeScan> resume_from(const std::string& path, IdSet& ids) {
  ResumeScan scan;
  int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return scan;
    return io_error("could not open the output", path);
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat info {};
  if (::fstat(fd, &info) != 0) return io_error("could not read", path);
  if (!S_ISREG(info.st_mode)) return scan;  // a FIFO or device: nothing to resume
  Result<std::uint64_t> keep = end_of_last_line(fd, static_cast<std::uint64_t>(info.st_size), path);
  if (!keep) return keep.error();
  scan.torn_bytes = static_cast<std::uint64_t>(info.st_size) - *keep;
  if (scan.torn_bytes > 0 && ::ftruncate(fd, static_cast<off_t>(*keep)) != 0)
    return io_error("could not cut the torn last line of", path);

  LineReader lines(fd_source(fd));
  for (;;) {
    Result<std::optional<InputLine>> line = lines.next();
    if (!line) return Error{ErrorCode::Io, line.error().message + " (" + path + ")", path};
    if (!*line) break;
    std::optional<RowKey> key = (*line)->too_long ? std::nullopt : key_of_result_line((*line)->text);
    if (!key) {
      return Error{ErrorCode::Config,
                   "-o \"" + path + "\": line " + std::to_string((*line)->number + 1) +
                       " is not a weld batch result line, so the file cannot be resumed (is -o the right file?).",
                   path};
    }
    ids.mark_done(*key);
    ++scan.lines;
  }
  return scan;
}

Result<std::unique_ptr<ResultWriter>> ResultWriter::open(const std::string& path) {
  if (path == "-") return std::unique_ptr<ResultWriter>(new ResultWriter(STDOUT_FILENO, false));
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return io_error("could not open the output", path);
  return std::unique_ptr<ResultWriter>(new ResultWriter(fd, true));
}

ResultWriter::~ResultWriter() {
  (void)flush();
  if (owned_) ::close(fd_);
}

Status ResultWriter::write(std::string_view line) {
  std::lock_guard lock(mutex_);
  if (failed_) return *failed_;
  if (buffer_.empty()) oldest_ = std::chrono::steady_clock::now();
  buffer_.append(line);
  if (buffer_.size() >= kFlushBytes || std::chrono::steady_clock::now() - oldest_ >= kFlushDelay)
    return flush_locked();
  return Ok{};
}

Status ResultWriter::flush() {
  std::lock_guard lock(mutex_);
  return flush_locked();
}

Status ResultWriter::flush_if_due() {
  std::lock_guard lock(mutex_);
  if (buffer_.empty() || std::chrono::steady_clock::now() - oldest_ < kFlushDelay) return Ok{};
  return flush_locked();
}

Status ResultWriter::flush_locked() {
  if (failed_) return *failed_;
  std::size_t done = 0;
  while (done < buffer_.size()) {
    ssize_t n = ::write(fd_, buffer_.data() + done, buffer_.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      failed_ = Error{ErrorCode::Io, std::string("could not write the results: ") + std::strerror(errno), ""};
      return *failed_;
    }
    done += static_cast<std::size_t>(n);
  }
  buffer_.clear();
  return Ok{};
}

}  // namespace weld::batch
