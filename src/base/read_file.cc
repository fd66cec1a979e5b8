// Bounded reads of files and streams: without them `--continue` on a FIFO
// transcript, `weld schema validate S /dev/zero` and /dev/zero as standard
// input would hang and grow memory without limit.

#include "weld/base/read_file.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace weld {
namespace {

std::string quoted(const std::string& path) { return "\"" + path + "\""; }

Error read_error(const std::string& path, int error) {
  return Error{ErrorCode::Io, "could not read " + quoted(path) + ": " + std::strerror(error), path};
}

Error too_large(const std::string& path, std::uint64_t size, std::uint64_t max_bytes, std::uint64_t* size_out) {
  if (size_out != nullptr) *size_out = size;
  return Error{ErrorCode::TooLarge,
               quoted(path) + " is " + std::to_string(size) + " bytes (more than " + std::to_string(max_bytes) + ")",
               path};
}

// One read(2) of at most `size` bytes, retried on EINTR and waited for on
// EAGAIN; -1 with `error` set on a read error, 0 at the end.
ssize_t read_once(int fd, char* buffer, std::size_t size, int& error) {
  for (;;) {
    ssize_t n = ::read(fd, buffer, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) {  // a non-blocking descriptor with nothing yet: wait for it
      pollfd pfd{fd, POLLIN, 0};
      ::poll(&pfd, 1, -1);
      continue;
    }
    if (n < 0) error = errno;
    return n;
  }
}

// Reads until EOF; false (with `error`) on a read error; stops once more
// than `max_bytes` arrived.
bool read_all(int fd, std::uint64_t max_bytes, std::string& out, int& error) {
  char chunk[65536];
  for (;;) {
    ssize_t n = read_once(fd, chunk, sizeof chunk, error);
    if (n < 0) return false;
    if (n == 0) return true;
    out.append(chunk, static_cast<std::size_t>(n));
    if (out.size() > max_bytes) return true;
  }
}

}  // namespace

Result<int> open_regular_file(const std::string& path, std::uint64_t max_bytes, std::uint64_t* size) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return read_error(path, errno);
  if (!S_ISREG(info.st_mode)) return Error{ErrorCode::NotRegular, quoted(path) + " is not a regular file", path};
  if (static_cast<std::uint64_t>(info.st_size) > max_bytes) {
    return too_large(path, static_cast<std::uint64_t>(info.st_size), max_bytes, size);
  }
  // O_NONBLOCK: if the path was swapped for a FIFO since stat, open must not block.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return read_error(path, errno);
  struct stat opened {};
  if (::fstat(fd, &opened) != 0 || !S_ISREG(opened.st_mode)) {
    ::close(fd);
    return Error{ErrorCode::NotRegular, quoted(path) + " is not a regular file", path};
  }
  if (size != nullptr) *size = static_cast<std::uint64_t>(opened.st_size);
  return fd;
}

Result<std::size_t> read_some(int fd, char* buffer, std::size_t size, std::string_view what) {
  int error = 0;
  ssize_t n = read_once(fd, buffer, size, error);
  if (n >= 0) return static_cast<std::size_t>(n);
  if (error == EBADF) return std::size_t{0};
  return Error{ErrorCode::Io, "could not read " + std::string(what) + ": " + std::strerror(error), std::string(what)};
}

Result<std::string> read_regular_file(const std::string& path, std::uint64_t max_bytes, std::uint64_t* size) {
  Result<int> opened_fd = open_regular_file(path, max_bytes, size);
  if (!opened_fd) return opened_fd.error();
  int fd = *opened_fd;
  struct stat opened {};
  ::fstat(fd, &opened);
  std::string content;
  content.reserve(static_cast<std::size_t>(opened.st_size));
  int error = 0;
  bool ok = read_all(fd, max_bytes, content, error);
  ::close(fd);
  if (!ok) return read_error(path, error);
  if (content.size() > max_bytes) return too_large(path, content.size(), max_bytes, size);  // it grew
  return content;
}

Result<std::string> read_stream(int fd, std::uint64_t max_bytes, std::string_view what) {
  std::string content;
  int error = 0;
  if (!read_all(fd, max_bytes, content, error)) {
    if (error == EBADF) return std::string();
    return Error{ErrorCode::Io, "could not read " + std::string(what) + ": " + std::strerror(error), std::string(what)};
  }
  if (content.size() > max_bytes) {
    return Error{ErrorCode::TooLarge, std::string(what) + " is more than " + std::to_string(max_bytes) + " bytes",
                 std::string(what)};
  }
  return content;
}

}  // namespace weld
