// read_file and list_directory: read-only, always offered (docs/run.md, "Tools and permissions").

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "paths.h"
#include "weld/json/utf8.h"

namespace weld::agent {
namespace {
using tools::display_path;
using tools::tool_error;

constexpr std::uint64_t kMaxReadBytes = 16 * 1024 * 1024;
constexpr std::int64_t kDefaultLineLimit = 2000;
constexpr std::size_t kMaxLineChars = 2000;
constexpr std::size_t kMaxEntries = 1000;

class ReadFileTool final : public Tool {
 public:
  std::string name() const override { return "read_file"; }
  std::string description() const override {
    return "Reads a text file in the workspace and returns its lines. Paths are relative to the working directory "
           "or absolute inside it. Use offset (0-based line) and limit (number of lines) for large files.";
  }
  json::Value parameters() const override {
    return json::Object{
        {"type", "object"},
        {"properties",
         json::Object{{"path", json::Object{{"type", "string"}, {"description", "File to read."}}},
                      {"offset", json::Object{{"type", "integer"}, {"minimum", 0},
                                              {"description", "First line to return (0-based)."}}},
                      {"limit", json::Object{{"type", "integer"}, {"minimum", 1},
                                             {"description", "Number of lines to return (default 2000)."}}}}},
        {"required", json::Array{"path"}},
        {"additionalProperties", false}};
  }
  bool has_side_effects() const override { return false; }

  ToolOutput run(const json::Value& arguments, const ToolContext& context) const override {
    auto path_arg = tools::string_arg(arguments, name(), "path", true);
    if (!path_arg) return tool_error(path_arg.error().message);
    auto offset = tools::integer_arg(arguments, name(), "offset");
    if (!offset) return tool_error(offset.error().message);
    auto limit = tools::integer_arg(arguments, name(), "limit");
    if (!limit) return tool_error(limit.error().message);
    auto path = tools::workspace_path(context.cwd, **path_arg);
    if (!path) return tool_error("read_file: " + path.error().message);
    auto data = tools::read_in_workspace(context.cwd, *path, kMaxReadBytes);
    if (!data) return tool_error("read_file: " + data.error().message);
    if (tools::looks_binary(*data)) {
      return tool_error("read_file: \"" + path->absolute + "\" is a binary file (" + std::to_string(data->size()) + " bytes).");
    }
    std::int64_t first = offset->value_or(0);
    std::int64_t count = limit->value_or(kDefaultLineLimit);
    if (count <= 0) count = kDefaultLineLimit;
    std::string out;
    std::int64_t line_no = 0;
    std::int64_t shown = 0;
    std::size_t pos = 0;
    const std::string& text = *data;
    while (pos < text.size()) {
      std::size_t end = text.find('\n', pos);
      if (end == std::string::npos) end = text.size();
      if (line_no >= first && shown < count) {
        std::string_view line(text.data() + pos, end - pos);
        std::string_view cut = json::utf8_prefix(line, kMaxLineChars);
        out.append(cut);
        if (cut.size() < line.size()) out += " [line truncated]";
        out += '\n';
        ++shown;
      }
      ++line_no;
      pos = end + 1;
    }
    if (first > 0 || shown < line_no - first) {
      std::string note = "[Showing lines " + std::to_string(first + 1) + "-" + std::to_string(first + shown) + " of " +
                         std::to_string(line_no) + " in " + display_path(context.cwd, path->absolute) + "]\n";
      out = note + out;
    }
    return {std::move(out), false};
  }
};

class ListDirectoryTool final : public Tool {
 public:
  std::string name() const override { return "list_directory"; }
  std::string description() const override {
    return "Lists the entries of a directory in the workspace (directories end with '/', symbolic links with '@'), "
           "sorted by name.";
  }
  json::Value parameters() const override {
    return json::Object{
        {"type", "object"},
        {"properties", json::Object{{"path", json::Object{{"type", "string"},
                                                          {"description", "Directory to list (default: the working directory)."}}}}},
        {"additionalProperties", false}};
  }
  bool has_side_effects() const override { return false; }

  ToolOutput run(const json::Value& arguments, const ToolContext& context) const override {
    auto path_arg = tools::string_arg(arguments, name(), "path", false);
    if (!path_arg) return tool_error(path_arg.error().message);
    auto path = tools::workspace_path(context.cwd, path_arg->value_or("."));
    if (!path) return tool_error("list_directory: " + path.error().message);
    const std::string& shown = path->absolute;
    // O_NONBLOCK: a FIFO given as the directory must not block the open.
    auto fd = tools::open_in_workspace(context.cwd, *path, O_RDONLY | O_NONBLOCK);
    if (!fd && fd.error().code == ErrorCode::NotFound) {
      return tool_error("list_directory: \"" + shown + "\" is not a directory (it does not exist).");
    }
    if (!fd) return tool_error("list_directory: " + fd.error().message);
    struct stat st {};
    if (::fstat(fd->get(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      return tool_error("list_directory: \"" + shown + "\" is not a directory.");
    }
    DIR* listing = ::fdopendir(fd->get());
    if (listing == nullptr) return tool_error("list_directory: could not list \"" + shown + "\": " + std::strerror(errno));
    fd->release();  // owned by `listing` now
    std::vector<std::string> entries;
    while (dirent* entry = ::readdir(listing)) {
      std::string name = entry->d_name;
      if (name == "." || name == "..") continue;
      struct stat entry_st {};
      // Not followed: a link is shown as a link ('@'), whatever it points to.
      if (::fstatat(::dirfd(listing), name.c_str(), &entry_st, AT_SYMLINK_NOFOLLOW) == 0) {
        if (S_ISDIR(entry_st.st_mode)) name += '/';
        if (S_ISLNK(entry_st.st_mode)) name += '@';
      }
      entries.push_back(std::move(name));
    }
    ::closedir(listing);
    std::sort(entries.begin(), entries.end());
    std::string out = "Directory " + shown + " (" + std::to_string(entries.size()) + " entries)\n";
    std::size_t n = 0;
    for (const auto& e : entries) {
      if (n++ == kMaxEntries) {
        out += "[" + std::to_string(entries.size() - kMaxEntries) + " more entries not shown]\n";
        break;
      }
      out += e;
      out += '\n';
    }
    return {std::move(out), false};
  }
};

}  // namespace

std::unique_ptr<Tool> make_read_file_tool() { return std::make_unique<ReadFileTool>(); }
std::unique_ptr<Tool> make_list_directory_tool() { return std::make_unique<ListDirectoryTool>(); }

}  // namespace weld::agent
