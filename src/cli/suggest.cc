// "Did you mean" for flags and subcommands (suggest.h).

#include "suggest.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <utility>

#include "weld/base/ascii.h"

namespace weld::cli {
namespace {

// Claude Code flags (`claude -p …`) that have no weld counterpart, and what
// to do instead. Said in one line rather than CLI11's "not expected", so a
// script ported from Claude Code learns what to change.
const std::vector<std::pair<std::string_view, std::string_view>>& claude_code_only_flags() {
  static const std::vector<std::pair<std::string_view, std::string_view>> flags = {
      {"--add-dir", "weld's file tools work in the current directory; run weld from the directory to work in"},
      {"--fallback-model", "weld has no fallback model; an overloaded server ends the run with exit 75, for the caller to retry"},
      {"--input-format", "weld reads the prompt as text (-p, an argument, or standard input)"},
      {"--permission-prompt-tool", "a weld run never asks; allow tools with --allowedTools or settings permissions.allow"},
      {"--replay-user-messages", "weld reads no stream-json input"},
      {"--session-id", "weld names its sessions; --resume ID and --continue resume one"},
      {"--fork-session", "a resumed weld session is written to again; copy the transcript to fork it"},
      {"--agents", "weld's agents are a registry file for weld proxy (--agents FILE), see docs/proxy.md"},
      {"--setting-sources", "weld reads ~/.weld/settings.json and ./.weld/settings.json; --settings FILE adds one, --bare reads none"},
      {"--max-budget-usd", "weld has no budget; --price-input/--price-output give the cost in the result envelope"},
      {"--betas", "weld sends no beta headers"},
      {"--plugin-dir", "weld has no plugins; MCP servers come from settings or --mcp-config"},
      {"--ide", "weld runs headless"},
      {"--tools", "weld's --core-tools lists the built-in tools to offer, by weld's names (read_file, grep_search, …)"},
      {"--model-fallback", "weld has no fallback model"},
  };
  return flags;
}

// The long names of every option of `app` ("--json-schema").
std::vector<std::string> long_flags(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* option : app.get_options()) {
    for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
  }
  return names;
}

}  // namespace

std::size_t edit_distance(std::string_view a, std::string_view b) {
  const std::size_t rows = a.size() + 1, cols = b.size() + 1;
  std::vector<std::size_t> d(rows * cols);
  auto at = [&](std::size_t i, std::size_t j) -> std::size_t& { return d[i * cols + j]; };
  for (std::size_t i = 0; i < rows; ++i) at(i, 0) = i;
  for (std::size_t j = 0; j < cols; ++j) at(0, j) = j;
  for (std::size_t i = 1; i < rows; ++i) {
    for (std::size_t j = 1; j < cols; ++j) {
      const bool same = ascii_lower(a[i - 1]) == ascii_lower(b[j - 1]);
      at(i, j) = std::min({at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + (same ? 0 : 1)});
      if (i > 1 && j > 1 && ascii_lower(a[i - 1]) == ascii_lower(b[j - 2]) &&
          ascii_lower(a[i - 2]) == ascii_lower(b[j - 1])) {
        at(i, j) = std::min(at(i, j), at(i - 2, j - 2) + 1);
      }
    }
  }
  return at(rows - 1, cols - 1);
}

std::optional<std::string> nearest(std::string_view word, const std::vector<std::string>& candidates,
                                   std::size_t max_edits) {
  std::optional<std::string> best;
  std::size_t best_distance = max_edits + 1;
  bool tie = false;
  for (const std::string& candidate : candidates) {
    const std::size_t distance = edit_distance(word, candidate);
    if (distance < best_distance) {
      best = candidate;
      best_distance = distance;
      tie = false;
    } else if (distance == best_distance && best && *best != candidate) {
      tie = true;
    }
  }
  if (tie) return std::nullopt;
  return best;
}

const std::vector<std::string>& subcommand_names() {
  static const std::vector<std::string> names = {"schema", "sample", "proxy", "agents", "batch", "help"};
  return names;
}

std::string parse_error_text(const CLI::App& app, const CLI::ParseError& error, const FlagsElsewhere& elsewhere) {
  if (dynamic_cast<const CLI::ExtrasError*>(&error) == nullptr) return error.what();
  std::vector<std::string> lines;
  std::vector<std::string> others;
  const std::vector<std::string> known = long_flags(app);
  for (const std::string& extra : app.remaining(true)) {
    const std::string flag = extra.substr(0, extra.find('='));
    if (flag.size() < 3 || flag.rfind("--", 0) != 0) {
      others.push_back(extra);
      continue;
    }
    auto other = std::find_if(elsewhere.begin(), elsewhere.end(), [&](const auto& entry) { return entry.first == flag; });
    if (other != elsewhere.end()) {
      lines.push_back(flag + " is a flag of the run, not of " + app.get_name() + ": " + std::string(other->second) + ".");
      continue;
    }
    // Claude Code's flags are answered where a `claude -p` script lands: the run and the batch.
    const bool claude_face = app.get_name() == "weld" || app.get_name() == "weld batch";
    const auto& claude = claude_code_only_flags();
    auto only = std::find_if(claude.begin(), claude.end(), [&](const auto& entry) { return entry.first == flag; });
    if (claude_face && only != claude.end()) {
      lines.push_back(flag + " is a Claude Code flag weld has no counterpart for: " + std::string(only->second) + ".");
      continue;
    }
    // A typo of a few letters; longer names allow one more.
    std::optional<std::string> near = nearest(flag, known, flag.size() > 10 ? 3 : 2);
    lines.push_back("unknown flag " + flag + (near ? "; did you mean " + *near + "?" : "."));
  }
  if (!others.empty()) {
    std::string list;
    for (const std::string& other : others) list += (list.empty() ? "" : " ") + other;
    lines.push_back(std::string(others.size() == 1 ? "The following argument was" : "The following arguments were") +
                    " not expected: " + list);
  }
  std::string text;
  for (const std::string& line : lines) text += (text.empty() ? "" : "\n") + line;
  return text;
}

}  // namespace weld::cli
