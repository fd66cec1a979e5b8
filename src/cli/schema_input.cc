// Reading what `weld schema check|validate` is given (docs/schema.md).

#include "schema_input.h"

#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <iterator>
#include <memory>
#include <sstream>
#include <utility>

#include "weld/base/read_file.h"
#include "weld/json/parse.h"
#include "weld/base/text.h"

namespace weld::cli {
namespace {

Error parse_error(const std::string& label, const Error& error) {
  return Error{ErrorCode::Parse, label + ": not valid JSON: " + error.message + (error.where.empty() ? "" : " at " + error.where),
               label};
}

Instance parsed(const std::string& label, const std::string& file, std::size_t line, std::string_view text) {
  Result<json::Value> value = json::parse(text);
  if (value) return Instance{label, file, line, std::move(value)};
  Error error = value.error();
  // One line of JSON Lines was parsed alone: its "line 1" is the file's line `line`.
  if (line > 0 && error.where.rfind("line 1 column ", 0) == 0) error.where = "line " + std::to_string(line) + error.where.substr(6);
  return Instance{label, file, line, parse_error(label, error)};
}

// A byte that can never occur in a JSON text (RFC 8259: outside strings
// only space, \t, \n and \r; inside strings no control character).
inline bool never_in_json(char c) {
  unsigned char u = static_cast<unsigned char>(c);
  return u < 0x20 && u != '\t' && u != '\n' && u != '\r';
}

// Appends [first, last) to `out` up to and including the first byte that
// can never be JSON; true when there was one (the text is then refused by
// the parser at that byte or before, as the whole would be).
bool append_until_poison(std::string& out, const char* first, const char* last) {
  for (const char* p = first; p < last; ++p) {
    if (never_in_json(*p)) {
      out.append(first, static_cast<std::size_t>(p + 1 - first));
      return true;
    }
  }
  out.append(first, static_cast<std::size_t>(last - first));
  return false;
}

// Reads one input from `fd` to its end, handing each instance to `each`:
// one document, or one per non-blank line.
class InputReader {
 public:
  InputReader(const std::string& file, int fd, bool lines, const std::function<void(Instance&)>& each)
      : file_(file), fd_(fd), lines_(lines), each_(each) {}

  void run() {
    std::string what = file_ == "-" ? "standard input" : "\"" + file_ + "\"";
    for (;;) {
      Result<std::size_t> n = read_some(fd_, chunk_, sizeof chunk_, what);
      if (!n) {
        emit_error(file_ + ": could not read: " + n.error().message.substr(n.error().message.rfind(": ") + 2));
        return;
      }
      if (*n == 0) break;
      if (lines_ ? !feed_lines(chunk_, chunk_ + *n) : !feed_document(chunk_, chunk_ + *n)) return;
    }
    if (lines_) {
      if (!pending_.empty()) finish_line();
    } else {
      Instance instance = parsed(file_, file_, 0, pending_);
      each_(instance);
    }
  }

 private:
  // False: stop reading (the document is complete as far as it matters).
  bool feed_document(const char* first, const char* last) {
    if (poisoned_) return false;
    poisoned_ = append_until_poison(pending_, first, last);
    if (pending_.size() > kMaxInstanceBytes) {
      emit_error(file_ + ": could not read: " +
                 (file_ == "-" ? "standard input is more than " + std::to_string(kMaxInstanceBytes) + " bytes"
                               : "it is more than " + std::to_string(kMaxInstanceBytes) + " bytes"));
      return false;
    }
    if (poisoned_) {
      Instance instance = parsed(file_, file_, 0, pending_);
      each_(instance);
      return false;
    }
    return true;
  }

  bool feed_lines(const char* first, const char* last) {
    while (first < last) {
      const char* newline = static_cast<const char*>(std::memchr(first, '\n', static_cast<std::size_t>(last - first)));
      const char* stop = newline != nullptr ? newline : last;
      if (!poisoned_ && append_until_poison(pending_, first, stop)) {
        // This line cannot be JSON: said now, and the rest of it skipped.
        poisoned_ = true;
        Instance instance = parsed(file_ + ":" + std::to_string(line_), file_, line_, pending_);
        each_(instance);
        pending_.clear();
      }
      line_bytes_ += static_cast<std::uint64_t>(stop - first);
      if (line_bytes_ > kMaxInstanceBytes) {
        emit_error(file_ + ":" + std::to_string(line_) + ": the line is more than " + std::to_string(kMaxInstanceBytes) +
                       " bytes; the rest of " + (file_ == "-" ? std::string("standard input") : file_) +
                       " is not read",
                   line_);
        return false;
      }
      if (newline == nullptr) break;
      finish_line();
      first = newline + 1;
    }
    return true;
  }

  void finish_line() {
    if (!poisoned_ && !trim(pending_).empty()) {
      Instance instance = parsed(file_ + ":" + std::to_string(line_), file_, line_, pending_);
      each_(instance);
    }
    pending_.clear();
    poisoned_ = false;
    line_bytes_ = 0;
    ++line_;
  }

  void emit_error(std::string message, std::size_t line = 0) {
    std::string label = line > 0 ? file_ + ":" + std::to_string(line) : file_;
    Instance instance{label, file_, line, Error{ErrorCode::Io, std::move(message), file_}};
    each_(instance);
  }

  const std::string& file_;
  int fd_;
  bool lines_;
  const std::function<void(Instance&)>& each_;
  char chunk_[65536];
  std::string pending_;  // the document, or the current line
  bool poisoned_ = false;
  std::uint64_t line_bytes_ = 0;  // the current line's length, poisoned bytes included
  std::size_t line_ = 1;
};

}  // namespace

std::string schema_argument(const std::string& arg) {
  std::string_view text = trim(arg);
  if (text.empty() || text.front() == '@' || text.front() == '{' || text.front() == '[' || text == "true" ||
      text == "false") {
    return arg;
  }
  return "@" + std::string(text);
}

void read_instances(const std::vector<std::string>& files, bool jsonl, int stdin_fd,
                    const std::function<void(Instance&)>& each) {
  for (const std::string& file : files) {
    bool lines = jsonl || std::string_view(file).ends_with(".jsonl");
    int fd = stdin_fd;
    if (file != "-") {
      // Regular files only, and a cap on a whole-document file (a JSON
      // Lines file is read line by line, each line capped).
      Result<int> opened = open_regular_file(file, lines ? UINT64_MAX : kMaxInstanceBytes);
      if (!opened) {
        const Error& error = opened.error();
        std::string reason = error.message.substr(error.message.rfind(": ") + 2);  // the OS's words
        std::error_code status_error;
        if (error.code == ErrorCode::NotRegular) {
          reason = std::filesystem::is_directory(file, status_error) ? "Is a directory" : "not a regular file";
        } else if (error.code == ErrorCode::TooLarge) {
          reason = "it is more than " + std::to_string(kMaxInstanceBytes) + " bytes";
        }
        Instance instance{file, file, 0, Error{ErrorCode::Io, file + ": could not read: " + reason, file}};
        each(instance);
        continue;
      }
      fd = *opened;
    }
    auto reader = std::make_unique<InputReader>(file, fd, lines, each);  // 64 KiB buffer: on the heap
    reader->run();
    if (file != "-") ::close(fd);
  }
}

}  // namespace weld::cli
