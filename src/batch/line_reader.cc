// Splitting the batch input into lines (a 1,000,000-row input
// streams through): one fixed read buffer and, only for a line that spans
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

Result<std::string_view> LineReader::peek_start() {
  constexpr std::size_t kWanted = 8;
  constexpr std::string_view kBom = "\xEF\xBB\xBF";
  if (!started_) {
    started_ = true;
    // Read until the first bytes are known (a pipe may deliver them one at
    // a time), then skip a byte order mark.
    while (!eof_ && end_ < kBom.size() + kWanted) {
      Result<std::size_t> n = source_(buffer_.data() + end_, buffer_.size() - end_);
      if (!n) {
        error_ = n.error();
        break;
      }
      bytes_read_ += *n;
      end_ += *n;
      if (*n == 0) eof_ = true;
    }
    if (std::string_view(buffer_.data(), end_).substr(0, kBom.size()) == kBom) {
      begin_ = kBom.size();
      bom_ = true;
    }
  }
  if (error_) return *error_;
  return std::string_view(buffer_.data() + begin_, std::min(kWanted, end_ - begin_));
}

Status check_input_start(std::string_view start, std::string_view name) {
  struct Magic {
    std::string_view bytes;
    const char* format;
    const char* tool;
  };
  static constexpr Magic kMagics[] = {{"\x1F\x8B", "gzip", "zcat"},
                                      {"BZh", "bzip2", "bzcat"},
                                      {"\xFD" "7zXZ\x00", "xz", "xzcat"},
                                      {"\x28\xB5\x2F\xFD", "zstd", "zstdcat"}};
  for (const Magic& magic : kMagics) {
    if (start.substr(0, magic.bytes.size()) != magic.bytes) continue;
    const std::string shown = name == "-" ? "standard input" : "\"" + std::string(name) + "\"";
    return Error{ErrorCode::Usage,
                 "the input " + shown + " is compressed input (" + magic.format + "), not JSON Lines; pipe it through " +
                     magic.tool + ": " + magic.tool + " " + (name == "-" ? std::string("FILE") : std::string(name)) +
                     " | weld batch … -",
                 std::string(name)};
  }
  return Ok{};
}

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
  if (!started_) {
    Result<std::string_view> start = peek_start();
    if (!start) return start.error();
  }
  if (returned_long_) {
    long_line_.clear();
    returned_long_ = false;
  }
  for (;;) {
    if (error_) return *error_;
    const char* data = buffer_.data();
    const void* found = begin_ < end_ ? std::memchr(data + begin_, '\n', end_ - begin_) : nullptr;
    // At the end, what is left is a last line without "\n" (the start of
    // the stream may have been read ahead to the end by peek_start).
    const bool pending = !long_line_.empty() || skipping_ || begin_ < end_;
    if (found != nullptr || (eof_ && pending)) {
      const std::size_t stop = found != nullptr ? static_cast<std::size_t>(static_cast<const char*>(found) - data) : end_;
      std::string_view piece(data + begin_, stop - begin_);
      begin_ = found != nullptr ? stop + 1 : end_;
      const std::uint64_t number = ++line_number_;
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
