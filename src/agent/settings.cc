// Settings files and the tool policy (docs/run.md, "Tools and permissions").
// Where that is silent we follow the agent CLIs weld stands in for:
// structured_output bypasses the --core-tools allow-list but obeys
// deny/exclude, and --bare drops settings-derived deny/exclude.

#include "weld/agent/settings.h"

#include <algorithm>
#include <cstdlib>
#include <sys/stat.h>

#include "weld/agent/mechanism.h"
#include "weld/base/read_file.h"
#include "weld/agent/run_loop.h"
#include "weld/agent/shell_rules.h"
#include "weld/json/parse.h"

namespace weld::agent {
namespace {

constexpr std::uint64_t kMaxSettingsBytes = 4 * 1024 * 1024;

// Reads a string list at `object[key]`; an Error names the file and field.
Status read_list(const json::Value& object, std::string_view key, const std::string& field, const std::string& file,
                 std::vector<std::string>& out) {
  const json::Value* list = object.find(key);
  if (list == nullptr) return Ok{};
  if (!list->is_array()) return Error{ErrorCode::Config, "Settings file \"" + file + "\": " + field + " must be an array of strings.", file};
  for (const auto& item : list->as_array()) {
    if (!item.is_string()) {
      return Error{ErrorCode::Config, "Settings file \"" + file + "\": " + field + " must be an array of strings.", file};
    }
    out.push_back(item.as_string());
  }
  return Ok{};
}

// A JSON document read from a user: the file's (or flag's) name, line and
// column when it is not JSON.
Result<json::Value> parse_document(const std::string& text, const std::string& what, const std::string& where) {
  Result<json::Value> doc = json::parse(text);
  if (!doc) {
    return Error{ErrorCode::Config, what + " is not valid JSON: " + doc.error().message + " at " + doc.error().where + ".",
                 where};
  }
  return doc;
}

// Reads a file of at most kMaxSettingsBytes, or, for `source` starting with
// "{", the JSON text itself (`--settings '{…}'`, `--mcp-config '{…}'` on the command line).
Result<json::Value> read_json_source(const std::string& source, const std::string& what, const std::string& cwd) {
  std::size_t first = source.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && source[first] == '{') return parse_document(source, what, what);
  std::string path = source;
  if (!path.empty() && path.front() != '/' && !cwd.empty()) path = cwd + "/" + path;
  Result<std::string> text = read_regular_file(path, kMaxSettingsBytes);
  if (!text) return Error{ErrorCode::Config, what + ": " + text.error().message + ".", path};
  return parse_document(*text, what + " \"" + path + "\"", path);
}

Status read_settings_document(const json::Value& document, const std::string& path, Settings& settings) {
  const json::Value* doc = &document;
  if (!doc->is_object()) return Error{ErrorCode::Config, "Settings file \"" + path + "\" must contain a JSON object.", path};
  if (const json::Value* permissions = doc->find("permissions")) {
    if (!permissions->is_object()) {
      return Error{ErrorCode::Config, "Settings file \"" + path + "\": permissions must be an object.", path};
    }
    std::size_t first_new = settings.allow.size();
    if (Status s = read_list(*permissions, "allow", "permissions.allow", path, settings.allow); !s) return s;
    for (std::size_t i = first_new; i < settings.allow.size(); ++i) {
      if (Status s = check_allow_rule(settings.allow[i]); !s) {
        return Error{ErrorCode::Config, "Settings file \"" + path + "\": permissions.allow: " + s.error().message, path};
      }
    }
    if (Status s = read_list(*permissions, "deny", "permissions.deny", path, settings.deny); !s) return s;
  }
  if (const json::Value* tools = doc->find("tools")) {
    if (!tools->is_object()) return Error{ErrorCode::Config, "Settings file \"" + path + "\": tools must be an object.", path};
    if (Status s = read_list(*tools, "exclude", "tools.exclude", path, settings.exclude); !s) return s;
  }
  if (const json::Value* hooks = doc->find("hooks")) {
    if (Status s = parse_hooks(*hooks, path, settings.hooks); !s) return s;
  }
  if (const json::Value* mechanism = doc->find("mechanism")) {
    if (!mechanism->is_string() || !parse_mechanism(mechanism->as_string())) {
      return Error{ErrorCode::Config, "Settings file \"" + path + "\": mechanism must be \"tool\", \"native\" or \"auto\".",
                   path};
    }
    settings.mechanism = mechanism->as_string();
  }
  if (const json::Value* keep = doc->find("keepAnswers")) {
    if (!keep->is_bool())
      return Error{ErrorCode::Config, "Settings file \"" + path + "\": keepAnswers must be true or false.", path};
    settings.keep_answers = keep->as_bool();
  }
  if (const json::Value* servers = doc->find("mcpServers")) {
    if (Status s = parse_mcp_servers(*servers, path, settings.mcp_servers); !s) return s;
  }
  settings.sources.push_back(path);
  return Ok{};
}

Status read_settings_file(const std::string& path, Settings& settings) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return Ok{};  // absent: nothing to merge
  Result<std::string> text = read_regular_file(path, kMaxSettingsBytes);
  if (!text) return Error{ErrorCode::Config, "Settings file " + text.error().message + ".", path};
  Result<json::Value> doc = parse_document(*text, "Settings file \"" + path + "\"", path);
  if (!doc) return doc.error();
  return read_settings_document(*doc, path, settings);
}

