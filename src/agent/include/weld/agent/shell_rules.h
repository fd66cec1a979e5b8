#pragma once
/// \file
/// Scoped allow rules for run_shell_command (docs/run.md, "Allow rules"), as Claude Code and
/// Qwen Code users write them: `run_shell_command(git status)`,
/// `run_shell_command(npm run test:*)`, `run_shell_command(git * main)`.
/// A command is allowed when it matches one rule and contains none of the
/// characters that start another command or redirect (docs/run.md
/// "Allow rules"):
///
/// - `prefix` and `prefix:*`: the command is `prefix` or starts with
///   `prefix ` (a word boundary: `git status` does not allow `git statusx`);
/// - `*` anywhere else matches any characters (spaces included); a single
///   trailing ` *` also matches nothing (`ls *` allows `ls`);
/// - refused anywhere in the command, quoted or not: `;` `&` `|` newline
///   `` ` `` `$(` `${` `<` `>` — chaining, background jobs, substitution and
///   redirection would run or write beyond the allowed prefix.
///
/// \code
///   weld::agent::ShellScope scope{{"git status", "npm run test:*"}};
///   scope.refusal("git status --short");      // nullopt: allowed
///   scope.refusal("git status; rm -rf ~");    // the reason it is refused
/// \endcode

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "weld/agent/tool.h"
#include "weld/base/result.h"

namespace weld::agent {

/// The specifiers of the scoped run_shell_command allow rules.
struct ShellScope {
  std::vector<std::string> specifiers;
  /// nullopt when `command` is allowed; else why not (for the model).
  std::optional<std::string> refusal(std::string_view command) const;
};

/// True when `command` (trimmed) matches one specifier (no chaining check).
bool shell_rule_matches(std::string_view specifier, std::string_view command);

/// A rule "tool(specifier)" split into its tool name and specifier
/// (nullopt specifier for a bare tool name). An Error for a malformed rule
/// (no closing parenthesis, text after it, an empty specifier).
struct ParsedRule {
  std::string tool;
  std::optional<std::string> specifier;
};
Result<ParsedRule> parse_rule(std::string_view rule);

/// `shell` (run_shell_command) restricted to `scope`: a call outside it is
/// an error result naming the rules, and the command never runs.
std::unique_ptr<Tool> restrict_shell_tool(std::unique_ptr<Tool> shell, ShellScope scope);

}  // namespace weld::agent
