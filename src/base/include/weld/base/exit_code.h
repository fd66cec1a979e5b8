#pragma once
/// \file
/// weld's exit codes, the same in every subcommand (`weld --help`, "Exit
/// codes"; docs/run.md). One closed set: a run sets them by name, the batch
/// and the command line read them back by name, never as bare numbers.

namespace weld {

/// The exit codes. An unscoped enum in a struct: `ExitCode::Temporary` by
/// name, and a value converts to the process's `int` where it is returned
/// (never the other way: an int must be named to become an ExitCode).
struct ExitCodes {
  enum Value : int {
    Success = 0,     ///< a run: stdout is the schema-valid payload
    Failure = 1,     ///< usage error, plain-text answer, exhausted retries, a final provider error
    Auth = 41,       ///< the provider refused the credentials (401/403)
    Config = 52,     ///< schema or configuration error; nothing was sent to the model
    MaxTurns = 53,   ///< --max-session-turns reached
    Limits = 55,     ///< --max-tool-calls or --max-wall-time exceeded
    Temporary = 75,  ///< the model server could not be reached or kept failing; retry later
    Cancelled = 130, ///< interrupted (SIGINT or SIGTERM)
  };
};
using ExitCode = ExitCodes::Value;

}  // namespace weld