// A rule names a tool ("run_shell_command") or a tool with a specifier
// ("run_shell_command(git *)"); matching is by tool name.
bool rule_names(std::string_view rule, std::string_view tool) {
  while (!rule.empty() && rule.front() == ' ') rule.remove_prefix(1);
  while (!rule.empty() && rule.back() == ' ') rule.remove_suffix(1);
  if (std::size_t paren = rule.find('('); paren != std::string_view::npos) rule = rule.substr(0, paren);
  return rule == tool;
}

bool any_rule_names(const std::vector<std::string>& rules, std::string_view tool) {
  return std::any_of(rules.begin(), rules.end(), [&](const std::string& r) { return rule_names(r, tool); });
}

}  // namespace

std::string home_directory() {
  const char* home = std::getenv("HOME");
  if (home == nullptr || home[0] != '/') return std::string();
  struct stat st {};
  if (::stat(home, &st) != 0 || !S_ISDIR(st.st_mode)) return std::string();
  return std::string(home);
}

Result<Settings> load_settings(const std::string& home, const std::string& cwd) {
  Settings settings;
  if (!home.empty()) {
    if (Status s = read_settings_file(home + "/.weld/settings.json", settings); !s) return s.error();
  }
  if (!cwd.empty() && cwd != home) {
    if (Status s = read_settings_file(cwd + "/.weld/settings.json", settings); !s) return s.error();
  }
  return settings;
}

Status check_allow_rule(std::string_view text) {
  // Never widen silently: a scoped rule weld cannot enforce
  // is a configuration error, not a grant of the whole tool.
  Result<ParsedRule> rule = parse_rule(text);
  if (!rule) return rule.error();
  if (rule->specifier && (rule->tool == "write_file" || rule->tool == "edit")) {
    return Error{ErrorCode::Config,
                 "\"" + std::string(text) + "\": weld enforces scoped rules for run_shell_command only; allow \"" +
                     rule->tool + "\" (every path in the workspace) or remove the rule.",
                 ""};
  }
  return Ok{};
}

Status merge_settings(const std::string& source, const std::string& cwd, Settings& settings,
                      const SettingNames& names) {
  const std::string what(names.settings);
  Result<json::Value> doc = read_json_source(source, what, cwd);
  if (!doc) return doc.error();
  std::string name = source;
  if (source.find_first_not_of(" \t\r\n") != std::string::npos && source[source.find_first_not_of(" \t\r\n")] == '{')
    name = what;
  return read_settings_document(*doc, name, settings);
}

Status read_mcp_config(const std::string& source, const std::string& cwd, std::vector<McpServerConfig>& out,
                       const SettingNames& names) {
  const std::string what(names.mcp_config);
  Result<json::Value> doc = read_json_source(source, what, cwd);
  if (!doc) return doc.error();
  const json::Value* servers = doc->is_object() ? doc->find("mcpServers") : nullptr;
  if (servers == nullptr) {
    return Error{ErrorCode::Config, what + " " + source.substr(0, 80) +
                                        ": expected a JSON object with \"mcpServers\" (as Claude Code's .mcp.json).", ""};
  }
  return parse_mcp_servers(*servers, what, out);
}

std::string tool_rule_from_claude_code(std::string_view rule) {
  static const std::pair<std::string_view, std::string_view> kNames[] = {
      {"Bash", "run_shell_command"}, {"Read", "read_file"},   {"Write", "write_file"},  {"Edit", "edit"},
      {"MultiEdit", "edit"},         {"Grep", "grep_search"}, {"Glob", "glob"},         {"LS", "list_directory"},
  };
  std::size_t paren = rule.find('(');
  std::string_view tool = rule.substr(0, paren);
  for (const auto& [claude, weld] : kNames) {
    if (tool == claude) return std::string(weld) + std::string(paren == std::string_view::npos ? "" : rule.substr(paren));
  }
  return std::string(rule);
}

