// Splitting the batch input into lines (SPEC §7: "A 1,000,000-row input
// streams through"): one fixed read buffer and, only for a line that spans
// two reads, a copy of that line — never the whole input.

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "weld/batch/input.h"

namespace weld::batch {
namespace {

constexpr std::size_t kReadBuffer = 256u << 10;

bool is_blank(std::string_view text) {
  return text.find_first_not_of(" \t\r") == std::string_view::npos;
}

}  // namespace

ByteSource fd_source(int fd) {
  return [fd](char* buffer, std::size_t size) -> Result<std::size_t> {
    for (;;) {
      ssize_t n = ::read(fd, buffer, size);
      if (n >= 0) return static_cast<std::size_t>(n);
      if (errno == EINTR) continue;
      return Error{ErrorCode::Io, std::string("could not read the input: ") + std::strerror(errno), ""};
    }
  };
}

ByteSource memory_source(std::string_view bytes) {
  return [bytes, offset = std::size_t{0}](char* buffer, std::size_t size) mutable -> Result<std::size_t> {
    std::size_t n = std::min(size, bytes.size() - offset);
    if (n > 0) std::memcpy(buffer, bytes.data() + offset, n);
    offset += n;
    return n;
  };
}

LineReader::LineReader(ByteSource source, std::size_t max_line)
    : source_(std::move(source)), max_line_(max_line), buffer_(kReadBuffer) {}

bool LineReader::fill() {
  Result<std::size_t> n = source_(buffer_.data(), buffer_.size());
  if (!n) {
    error_ = n.error();
    return false;
  }
  begin_ = 0;
  end_ = *n;
  bytes_read_ += *n;
  if (*n == 0) eof_ = true;
  return *n > 0;
}

Result<std::optional<InputLine>> LineReader::next() {
  if (returned_long_) {
    long_line_.clear();
    returned_long_ = false;
  }
  for (;;) {
    if (error_) return *error_;
    const char* data = buffer_.data();
    const void* found = begin_ < end_ ? std::memchr(data + begin_, '\n', end_ - begin_) : nullptr;
    const bool pending = !long_line_.empty() || skipping_;
    if (found != nullptr || (eof_ && pending)) {
      const std::size_t stop = found != nullptr ? static_cast<std::size_t>(static_cast<const char*>(found) - data) : end_;
      std::string_view piece(data + begin_, stop - begin_);
      begin_ = found != nullptr ? stop + 1 : end_;
      const std::uint64_t number = line_number_++;
      if (skipping_ || long_line_.size() + piece.size() > max_line_) {
        skipping_ = false;
        long_line_.clear();
        return std::optional<InputLine>(InputLine{number, {}, true});
      }
      std::string_view text = piece;
      if (!long_line_.empty()) {
        long_line_.append(piece);
        text = long_line_;
        returned_long_ = true;
      }
      if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
      if (is_blank(text)) {
        long_line_.clear();
        returned_long_ = false;
        continue;
      }
      return std::optional<InputLine>(InputLine{number, text, false});
    }
    if (eof_) return std::optional<InputLine>();
    // No newline in what is buffered: keep the partial line and read on.
    if (begin_ < end_ && !skipping_) {
      if (long_line_.size() + (end_ - begin_) > max_line_) {
        skipping_ = true;
        long_line_.clear();
      } else {
        long_line_.append(data + begin_, end_ - begin_);
      }
    }
    begin_ = end_ = 0;
    fill();
  }
}

}  // namespace weld::batch
