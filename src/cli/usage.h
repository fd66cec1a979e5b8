#pragma once
// Command-line parsing shared by every subcommand, so that all of them exit
// the same way (SPEC §1.4, §2.5): --help prints and exits 0, a usage error
// prints the message and the subcommand's usage line on stderr and exits 1.
// CLI11's own exit codes (105, 106, ...) never reach the shell.

#include "weld/base/exit_code.h"
#include <optional>
#include <string>

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

/// Adds `--dialect NAME` (draft4, draft6, draft7, 2019-09, 2020-12) to
/// `command`; any other name is a usage error.
void add_dialect_flag(CLI::App& command, std::string& dialect);

}  // namespace weld::cli
