// Reading what `weld schema check|validate` is given (SPEC §1.4).

#include "schema_input.h"

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <iterator>
#include <memory>
#include <sstream>
#include <utility>

#include "weld/base/read_file.h"
#include "weld/json/parse.h"

namespace weld::cli {
namespace {

std::string_view trim(std::string_view s) {
  const char* kSpace = " \t\n\r\f\v";
  std::size_t first = s.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(kSpace) - first + 1);
}

Error parse_error(const std::string& label, const Error& error) {
  return Error{ErrorCode::Parse, label + ": not valid JSON: " + error.message + (error.where.empty() ? "" : " at " + error.where),
               label};
}

void add_lines(const std::string& name, const std::string& content, std::vector<Instance>& out) {
  std::size_t line_number = 0;
  std::size_t start = 0;
  while (start <= content.size()) {
    std::size_t end = content.find('\n', start);
    if (end == std::string::npos) end = content.size();
    ++line_number;
    std::string_view line(content.data() + start, end - start);
    if (!trim(line).empty()) {
      std::string label = name + ":" + std::to_string(line_number);
      Result<json::Value> value = json::parse(line);
      if (value) {
        out.push_back(Instance{label, name, line_number, std::move(value)});
      } else {
        out.push_back(Instance{label, name, line_number, parse_error(label, value.error())});
      }
    }
    if (end == content.size()) break;
    start = end + 1;
  }
}

void add_document(const std::string& name, const std::string& content, std::vector<Instance>& out) {
  Result<json::Value> value = json::parse(content);
  if (value) {
    out.push_back(Instance{name, name, 0, std::move(value)});
  } else {
    out.push_back(Instance{name, name, 0, parse_error(name, value.error())});
  }
}

}  // namespace

std::string schema_argument(const std::string& arg) {
  std::string_view text = trim(arg);
  if (text.empty() || text.front() == '@' || text.front() == '{' || text.front() == '[' || text == "true" ||
      text == "false") {
    return arg;
  }
  return "@" + std::string(text);
}

std::vector<Instance> read_instances(const std::vector<std::string>& files, bool jsonl, int stdin_fd) {
  std::vector<Instance> out;
  for (const std::string& file : files) {
    // Regular files only, and a cap on files and standard input alike (issue
    // 13.8: /dev/zero or a FIFO used to hang and grow without limit).
    Result<std::string> read = file == "-" ? read_stream(stdin_fd, kMaxInstanceBytes, "standard input")
                                           : read_regular_file(file, kMaxInstanceBytes);
    if (!read) {
      const Error& error = read.error();
      std::string reason = error.message.substr(error.message.rfind(": ") + 2);  // the OS's words
      std::error_code status_error;
      if (error.code == ErrorCode::NotRegular) {
        reason = std::filesystem::is_directory(file, status_error) ? "Is a directory" : "not a regular file";
      } else if (error.code == ErrorCode::TooLarge) {
        reason = file == "-" ? error.message : "it is more than " + std::to_string(kMaxInstanceBytes) + " bytes";
      }
      out.push_back(Instance{file, file, 0, Error{ErrorCode::Io, file + ": could not read: " + reason, file}});
      continue;
    }
    std::string content = std::move(*read);
    if (jsonl || std::string_view(file).ends_with(".jsonl")) {
      add_lines(file, content, out);
    } else {
      add_document(file, content, out);
    }
  }
  return out;
}

}  // namespace weld::cli
