// Scoped run_shell_command rules (docs/run.md, "Allow rules"). The syntax follows Claude
// Code's Bash(…) rules (exact/prefix `:*`, `*` wildcards, compound commands
// never covered by a prefix) and Qwen Code's run_shell_command(…) prefixes;
// rather than parse shell, any character that could start a second command
// or a redirection refuses the call — never widen silently.

#include "weld/agent/shell_rules.h"
#include "weld/base/text.h"

#include <algorithm>

namespace weld::agent {
namespace {

// `*` matches any run of characters; iterative with one backtrack point
// (linear-ish, no recursion on model-written input).
bool wildcard_match(std::string_view pattern, std::string_view text) {
  std::size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] != '*' && pattern[p] == text[t]) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

bool prefix_match(std::string_view prefix, std::string_view command) {
  if (command == prefix) return true;
  return command.size() > prefix.size() && command.substr(0, prefix.size()) == prefix &&
         (command[prefix.size()] == ' ' || command[prefix.size()] == '\t');
}

// The first construct that would reach beyond one simple command.
std::optional<std::string> chaining_in(std::string_view command) {
  for (std::size_t i = 0; i < command.size(); ++i) {
    char c = command[i];
    switch (c) {
      case ';': return std::string("\";\" (a second command)");
      case '&': return std::string("\"&\" (a second command or a background job)");
      case '|': return std::string("\"|\" (a pipe or a second command)");
      case '\n':
      case '\r': return std::string("a line break (a second command)");
      case '`': return std::string("\"`\" (command substitution)");
      case '<':
      case '>': return "\"" + std::string(1, c) + "\" (a redirection)";
      case '$':
        if (i + 1 < command.size() && (command[i + 1] == '(' || command[i + 1] == '{')) {
          return "\"$" + std::string(1, command[i + 1]) + "\" (substitution)";
        }
        break;
      default: break;
    }
  }
  return std::nullopt;
}

}  // namespace

bool shell_rule_matches(std::string_view specifier, std::string_view command) {
  specifier = trim(specifier, kHttpSpace);
  command = trim(command, kHttpSpace);
  if (specifier.size() >= 2 && specifier.substr(specifier.size() - 2) == ":*") {
    return prefix_match(trim(specifier.substr(0, specifier.size() - 2), kHttpSpace), command);
  }
  if (specifier.find('*') == std::string_view::npos) return prefix_match(specifier, command);
  if (std::count(specifier.begin(), specifier.end(), '*') == 1 && specifier.size() >= 2 &&
      specifier.substr(specifier.size() - 2) == " *") {
    return prefix_match(specifier.substr(0, specifier.size() - 2), command);
  }
  return wildcard_match(specifier, command);
}

std::optional<std::string> ShellScope::refusal(std::string_view command) const {
  std::string list;
  for (const auto& s : specifiers) list += (list.empty() ? "" : ", ") + std::string("run_shell_command(") + s + ")";
  if (std::optional<std::string> what = chaining_in(command)) {
    return "the allow rules (" + list + ") cover one simple command; this one contains " + *what + ".";
  }
  bool allowed = std::any_of(specifiers.begin(), specifiers.end(),
                             [&](const std::string& s) { return shell_rule_matches(s, command); });
  if (!allowed) return "the command matches none of the allow rules (" + list + ").";
  return std::nullopt;
}

Result<ParsedRule> parse_rule(std::string_view rule) {
  rule = trim(rule, kHttpSpace);
  std::size_t open = rule.find('(');
  if (open == std::string_view::npos) return ParsedRule{std::string(rule), std::nullopt};
  if (rule.back() != ')') return Error{ErrorCode::Config, "rule \"" + std::string(rule) + "\" must end with \")\".", ""};
  std::string_view specifier = trim(rule.substr(open + 1, rule.size() - open - 2), kHttpSpace);
  std::string tool(trim(rule.substr(0, open), kHttpSpace));
  if (specifier.empty()) return Error{ErrorCode::Config, "rule \"" + std::string(rule) + "\" has an empty specifier.", ""};
  if (specifier == "*") return ParsedRule{tool, std::nullopt};  // like Bash(*): every use
  return ParsedRule{tool, std::string(specifier)};
}

namespace {

class ScopedShellTool final : public Tool {
 public:
  ScopedShellTool(std::unique_ptr<Tool> inner, ShellScope scope) : inner_(std::move(inner)), scope_(std::move(scope)) {}
  std::string name() const override { return inner_->name(); }
  std::string description() const override {
    std::string list;
    for (const auto& s : scope_.specifiers) list += (list.empty() ? "" : ", ") + s;
    return inner_->description() + " Allowed commands only (one simple command, no ; & | ` $( ${ < > or line breaks): " +
           list + ".";
  }
  json::Value parameters() const override { return inner_->parameters(); }
  bool has_side_effects() const override { return true; }
  ToolOutput run(const json::Value& arguments, const ToolContext& context) const override {
    const json::Value* command = arguments.find("command");
    if (command != nullptr && command->is_string()) {
      if (std::optional<std::string> why = scope_.refusal(command->as_string())) {
        return {name() + ": not allowed: " + *why, true};
      }
    }
    return inner_->run(arguments, context);  // a missing/mistyped command: the tool's own error
  }

 private:
  std::unique_ptr<Tool> inner_;
  ShellScope scope_;
};

}  // namespace

std::unique_ptr<Tool> restrict_shell_tool(std::unique_ptr<Tool> shell, ShellScope scope) {
  return std::make_unique<ScopedShellTool>(std::move(shell), std::move(scope));
}

}  // namespace weld::agent
