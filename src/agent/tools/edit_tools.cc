// write_file and edit: side effects, offered only with --yolo,
// --approval-mode auto-edit|yolo or an allow rule (SPEC §2.7).

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "paths.h"

namespace weld::agent {
namespace {
namespace fs = std::filesystem;
using tools::tool_error;

constexpr std::uint64_t kMaxEditBytes = 16 * 1024 * 1024;

Status write_whole_file(const std::string& path, std::string_view content) {
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  if (ec) return Error{"io", "could not create the directory of \"" + path + "\": " + ec.message(), path};
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return Error{"io", "could not open \"" + path + "\" for writing: " + std::strerror(errno), path};
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  out.close();
  if (!out) return Error{"io", "could not write \"" + path + "\".", path};
  return Ok{};
}

class WriteFileTool final : public Tool {
 public:
  std::string name() const override { return "write_file"; }
  std::string description() const override {
    return "Writes content to a file in the workspace, replacing it if it exists and creating parent directories.";
  }
  json::Value parameters() const override {
    return json::Object{{"type", "object"},
                        {"properties", json::Object{{"path", json::Object{{"type", "string"}}},
                                                    {"content", json::Object{{"type", "string"}}}}},
                        {"required", json::Array{"path", "content"}},
                        {"additionalProperties", false}};
  }
  bool has_side_effects() const override { return true; }

  ToolOutput run(const json::Value& arguments, const ToolContext& context) const override {
    auto path_arg = tools::string_arg(arguments, name(), "path", true);
    if (!path_arg) return tool_error(path_arg.error().message);
    auto content = tools::string_arg(arguments, name(), "content", true);
    if (!content) return tool_error(content.error().message);
    auto path = tools::resolve_in_workspace(context.cwd, **path_arg);
    if (!path) return tool_error("write_file: " + path.error().message);
    std::error_code ec;
    if (fs::is_directory(*path, ec)) return tool_error("write_file: \"" + *path + "\" is a directory.");
    bool existed = fs::exists(*path, ec);
    if (Status s = write_whole_file(*path, **content); !s) return tool_error("write_file: " + s.error().message);
    return {std::string(existed ? "Overwrote " : "Created ") + *path + " (" + std::to_string((*content)->size()) +
                " bytes).",
            false};
  }
};

class EditTool final : public Tool {
 public:
  std::string name() const override { return "edit"; }
  std::string description() const override {
    return "Replaces old_string with new_string in a file of the workspace. old_string must match exactly "
           "(whitespace included) and occur expected_replacements times (default 1). An empty old_string on a "
           "file that does not exist creates it with new_string.";
  }
  json::Value parameters() const override {
    return json::Object{
        {"type", "object"},
        {"properties", json::Object{{"path", json::Object{{"type", "string"}}},
                                    {"old_string", json::Object{{"type", "string"}}},
                                    {"new_string", json::Object{{"type", "string"}}},
                                    {"expected_replacements", json::Object{{"type", "integer"}, {"minimum", 1}}}}},
        {"required", json::Array{"path", "old_string", "new_string"}},
        {"additionalProperties", false}};
  }
  bool has_side_effects() const override { return true; }

  ToolOutput run(const json::Value& arguments, const ToolContext& context) const override {
    auto path_arg = tools::string_arg(arguments, name(), "path", true);
    if (!path_arg) return tool_error(path_arg.error().message);
    auto old_s = tools::string_arg(arguments, name(), "old_string", true);
    if (!old_s) return tool_error(old_s.error().message);
    auto new_s = tools::string_arg(arguments, name(), "new_string", true);
    if (!new_s) return tool_error(new_s.error().message);
    auto expected = tools::integer_arg(arguments, name(), "expected_replacements");
    if (!expected) return tool_error(expected.error().message);
    auto path = tools::resolve_in_workspace(context.cwd, **path_arg);
    if (!path) return tool_error("edit: " + path.error().message);
    const std::string& from = **old_s;
    const std::string& to = **new_s;
    std::error_code ec;
    if (!fs::exists(*path, ec)) {
      if (!from.empty()) return tool_error("edit: file not found: \"" + *path + "\" (use an empty old_string to create it).");
      if (Status s = write_whole_file(*path, to); !s) return tool_error("edit: " + s.error().message);
      return {"Created " + *path + ".", false};
    }
    if (from.empty()) return tool_error("edit: \"" + *path + "\" already exists; old_string must not be empty.");
    auto data = tools::read_file_bounded(*path, kMaxEditBytes);
    if (!data) return tool_error("edit: " + data.error().message);
    std::int64_t want = expected->value_or(1);
    std::int64_t count = 0;
    for (std::size_t pos = data->find(from); pos != std::string::npos; pos = data->find(from, pos + from.size())) ++count;
    if (count == 0) return tool_error("edit: old_string was not found in \"" + *path + "\"; nothing changed.");
    if (count != want) {
      return tool_error("edit: old_string occurs " + std::to_string(count) + " times in \"" + *path + "\", expected " +
                        std::to_string(want) + "; nothing changed.");
    }
    std::string result;
    result.reserve(data->size());
    std::size_t last = 0;
    for (std::size_t pos = data->find(from); pos != std::string::npos; pos = data->find(from, last)) {
      result.append(*data, last, pos - last);
      result += to;
      last = pos + from.size();
    }
    result.append(*data, last, std::string::npos);
    if (Status s = write_whole_file(*path, result); !s) return tool_error("edit: " + s.error().message);
    return {"Edited " + *path + " (" + std::to_string(count) + " replacement(s)).", false};
  }
};

}  // namespace

std::unique_ptr<Tool> make_write_file_tool() { return std::make_unique<WriteFileTool>(); }
std::unique_ptr<Tool> make_edit_tool() { return std::make_unique<EditTool>(); }

}  // namespace weld::agent
