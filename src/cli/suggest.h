#pragma once
// "Did you mean": the closest flag or subcommand name to what was typed, and
// the one-line answers for Claude Code flags weld has no use for
// (docs/run.md, "Coming from Claude Code, Qwen Code or Codex").

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace CLI {
class App;
class ParseError;
}  // namespace CLI

namespace weld::cli {

/// Edits from `a` to `b`: a letter added, dropped or changed, or two
/// neighbours swapped (optimal string alignment), letter case ignored.
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The one candidate nearest `word` at no more than `max_edits`; nullopt when
/// none is that near, or two are equally near.
std::optional<std::string> nearest(std::string_view word, const std::vector<std::string>& candidates,
                                   std::size_t max_edits);

/// The subcommand names a first word is compared with.
const std::vector<std::string>& subcommand_names();

/// A CLI11 parse error of `app` as weld says it: an unknown flag names the
/// nearest known one ("unknown flag --json-shema; did you mean
/// --json-schema?"), and a Claude Code flag weld has no use for says so and
/// why. `elsewhere` names flags of another weld command that `app` does not
/// take, with what to do instead (`weld batch --mcp-config`: "--mcp-config is
/// a flag of the run, not of weld batch: …"). Other errors: CLI11's text.
using FlagsElsewhere = std::vector<std::pair<std::string_view, std::string_view>>;
std::string parse_error_text(const CLI::App& app, const CLI::ParseError& error, const FlagsElsewhere& elsewhere = {});

}  // namespace weld::cli
