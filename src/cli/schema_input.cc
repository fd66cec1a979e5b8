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

#include "weld/json/parse.h"

namespace weld::cli {
namespace {

std::string_view trim(std::string_view s) {
  const char* kSpace = " \t\n\r\f\v";
  std::size_t first = s.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(kSpace) - first + 1);
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

Error parse_error(const std::string& label, const Error& error) {
  return Error{"parse", label + ": not valid JSON: " + error.message + (error.where.empty() ? "" : " at " + error.where),
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

std::vector<Instance> read_instances(const std::vector<std::string>& files, bool jsonl, std::istream& stdin_stream) {
  std::vector<Instance> out;
  for (const std::string& file : files) {
    std::string content;
    if (file == "-") {
      content.assign(std::istreambuf_iterator<char>(stdin_stream), std::istreambuf_iterator<char>());
    } else {
      std::error_code status_error;
      if (std::filesystem::is_directory(file, status_error)) {
        out.push_back(Instance{file, file, 0, Error{"io", file + ": could not read: Is a directory", file}});
        continue;
      }
      errno = 0;
      std::ifstream in(file, std::ios::binary);
      if (!in) {
        std::string reason = errno != 0 ? std::error_code(errno, std::generic_category()).message() : "cannot open";
        out.push_back(Instance{file, file, 0, Error{"io", file + ": could not read: " + reason, file}});
        continue;
      }
      std::ostringstream buffer;
      buffer << in.rdbuf();
      if (in.bad()) {
        out.push_back(Instance{file, file, 0, Error{"io", file + ": could not read: input/output error", file}});
        continue;
      }
      content = std::move(buffer).str();
    }
    if (jsonl || ends_with(file, ".jsonl")) {
      add_lines(file, content, out);
    } else {
      add_document(file, content, out);
    }
  }
  return out;
}

}  // namespace weld::cli