std::vector<std::string> split_rule_list(std::string_view text) {
  // Commas and spaces separate rules, except inside parentheses:
  // "Bash(git log:*) Edit,Read".
  std::vector<std::string> out;
  std::string current;
  int depth = 0;
  for (char c : text) {
    if (c == '(') ++depth;
    if (c == ')' && depth > 0) --depth;
    if (depth == 0 && (c == ',' || c == ' ' || c == '\t')) {
      if (!current.empty()) out.push_back(std::move(current));
      current.clear();
      continue;
    }
    current += c;
  }
  if (!current.empty()) out.push_back(std::move(current));
  return out;
}

std::optional<ApprovalMode> parse_approval_mode(std::string_view text) {
  if (text == "plan") return ApprovalMode::Plan;
  if (text == "default") return ApprovalMode::Default;
  if (text == "auto-edit" || text == "auto_edit" || text == "autoEdit") return ApprovalMode::AutoEdit;
  if (text == "yolo") return ApprovalMode::Yolo;
  return std::nullopt;
}

std::string_view approval_mode_name(ApprovalMode mode) {
  switch (mode) {
    case ApprovalMode::Plan: return "plan";
    case ApprovalMode::Default: return "default";
    case ApprovalMode::AutoEdit: return "auto-edit";
    case ApprovalMode::Yolo: return "yolo";
  }
  return "default";
}

std::vector<std::string> split_tool_list(std::string_view text) {
  std::vector<std::string> out;
  while (!text.empty()) {
    std::size_t comma = text.find(',');
    std::string_view part = text.substr(0, comma);
    while (!part.empty() && (part.front() == ' ' || part.front() == '\t')) part.remove_prefix(1);
    while (!part.empty() && (part.back() == ' ' || part.back() == '\t')) part.remove_suffix(1);
    if (!part.empty()) out.emplace_back(part);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return out;
}

bool tool_allowed_by_rules(const ToolPolicy& policy, std::string_view tool) {
  if (any_rule_names(policy.exclude_flag, tool)) return false;
  if (policy.bare) return true;
  return !any_rule_names(policy.settings.deny, tool) && !any_rule_names(policy.settings.exclude, tool);
}

namespace {
// The allow rules for run_shell_command: whether one allows every command,
// and the specifiers of the scoped ones.
struct ShellGrant {
  bool unscoped = false;
  ShellScope scope;
};
ShellGrant shell_grant(const std::vector<std::string>& allowed) {
  ShellGrant grant;
  for (const auto& text : allowed) {
    Result<ParsedRule> rule = parse_rule(text);
    if (!rule || rule->tool != "run_shell_command") continue;
    if (rule->specifier) grant.scope.specifiers.push_back(*rule->specifier);
    else grant.unscoped = true;
  }
  return grant;
}
}  // namespace

ToolSelection select_tools(const ToolPolicy& policy) {
  std::vector<std::string> denied = policy.exclude_flag;
  std::vector<std::string> allowed = policy.allow_flag;
  if (!policy.bare) {
    denied.insert(denied.end(), policy.settings.deny.begin(), policy.settings.deny.end());
    denied.insert(denied.end(), policy.settings.exclude.begin(), policy.settings.exclude.end());
    allowed.insert(allowed.end(), policy.settings.allow.begin(), policy.settings.allow.end());
  }

  ToolSelection selection;
  const ShellGrant shell = shell_grant(allowed);
  for (auto& tool : make_builtin_tools()) {
    const std::string name = tool->name();
    if (tool->has_side_effects()) {
      bool offered = false;
      switch (policy.approval) {
        case ApprovalMode::Yolo: offered = true; break;
        case ApprovalMode::AutoEdit: offered = name != "run_shell_command"; break;
        case ApprovalMode::Default: break;
        case ApprovalMode::Plan: break;
      }
      // An allow rule offers a side-effect tool (a headless run cannot ask),
      // except in plan mode, which is read-only by definition.
      if (policy.approval != ApprovalMode::Plan && any_rule_names(allowed, name)) {
        // Scoped run_shell_command rules offer the tool restricted to them
        // (unless yolo or an unscoped rule allows every command).
        if (!offered && name == "run_shell_command" && !shell.unscoped) {
          tool = restrict_shell_tool(std::move(tool), shell.scope);
        }
        offered = true;
      }
      if (!offered) continue;
    }
    if (!policy.core_tools.empty() && !any_rule_names(policy.core_tools, name)) continue;
    if (any_rule_names(denied, name)) continue;
    selection.tools.push_back(std::move(tool));
  }
  selection.structured_output_allowed = !any_rule_names(denied, kStructuredOutputTool);
  return selection;
}

}  // namespace weld::agent
