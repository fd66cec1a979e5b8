#pragma once
// Command-line parsing shared by every subcommand, so that all of them exit
// the same way (docs/design.md, "Exit codes"): --help prints and exits 0, a usage error
// prints the message and the subcommand's usage line on stderr and exits 1.
// CLI11's own exit codes (105, 106, ...) never reach the shell.

#include "weld/base/exit_code.h"
#include <optional>
#include <string>
#include <string_view>

namespace CLI {
class App;
}  // namespace CLI

namespace weld::cli {

/// Exit code of a usage error (unknown flag, missing argument, bad value).
inline constexpr int kExitUsage = ExitCode::Failure;
/// Exit code of a schema or configuration error (nothing sent to a model).
inline constexpr int kExitConfig = ExitCode::Config;

/// Parses argv with `app`. nullopt: go on. Otherwise the exit code to
/// return: 0 after --help, kExitUsage after a usage error (reported as
/// "<command>: <problem>" and the failing (sub)command's usage line).
std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv);

/// `text` with every line starting with `prefix` ("weld: "), except lines
/// that already name weld ("weld: …", "weld batch: …"): every line weld
/// writes on stderr says where it comes from (docs/run.md, "Messages").
std::string with_prefix(std::string_view prefix, std::string_view text);

/// Writes `with_prefix(prefix, text)` to stderr and flushes it.
void write_stderr_lines(std::string_view prefix, std::string_view text);

/// Adds `--dialect NAME` (draft4, draft6, draft7, 2019-09, 2020-12, v1) to
/// `command`; any other name is a usage error.
void add_dialect_flag(CLI::App& command, std::string& dialect);

}  // namespace weld::cli
