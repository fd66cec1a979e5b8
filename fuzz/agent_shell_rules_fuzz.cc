// Fuzzes the scoped run_shell_command rules (src/agent/shell_rules.cc,
// docs/run.md "Allow rules"): a settings rule (the first line) and a model-written command
// (the rest). Beyond not crashing, the rule that matters: a command is
// never allowed when it holds a character that chains, substitutes or
// redirects, and an allowed command always matches one of the rules.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "weld/agent/shell_rules.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  std::size_t newline = input.find('\n');
  std::string_view rule_text = input.substr(0, newline);
  std::string_view command = newline == std::string_view::npos ? std::string_view() : input.substr(newline + 1);

  weld::Result<weld::agent::ParsedRule> rule = weld::agent::parse_rule(rule_text);
  if (!rule || !rule->specifier) return 0;
  weld::agent::ShellScope scope{{*rule->specifier, "git status"}};
  if (scope.refusal(command)) return 0;
  if (command.find_first_of(";&|`<>\n\r") != std::string_view::npos) std::abort();
  if (command.find("$(") != std::string_view::npos || command.find("${") != std::string_view::npos) std::abort();
  if (!weld::agent::shell_rule_matches(*rule->specifier, command) && !weld::agent::shell_rule_matches("git status", command))
    std::abort();
  return 0;
}
