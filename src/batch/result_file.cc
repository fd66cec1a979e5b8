// Opening and writing `-o FILE` (docs/batch.md, "Resume"): killing weld at
// any moment and running the same command again ends with exactly one result
// line per row. A row's line is written whole, after its run ended; a line
// cut short by a kill has no "\n" and is the only thing a rerun takes out of
// the file (into FILE.torn, so nothing is lost). Nothing in a file changes
// before every line of it was read as this batch's result line, and only one
// process at a time writes it (flock).

#include "weld/batch/result_file.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "weld/batch/input.h"
#include "weld/batch/result_line.h"
#include "weld/json/parse.h"

namespace weld::batch {
namespace {

constexpr std::size_t kFlushBytes = 64u << 10;
constexpr std::chrono::milliseconds kFlushDelay{100};
// Longest result line read back (a row's answer is at most the model's
// response size, 64 MiB by default, escaped).
constexpr std::size_t kMaxResultLine = 256u << 20;

// A write that may work later (space freed, the device back) is a
// temporary failure; any other is not.
ErrorCode write_error_code(int error) {
  return error == ENOSPC || error == EDQUOT || error == EIO ? ErrorCode::Unavailable : ErrorCode::Io;
}

Error io_error(const std::string& what, const std::string& path, ErrorCode code = ErrorCode::Io) {
  return Error{code, what + " \"" + path + "\": " + std::strerror(errno), path};
}

struct Fd {
  int fd = -1;
  Fd() = default;
  explicit Fd(int value) : fd(value) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
  int release() {
    int out = fd;
    fd = -1;
    return out;
  }
};

Status write_all(int fd, std::string_view bytes, const std::string& path) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return io_error("could not write", path, write_error_code(errno));
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return Ok{};
}

// The bytes [0, end) of `fd`, read with pread (the file offset is left
// alone).
ByteSource pread_source(int fd, std::uint64_t end, std::string path) {
  return [fd, end, path = std::move(path), offset = std::uint64_t{0}](char* buffer,
                                                                      std::size_t size) mutable -> Result<std::size_t> {
    const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(size, end - offset));
    if (want == 0) return std::size_t{0};
    for (;;) {
      ssize_t n = ::pread(fd, buffer, want, static_cast<off_t>(offset));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return io_error("could not read", path);
      offset += static_cast<std::uint64_t>(n);
      return static_cast<std::size_t>(n);
    }
  };
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

Result<std::string> read_range(int fd, std::uint64_t from, std::uint64_t size, const std::string& path) {
  std::string out(static_cast<std::size_t>(size), '\0');
  std::size_t done = 0;
  while (done < out.size()) {
    ssize_t n = ::pread(fd, out.data() + done, out.size() - done, static_cast<off_t>(from + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return io_error("could not read", path);
    done += static_cast<std::size_t>(n);
  }
  return out;
}

std::string_view format_name(OutputFormat format) { return format == OutputFormat::OpenAi ? "openai" : "weld"; }

// `-o "out.jsonl"` (the CLI), `output="out.jsonl"` (Python).
std::string named_output(const SettingNames& names, const std::string& path) {
  return names.with_value(names.output, "\"" + path + "\"");
}

Error not_ours(const std::string& path, const std::string& what, const SettingNames& names) {
  return Error{ErrorCode::Config,
               named_output(names, path) + ": " + what + ", so the file cannot be resumed (is " +
                   std::string(names.output) + " the right file?). It was left as it was.",
               path};
}

Error other_format(const std::string& path, OutputFormat found, const OutputOptions& options, const std::string& where) {
  const SettingNames& names = options.names;
  return Error{ErrorCode::Config,
               named_output(names, path) + " holds result lines of " +
                   names.with_value(names.output_format, format_name(found)) + " (" + where + "); this run writes " +
                   names.with_value(names.output_format, format_name(options.format)) + ". Resume it with " +
                   names.with_value(names.output_format, format_name(found)) + ", or write to another " +
                   std::string(names.output) + ".",
               path};
}

// The lines of the file up to `end`, each read as a result line.
// `each(info, text)` sees every one; an Error names the first line that is
// not a result line of `format`.
template <typename Each>
Status each_result_line(int fd, std::uint64_t end, const std::string& path, const OutputOptions& options, Each each) {
  LineReader lines(pread_source(fd, end, path), kMaxResultLine);
  for (;;) {
    Result<std::optional<InputLine>> line = lines.next();
    if (!line) return line.error();
    if (!*line) return Ok{};
    std::optional<ResultLineInfo> info =
        (*line)->too_long ? std::nullopt : read_result_line((*line)->text);
    if (!info)
      return not_ours(path, "line " + std::to_string((*line)->number) + " is not a weld batch result line", options.names);
    if (info->format != options.format)
      return other_format(path, info->format, options, "line " + std::to_string((*line)->number));
    Status kept = each(*info, (*line)->text);
    if (!kept) return kept;
  }
}

// Locks the file at `path` (created if absent) for this process: the fd,
// locked, still being the file at `path`.
Result<int> open_locked(const std::string& path, const SettingNames& names) {
  for (int attempt = 0;; ++attempt) {
    Fd fd(::open(path.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0644));
    if (fd.fd < 0) return io_error("could not open the output", path);
    if (::flock(fd.fd, LOCK_EX | LOCK_NB) != 0) {
      if (errno != EWOULDBLOCK) return io_error("could not lock the output", path);
      return Error{ErrorCode::Unavailable,
                   "another weld batch is writing \"" + path +
                       "\" (it holds the file's lock), so this one stopped before running any row. Run it again "
                       "once the other has ended, or give it another " + std::string(names.output) + ".",
                   path};
    }
    // Another run's --retry-errored may have renamed a new file over the
    // one opened: the lock must be on the file the path names now.
    struct stat held {}, named {};
    if (::fstat(fd.fd, &held) != 0) return io_error("could not read", path);
    if (::stat(path.c_str(), &named) == 0 && named.st_dev == held.st_dev && named.st_ino == held.st_ino)
      return fd.release();
    if (attempt == 10) return Error{ErrorCode::Unavailable, "\"" + path + "\" keeps being replaced", path};
  }
}

// The bytes after the last "\n" (`tail`, at `keep`, starting as a result
// line does): a whole result line of this format lacking its "\n" gets it;
// the start of one — text a kill cut short, so not whole JSON — is moved to
// FILE.torn. Whole JSON that is not a result line of this format (a
// one-line request file, a json.dump of one object) is not this batch's:
// refused, the file left as it was.
Status settle_tail(int fd, const std::string& path, std::uint64_t keep, const std::string& tail, IdSet& ids,
                   const OutputOptions& options, ResumeScan& scan) {
  std::optional<ResultLineInfo> whole = read_result_line(tail);
  if (!whole && json::parse(tail)) {
    return not_ours(path, "its last line (" + std::to_string(tail.size()) +
                              " bytes after the last newline) is JSON but not a weld batch result line", options.names);
  }
  if (whole && whole->format != options.format) return other_format(path, whole->format, options, "its last line");
  if (whole) {
    Status added = write_all(fd, "\n", path);
    if (!added) return added;
    scan.completed_last_line = true;
    if (options.retry_errored && whole->errored) {
      ++scan.removed_errored;
    } else {
      if (!ids.mark_done(whole->key, whole->errored)) ++scan.repeated;
      ++scan.lines;
      scan.errored += whole->errored ? 1 : 0;
    }
    return Ok{};
  }
  scan.torn_path = path + ".torn";
  Fd torn(::open(scan.torn_path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644));
  if (torn.fd < 0) return io_error("could not keep the torn last line in", scan.torn_path, write_error_code(errno));
  Status saved = write_all(torn.fd, tail + "\n", scan.torn_path);
  if (!saved) return saved;
  if (::fsync(torn.fd) != 0) return io_error("could not write", scan.torn_path, write_error_code(errno));
  if (::ftruncate(fd, static_cast<off_t>(keep)) != 0)
    return io_error("could not cut the torn last line of", path, write_error_code(errno));
  scan.torn_bytes = tail.size();
  return Ok{};
}

// --retry-errored: the file without its errored lines, written beside it,
// locked, then renamed over it. Returns the new file's fd (the old one is
// closed by the caller: its lock goes with it).
Result<int> rewrite_without_errored(int fd, const std::string& path, const OutputOptions& options) {
  struct stat info {};
  if (::fstat(fd, &info) != 0) return io_error("could not read", path);
  const std::string temporary = path + ".rewrite";
  ::unlink(temporary.c_str());  // a rewrite a kill interrupted; the lock says no one else is at it
  Fd out(::open(temporary.c_str(), O_RDWR | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC, info.st_mode & 0777));
  if (out.fd < 0) return io_error("could not create", temporary, write_error_code(errno));
  if (::flock(out.fd, LOCK_EX | LOCK_NB) != 0) return io_error("could not lock", temporary);
  auto fail = [&](Error error) {
    ::unlink(temporary.c_str());
    return error;
  };
  std::string buffer;
  Status copied = each_result_line(fd, static_cast<std::uint64_t>(info.st_size), path, options,
                                   [&](const ResultLineInfo& line, std::string_view text) -> Status {
                                     if (line.errored) return Ok{};
                                     buffer.append(text);
                                     buffer += '\n';
                                     if (buffer.size() < kFlushBytes) return Ok{};
                                     Status written = write_all(out.fd, buffer, temporary);
                                     buffer.clear();
                                     return written;
                                   });
  if (copied) copied = write_all(out.fd, buffer, temporary);
  if (!copied) return fail(copied.error());
  if (::fsync(out.fd) != 0) return fail(io_error("could not write", temporary, write_error_code(errno)));
  if (::rename(temporary.c_str(), path.c_str()) != 0) return fail(io_error("could not replace", path));
  std::string dir = std::filesystem::path(path).parent_path().string();
  Fd directory(::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (directory.fd >= 0) (void)::fsync(directory.fd);
  return out.release();
}

}  // namespace

Result<std::unique_ptr<ResultWriter>> ResultWriter::open(const std::string& path, const OutputOptions& options,
                                                         IdSet& ids, ResumeScan& scan) {
  scan = {};
  if (path == "-") return std::unique_ptr<ResultWriter>(new ResultWriter(STDOUT_FILENO, false, "standard output"));
  struct stat existing {};
  if (::stat(path.c_str(), &existing) == 0 && !S_ISREG(existing.st_mode)) {
    // A FIFO or a device: nothing to resume or lock.
    int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0) return io_error("could not open the output", path);
    return std::unique_ptr<ResultWriter>(new ResultWriter(fd, true, path));
  }
  Result<int> locked = open_locked(path, options.names);
  if (!locked) return locked.error();
  Fd fd(*locked);
  struct stat info {};
  if (::fstat(fd.fd, &info) != 0) return io_error("could not read", path);
  const auto size = static_cast<std::uint64_t>(info.st_size);
  Result<std::uint64_t> keep = end_of_last_line(fd.fd, size, path);
  if (!keep) return keep.error();

  // Read everything before changing anything: every complete line, then the
  // bytes after the last one.
  Status read = each_result_line(fd.fd, *keep, path, options,
                                 [&](const ResultLineInfo& line, std::string_view) -> Status {
                                   if (options.retry_errored && line.errored) {
                                     ++scan.removed_errored;
                                     return Ok{};
                                   }
                                   if (!ids.mark_done(line.key, line.errored)) ++scan.repeated;
                                   ++scan.lines;
                                   scan.errored += line.errored ? 1 : 0;
                                   return Ok{};
                                 });
  if (!read) return read.error();
  if (size > *keep) {
    const std::uint64_t tail_size = size - *keep;
    Result<std::string> start = read_range(fd.fd, *keep, std::min<std::uint64_t>(tail_size, 32), path);
    if (!start) return start.error();
    if (!is_result_line_start(*start) || tail_size > kMaxResultLine) {
      return not_ours(path,
                      "its last " + std::to_string(tail_size) +
                          " bytes (after the last newline) are not the start of a weld batch result line",
                      options.names);
    }
    Result<std::string> tail = read_range(fd.fd, *keep, tail_size, path);
    if (!tail) return tail.error();
    Status settled = settle_tail(fd.fd, path, *keep, *tail, ids, options, scan);
    if (!settled) return settled.error();
  }
  if (scan.removed_errored > 0) {
    Result<int> rewritten = rewrite_without_errored(fd.fd, path, options);
    if (!rewritten) return rewritten.error();
    ::close(fd.release());
    fd.fd = *rewritten;
  }
  return std::unique_ptr<ResultWriter>(new ResultWriter(fd.release(), true, path));
}

ResultWriter::~ResultWriter() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (flusher_.joinable()) flusher_.join();
  (void)flush();
  if (owned_) ::close(fd_);
}

Status ResultWriter::write(std::string_view line, bool errored) {
  Status status = append(line, errored);
  // Outside the lock: the hook may take its time (the Python module's
  // consumer) without holding up the other workers' writes or the flusher.
  if (status && on_line_) on_line_(line, errored);
  return status;
}

Status ResultWriter::append(std::string_view line, bool errored) {
  std::lock_guard lock(mutex_);
  if (failed_) return *failed_;
  if (!flusher_.joinable()) flusher_ = std::thread([this] { flush_loop(); });
  const bool was_empty = buffer_.empty();
  if (was_empty) oldest_ = std::chrono::steady_clock::now();
  buffer_.append(line);
  ends_.emplace_back(buffer_.size(), errored);
  if (buffer_.size() >= kFlushBytes) return flush_locked();
  if (was_empty) wake_.notify_one();
  return Ok{};
}

Status ResultWriter::flush() {
  std::lock_guard lock(mutex_);
  return flush_locked();
}

void ResultWriter::flush_loop() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    if (buffer_.empty() || failed_) {
      wake_.wait(lock);
      continue;
    }
    const auto due = oldest_ + kFlushDelay;
    if (std::chrono::steady_clock::now() >= due) {
      (void)flush_locked();  // a failure is returned by the next write
      continue;
    }
    wake_.wait_until(lock, due);
  }
}

Status ResultWriter::flush_locked() {
  if (failed_) return *failed_;
  std::size_t done = 0;
  int error = 0;
  while (done < buffer_.size()) {
    ssize_t n = ::write(fd_, buffer_.data() + done, buffer_.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      error = errno;
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  // The lines now wholly in the file.
  std::uint64_t succeeded = 0, errored = 0;
  std::size_t complete = 0;
  for (const auto& [end, is_errored] : ends_) {
    if (end > done) break;
    complete = end;
    ++(is_errored ? errored : succeeded);
  }
  if (error != 0) {
    // Take a line cut short back out, so the file holds whole lines only.
    if (done > complete && owned_) {
      off_t end = ::lseek(fd_, 0, SEEK_END);
      if (end >= 0) (void)::ftruncate(fd_, end - static_cast<off_t>(done - complete));
    }
    failed_ = Error{write_error_code(error),
                    "could not write the results to " + (owned_ ? "\"" + path_ + "\"" : path_) + ": " +
                        std::strerror(error),
                    path_};
  }
  buffer_.clear();
  ends_.clear();
  if ((succeeded > 0 || errored > 0) && on_written_) on_written_(succeeded, errored);
  if (failed_) return *failed_;
  return Ok{};
}

}  // namespace weld::batch
