// glob and grep_search: read-only, always offered (docs/run.md, "Tools and permissions"). grep uses RE2
// so that a model-written pattern can never take super-linear time.

#include <re2/re2.h>

#include <sys/stat.h>

#include <algorithm>
#include <vector>

#include "paths.h"
#include "weld/json/utf8.h"

namespace weld::agent {
namespace {
using tools::tool_error;

constexpr std::size_t kMaxGlobResults = 1000;
constexpr std::size_t kMaxGrepMatches = 300;
constexpr std::uint64_t kMaxGrepFileBytes = 4 * 1024 * 1024;
constexpr std::size_t kMaxLineChars = 500;
// The large files a grep names (the rest are counted).
constexpr std::size_t kNamedLargeFiles = 5;

// What a walk left out, as lines for the tool's result (so the model knows
// the answer may be incomplete, and which files to read another way).
std::string skip_notes(const tools::WalkSkips& skips, const std::vector<std::string>& large_files) {
  std::string out;
  if (!large_files.empty()) {
    out += "[" + std::to_string(large_files.size()) + " file(s) larger than " +
           std::to_string(kMaxGrepFileBytes / (1024 * 1024)) + " MiB not searched: ";
    for (std::size_t i = 0; i < large_files.size() && i < kNamedLargeFiles; ++i)
      out += (i > 0 ? ", " : "") + large_files[i];
    if (large_files.size() > kNamedLargeFiles)
      out += ", and " + std::to_string(large_files.size() - kNamedLargeFiles) + " more";
    out += "; read_file reads them in parts]\n";
  }
  if (skips.outside_links > 0) {
    out += "[" + std::to_string(skips.outside_links) +
           " symbolic link(s) leading outside the workspace (or nowhere) skipped]\n";
  }
  if (skips.directory_links > 0) {
    out += "[" + std::to_string(skips.directory_links) + " symbolic link(s) to directories not followed]\n";
  }
  if (skips.stopped_after > 0) {
    out += "[stopped after " + std::to_string(skips.stopped_after) + " entries; narrow the path]\n";
  }
  return out;
}

class GlobTool final : public Tool {
 public:
  std::string name() const override { return "glob"; }
  std::string description() const override {
    return "Finds files whose path (relative to the search directory) matches a glob pattern: '*' and '?' within a "
           "path segment, '**' across segments (e.g. '**/*.py', 'src/**/*.h'). Returns matching paths, sorted.";
  }
  json::Value parameters() const override {
    return json::Object{
        {"type", "object"},
        {"properties",
         json::Object{{"pattern", json::Object{{"type", "string"}, {"description", "Glob pattern, e.g. '**/*.md'."}}},
                      {"path", json::Object{{"type", "string"},
                                            {"description", "Directory to search (default: the working directory)."}}}}},
        {"required", json::Array{"pattern"}},
        {"additionalProperties", false}};
  }
  bool has_side_effects() const override { return false; }

  ToolOutput run(const json::Value& arguments, const ToolContext& context) const override {
    auto pattern = tools::string_arg(arguments, name(), "pattern", true);
    if (!pattern) return tool_error(pattern.error().message);
    auto path_arg = tools::string_arg(arguments, name(), "path", false);
    if (!path_arg) return tool_error(path_arg.error().message);
    auto root = tools::workspace_path(context.cwd, path_arg->value_or("."));
    if (!root) return tool_error("glob: " + root.error().message);
    const std::string& shown = root->absolute;
    auto st = tools::stat_in_workspace(context.cwd, *root);
    if (!st && st.error().code != ErrorCode::NotFound) return tool_error("glob: " + st.error().message);
    if (!st || !S_ISDIR(st->st_mode)) return tool_error("glob: \"" + shown + "\" is not a directory.");
    std::vector<std::string> found;
    const std::size_t prefix = root->relative == "." ? 0 : root->relative.size() + 1;
    auto skips = tools::walk_workspace(context.cwd, *root, context.cancel, [&](int, const tools::WorkspacePath& file) {
      if (tools::glob_match(**pattern, file.relative.substr(prefix))) found.push_back(file.relative);
      return true;
    });
    if (!skips) return tool_error("glob: " + skips.error().message);
    std::sort(found.begin(), found.end());
    std::string notes = skip_notes(*skips, {});
    if (found.empty()) return {"No files match \"" + **pattern + "\" under " + shown + "." + (notes.empty() ? "" : "\n" + notes), false};
    std::string out = std::to_string(found.size()) + " file(s) match \"" + **pattern + "\" under " + shown + ":\n";
    for (std::size_t i = 0; i < found.size() && i < kMaxGlobResults; ++i) out += found[i] + "\n";
    if (found.size() > kMaxGlobResults) out += "[" + std::to_string(found.size() - kMaxGlobResults) + " more not shown]\n";
    return {out + notes, false};
  }
};

class GrepSearchTool final : public Tool {
 public:
  std::string name() const override { return "grep_search"; }
  std::string description() const override {
    return "Searches file contents for a regular expression (RE2 syntax, line by line) and returns "
           "'path:line: text' for each match. Optionally restrict files with an include glob (e.g. '**/*.cc').";
  }
  json::Value parameters() const override {
    return json::Object{
        {"type", "object"},
        {"properties",
         json::Object{{"pattern", json::Object{{"type", "string"}, {"description", "Regular expression to search for."}}},
                      {"path", json::Object{{"type", "string"},
                                            {"description", "File or directory to search (default: the working directory)."}}},
                      {"include", json::Object{{"type", "string"}, {"description", "Glob the file paths must match."}}}}},
        {"required", json::Array{"pattern"}},
        {"additionalProperties", false}};
  }
  bool has_side_effects() const override { return false; }

