// write_file and edit: side effects, offered only with --yolo,
// --approval-mode auto-edit|yolo or an allow rule (docs/run.md, "Tools and permissions").

#include "paths.h"

namespace weld::agent {
namespace {
using tools::tool_error;

constexpr std::uint64_t kMaxEditBytes = 16 * 1024 * 1024;

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
    auto path = tools::workspace_path(context.cwd, **path_arg);
    if (!path) return tool_error("write_file: " + path.error().message);
    auto written = tools::write_in_workspace(context.cwd, *path, **content);
    if (!written) return tool_error("write_file: " + written.error().message);
    return {std::string(*written == tools::WriteOutcome::Overwrote ? "Overwrote " : "Created ") + path->absolute + " (" +
                std::to_string((*content)->size()) + " bytes).",
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
    auto path_checked = tools::workspace_path(context.cwd, **path_arg);
    if (!path_checked) return tool_error("edit: " + path_checked.error().message);
    const tools::WorkspacePath& where = *path_checked;
    const std::string* path = &where.absolute;
    const std::string& from = **old_s;
    const std::string& to = **new_s;
    auto data = tools::read_in_workspace(context.cwd, where, kMaxEditBytes);
    if (!data && data.error().code == ErrorCode::NotFound) {
      if (!from.empty()) return tool_error("edit: file not found: \"" + *path + "\" (use an empty old_string to create it).");
      auto created = tools::write_in_workspace(context.cwd, where, to);
      if (!created) return tool_error("edit: " + created.error().message);
      return {"Created " + *path + ".", false};
    }
    if (!data) return tool_error("edit: " + data.error().message);
    if (from.empty()) return tool_error("edit: \"" + *path + "\" already exists; old_string must not be empty.");
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
    auto written = tools::write_in_workspace(context.cwd, where, result);
    if (!written) return tool_error("edit: " + written.error().message);
    return {"Edited " + *path + " (" + std::to_string(count) + " replacement(s)).", false};
  }
};

}  // namespace

std::unique_ptr<Tool> make_write_file_tool() { return std::make_unique<WriteFileTool>(); }
std::unique_ptr<Tool> make_edit_tool() { return std::make_unique<EditTool>(); }

}  // namespace weld::agent
