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
  const std::string shown = name == "-" ? "standard input" : "\"" + std::string(name) + "\"";
  const std::string file = name == "-" ? std::string("FILE") : std::string(name);
  auto refuse = [&](const std::string& what, const std::string& command) -> Status {
    return Error{ErrorCode::Usage, "the input " + shown + " " + what + ": " + command + " " + file + " | weld batch … -",
                 std::string(name)};
  };
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
    return refuse("is compressed input (" + std::string(magic.format) + "), not JSON Lines; pipe it through " +
                      magic.tool,
                  magic.tool);
  }
  // Text in another Unicode encoding (what Windows PowerShell 5 redirects
  // write): a byte order mark, or ASCII with every other byte zero.
  auto starts = [&](std::string_view bytes) { return start.substr(0, bytes.size()) == bytes; };
  const char* encoding = nullptr;
  if (starts(std::string_view("\xFF\xFE\x00\x00", 4))) encoding = "UTF-32LE";
  else if (starts(std::string_view("\x00\x00\xFE\xFF", 4))) encoding = "UTF-32BE";
  else if (starts("\xFF\xFE") || (start.size() >= 2 && start[0] != '\0' && start[1] == '\0')) encoding = "UTF-16LE";
  else if (starts("\xFE\xFF") || (start.size() >= 2 && start[0] == '\0' && start[1] != '\0')) encoding = "UTF-16BE";
  if (encoding != nullptr) {
    return refuse("is " + std::string(encoding) + " text, not UTF-8 JSON Lines; convert it with iconv",
                  "iconv -f " + std::string(encoding) + " -t UTF-8");
  }
  // One JSON document rather than one object a line: an array, or an
  // object printed over many lines. Every line would be an errored row
  // named by its line number — rows a corrected input would then find
  // already answered.
  const std::size_t first = start.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && start[first] == '[') {
    return refuse("starts with \"[\": one JSON array, not JSON Lines (one object a line); convert it with jq",
                  "jq -c '.[]'");
  }
  if (first != std::string_view::npos && start[first] == '{') {
    const std::size_t next = start.find_first_not_of(" \t\r", first + 1);
    if (next != std::string_view::npos && start[next] == '\n') {
      return refuse("starts with \"{\" alone on its line: pretty-printed JSON, not JSON Lines (one object a line); "
                    "convert it with jq",
                    "jq -c .");
    }
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