  ToolOutput run(const json::Value& arguments, const ToolContext& context) const override {
    auto pattern = tools::string_arg(arguments, name(), "pattern", true);
    if (!pattern) return tool_error(pattern.error().message);
    auto path_arg = tools::string_arg(arguments, name(), "path", false);
    if (!path_arg) return tool_error(path_arg.error().message);
    auto include = tools::string_arg(arguments, name(), "include", false);
    if (!include) return tool_error(include.error().message);
    auto root = tools::workspace_path(context.cwd, path_arg->value_or("."));
    if (!root) return tool_error("grep_search: " + root.error().message);
    const std::string& shown = root->absolute;

    RE2::Options re_options;
    re_options.set_log_errors(false);
    RE2 re(**pattern, re_options);
    if (!re.ok()) return tool_error("grep_search: invalid regular expression: " + re.error());

    std::vector<std::string> matches;
    std::size_t total = 0;
    std::vector<std::string> large_files;  // relative paths, in walk order
    auto search_text = [&](const std::string& text, const tools::WorkspacePath& file) {
      std::size_t pos = 0;
      std::size_t line_no = 1;
      while (pos <= text.size()) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string::npos) end = text.size();
        std::string_view line(text.data() + pos, end - pos);
        if (RE2::PartialMatch(line, re)) {
          ++total;
          if (matches.size() < kMaxGrepMatches) {
            matches.push_back(file.relative + ":" + std::to_string(line_no) + ": " +
                              std::string(json::utf8_prefix(line, kMaxLineChars)));
          }
        }
        if (end == text.size()) break;
        pos = end + 1;
        ++line_no;
      }
    };
    auto st = tools::stat_in_workspace(context.cwd, *root);
    if (!st && st.error().code == ErrorCode::NotFound) return tool_error("grep_search: \"" + shown + "\" does not exist.");
    if (!st) return tool_error("grep_search: " + st.error().message);
    tools::WalkSkips skips;
    if (S_ISREG(st->st_mode)) {
      auto data = tools::read_in_workspace(context.cwd, *root, kMaxGrepFileBytes);
      if (!data && data.error().code == ErrorCode::TooLarge) large_files.push_back(root->relative);
      else if (!data) return tool_error("grep_search: " + data.error().message);
      else if (!tools::looks_binary(*data)) search_text(*data, *root);
    } else if (S_ISDIR(st->st_mode)) {
      const std::size_t prefix = root->relative == "." ? 0 : root->relative.size() + 1;
      auto walked = tools::walk_workspace(context.cwd, *root, context.cancel, [&](int fd, const tools::WorkspacePath& file) {
        if (*include && !tools::glob_match(**include, file.relative.substr(prefix))) return true;
        auto data = tools::read_fd_bounded(fd, file.absolute, kMaxGrepFileBytes);
        if (data && !*data) large_files.push_back(file.relative);
        if (!data || !*data || tools::looks_binary(**data)) return true;
        search_text(**data, file);
        return true;
      });
      if (!walked) return tool_error("grep_search: " + walked.error().message);
      skips = *walked;
    } else {
      return tool_error("grep_search: \"" + shown + "\" is not a regular file or a directory.");
    }
    std::string notes = skip_notes(skips, large_files);
    if (total == 0) return {"No matches for \"" + **pattern + "\" under " + shown + "." + (notes.empty() ? "" : "\n" + notes), false};
    std::string out = std::to_string(total) + " match(es) for \"" + **pattern + "\":\n";
    for (const auto& m : matches) out += m + "\n";
    if (total > matches.size()) out += "[" + std::to_string(total - matches.size()) + " more not shown]\n";
    return {out + notes, false};
  }
};

}  // namespace

std::unique_ptr<Tool> make_glob_tool() { return std::make_unique<GlobTool>(); }
std::unique_ptr<Tool> make_grep_search_tool() { return std::make_unique<GrepSearchTool>(); }

}  // namespace weld::agent
