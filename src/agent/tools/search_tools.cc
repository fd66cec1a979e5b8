// glob and grep_search: read-only, always offered (SPEC §2.7). grep uses RE2
// so that a model-written pattern can never take super-linear time.

#include <re2/re2.h>

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <vector>

#include "paths.h"
#include "weld/json/utf8.h"

namespace weld::agent {
namespace {
namespace fs = std::filesystem;
using tools::display_path;
using tools::tool_error;

constexpr std::size_t kMaxGlobResults = 1000;
constexpr std::size_t kMaxGrepMatches = 300;
constexpr std::size_t kMaxFilesVisited = 100000;
constexpr std::uint64_t kMaxGrepFileBytes = 4 * 1024 * 1024;
constexpr std::size_t kMaxLineChars = 500;

bool skipped_directory(const fs::path& p) {
  std::string name = p.filename().string();
  return name == ".git" || name == "node_modules";
}

// Walks regular files under `root` (skipping .git and node_modules), calling
// `visit(absolute, relative)` until it returns false.
template <typename Visit>
void walk_files(const std::string& root, const provider::CancelToken* cancel, Visit visit) {
  std::error_code ec;
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec);
  std::size_t visited = 0;
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (cancel != nullptr && cancel->cancelled.load()) return;
    if (++visited > kMaxFilesVisited) return;
    std::error_code type_ec;
    if (it->is_directory(type_ec)) {
      if (skipped_directory(it->path())) it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file(type_ec)) continue;
    std::string rel = it->path().lexically_relative(root).string();
    if (!visit(it->path().string(), rel)) return;
  }
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
    auto root = tools::resolve_in_workspace(context.cwd, path_arg->value_or("."));
    if (!root) return tool_error("glob: " + root.error().message);
    std::error_code ec;
    if (!fs::is_directory(*root, ec)) return tool_error("glob: \"" + *root + "\" is not a directory.");
    std::vector<std::string> found;
    walk_files(*root, context.cancel, [&](const std::string& absolute, const std::string& rel) {
      if (tools::glob_match(**pattern, rel)) found.push_back(display_path(context.cwd, absolute));
      return true;
    });
    std::sort(found.begin(), found.end());
    if (found.empty()) return {"No files match \"" + **pattern + "\" under " + *root + ".", false};
    std::string out = std::to_string(found.size()) + " file(s) match \"" + **pattern + "\" under " + *root + ":\n";
    for (std::size_t i = 0; i < found.size() && i < kMaxGlobResults; ++i) out += found[i] + "\n";
    if (found.size() > kMaxGlobResults) out += "[" + std::to_string(found.size() - kMaxGlobResults) + " more not shown]\n";
    return {std::move(out), false};
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
    auto root = tools::resolve_in_workspace(context.cwd, path_arg->value_or("."));
    if (!root) return tool_error("grep_search: " + root.error().message);

    RE2::Options re_options;
    re_options.set_log_errors(false);
    RE2 re(**pattern, re_options);
    if (!re.ok()) return tool_error("grep_search: invalid regular expression: " + re.error());

    std::vector<std::string> matches;
    std::size_t total = 0;
    auto search_file = [&](const std::string& absolute, const std::string& rel) {
      if (*include && !tools::glob_match(**include, rel)) return true;
      auto data = tools::read_file_bounded(absolute, kMaxGrepFileBytes);
      if (!data || tools::looks_binary(*data)) return true;
      const std::string& text = *data;
      std::size_t pos = 0;
      std::size_t line_no = 1;
      while (pos <= text.size()) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string::npos) end = text.size();
        std::string_view line(text.data() + pos, end - pos);
        if (RE2::PartialMatch(line, re)) {
          ++total;
          if (matches.size() < kMaxGrepMatches) {
            matches.push_back(display_path(context.cwd, absolute) + ":" + std::to_string(line_no) + ": " +
                              std::string(json::utf8_prefix(line, kMaxLineChars)));
          }
        }
        if (end == text.size()) break;
        pos = end + 1;
        ++line_no;
      }
      return true;
    };
    std::error_code ec;
    if (fs::is_regular_file(*root, ec)) {
      search_file(*root, fs::path(*root).filename().string());
    } else if (fs::is_directory(*root, ec)) {
      walk_files(*root, context.cancel, search_file);
    } else {
      return tool_error("grep_search: \"" + *root + "\" does not exist.");
    }
    if (total == 0) return {"No matches for \"" + **pattern + "\" under " + *root + ".", false};
    std::string out = std::to_string(total) + " match(es) for \"" + **pattern + "\":\n";
    for (const auto& m : matches) out += m + "\n";
    if (total > matches.size()) out += "[" + std::to_string(total - matches.size()) + " more not shown]\n";
    return {std::move(out), false};
  }
};

}  // namespace

std::unique_ptr<Tool> make_glob_tool() { return std::make_unique<GlobTool>(); }
std::unique_ptr<Tool> make_grep_search_tool() { return std::make_unique<GrepSearchTool>(); }

}  // namespace weld::agent
