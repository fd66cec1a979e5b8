// Bounded reads of files and streams (issue 13.8): `--continue` on a FIFO
// transcript, `weld schema validate S /dev/zero` and /dev/zero as standard
// input used to hang and grow memory without limit.

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

// Reads until EOF; false (with `error`) on a read error; stops once more
// than `max_bytes` arrived.
bool read_all(int fd, std::uint64_t max_bytes, std::string& out, int& error) {
  char chunk[65536];
  for (;;) {
    ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) {  // a non-blocking descriptor with nothing yet: wait for it
      pollfd pfd{fd, POLLIN, 0};
      ::poll(&pfd, 1, -1);
      continue;
    }
    if (n < 0) {
      error = errno;
      return false;
    }
    if (n == 0) return true;
    out.append(chunk, static_cast<std::size_t>(n));
    if (out.size() > max_bytes) return true;
  }
}

}  // namespace

Result<std::string> read_regular_file(const std::string& path, std::uint64_t max_bytes, std::uint64_t* size) {
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
