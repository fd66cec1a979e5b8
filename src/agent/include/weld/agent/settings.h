#pragma once
/// \file
/// Settings files and the tool policy (docs/run.md, "Tools and permissions"): which tools the model is
/// offered, from the approval mode, settings (`~/.weld/settings.json`, then
/// `./.weld/settings.json` over it) and flags.
///
/// \code
///   weld::Result<weld::agent::Settings> s = weld::agent::load_settings(home, cwd);
///   weld::agent::ToolPolicy policy{.approval = ApprovalMode::Default, .settings = *s};
///   weld::agent::ToolSelection sel = weld::agent::select_tools(policy);
/// \endcode

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "weld/agent/hooks.h"
#include "weld/agent/mcp.h"
#include "weld/agent/tool.h"
#include "weld/base/result.h"
#include "weld/base/setting_names.h"
#include "weld/json/value.h"

namespace weld::agent {

/// What the settings files say (merged: the project file's lists are added
/// to the user file's; scalar values from the project file win).
struct Settings {
  /// `permissions.allow`: tool names (or `name(…)` rules) allowed without asking.
  std::vector<std::string> allow;
  /// `permissions.deny`: tool names never offered.
  std::vector<std::string> deny;
  /// `tools.exclude`: tool names never offered.
  std::vector<std::string> exclude;
  /// `hooks` (docs/run.md, "Hooks"): the project file's hooks run after the user file's.
  HookSettings hooks;
  /// `mechanism` (docs/run.md, "Mechanisms"): "tool", "native" or "auto" (validated).
  std::optional<std::string> mechanism;
  /// `keepAnswers`: record the answers in session transcripts (as
  /// `--keep-answers`); the project file's value wins over the user's.
  std::optional<bool> keep_answers;
  /// `mcpServers` (docs/run.md, "MCP servers"), in file order; a project server replaces a
  /// user server of the same name.
  std::vector<McpServerConfig> mcp_servers;
  /// Files that were read, in order (for messages).
  std::vector<std::string> sources;
};

/// $HOME when it names an existing directory, else "" (no user settings,
/// no transcript, no mechanism cache). weld never creates a missing HOME: a
/// typo'd or unset-then-defaulted HOME must not grow a directory tree.
std::string home_directory();

/// Reads `<home>/.weld/settings.json` then `<cwd>/.weld/settings.json`
/// (either may be absent). A file that exists but is not valid JSON, or has
/// a wrongly typed field, is an error naming the file and the field.
Result<Settings> load_settings(const std::string& home, const std::string& cwd);

/// Reads settings over `settings` from `source`, a file (relative to `cwd`)
/// or JSON text starting with "{": `--settings`, read after the settings
/// files, so its values win and its lists add to theirs. Messages name the
/// source as `names.settings` (the CLI: `--settings`).
Status merge_settings(const std::string& source, const std::string& cwd, Settings& settings,
                      const SettingNames& names = {});

/// Appends the MCP servers of `source` (a file, relative to `cwd`, or JSON
/// text) holding `{"mcpServers": {…}}` as Claude Code's `.mcp.json` does:
/// `--mcp-config`. Messages name the source as `names.mcp_config`.
Status read_mcp_config(const std::string& source, const std::string& cwd, std::vector<McpServerConfig>& out,
                       const SettingNames& names = {});

/// An error when `rule` (a permissions.allow entry) cannot be enforced: a
/// rule that does not parse, or one scoped to a write_file/edit path.
Status check_allow_rule(std::string_view rule);

/// A Claude Code tool rule in weld's names: "Bash(git log:*)" →
/// "run_shell_command(git log:*)", "Read" → "read_file", "Edit" → "edit";
/// other names as given.
std::string tool_rule_from_claude_code(std::string_view rule);

/// Splits "Bash(git log:*) Edit,Read" at commas and spaces outside
/// parentheses (Claude Code's --allowedTools forms).
std::vector<std::string> split_rule_list(std::string_view text);

/// How much the run may do without asking (a headless run cannot ask).
enum class ApprovalMode { Plan, Default, AutoEdit, Yolo };

/// Parses "plan", "default", "auto-edit", "yolo"; nullopt otherwise.
std::optional<ApprovalMode> parse_approval_mode(std::string_view text);
/// The name as `parse_approval_mode` accepts it.
std::string_view approval_mode_name(ApprovalMode mode);

/// Inputs to `select_tools`.
struct ToolPolicy {
  ApprovalMode approval = ApprovalMode::Default;
  Settings settings;
  /// `--exclude-tools a,b` and `--disallowedTools` (apply even with --bare).
  std::vector<std::string> exclude_flag;
  /// `--allowedTools` rules, as permissions.allow (apply even with --bare).
  std::vector<std::string> allow_flag;
  /// `--core-tools a,b`: when non-empty, only these built-in tools
  /// (structured_output is exempt).
  std::vector<std::string> core_tools;
  /// `--bare`: ignore settings-derived deny/exclude (and allow) rules.
  bool bare = false;
};

/// The tools a run offers.
struct ToolSelection {
  std::vector<std::unique_ptr<Tool>> tools;
  /// False when `structured_output` is denied or excluded: the model then
  /// never sees it.
  bool structured_output_allowed = true;
};

/// Applies the tool policy (docs/run.md, "Tools and permissions") to the built-in tools.
ToolSelection select_tools(const ToolPolicy& policy);

/// False when `--exclude-tools` or (without --bare) `permissions.deny` /
/// `tools.exclude` name `tool`. Used for tools that are not built in (MCP),
/// which `--core-tools` does not restrict.
bool tool_allowed_by_rules(const ToolPolicy& policy, std::string_view tool);

/// Splits "a, b,c" into {"a","b","c"} (empty parts dropped).
std::vector<std::string> split_tool_list(std::string_view text);

}  // namespace weld::agent
