#pragma once
/// \file
/// The one subprocess runner of weld, used by run_shell_command,
/// command hooks and MCP stdio servers: spawn with pipes, the child in its
/// own process group, an environment without the provider keys (docs/run.md, "What child processes get"),
/// default signal dispositions, a timeout and cancellation, reaping, and a
/// kill of the whole group at the end — so nothing a command started in the
/// background outlives the command (or weld).
///
/// \code
///   weld::agent::SubprocessOptions options;
///   options.argv = {"/bin/bash", "-c", "make test"};
///   options.cwd = cwd;
///   options.stderr_mode = weld::agent::SubprocessOptions::Output::MergeIntoStdout;
///   weld::agent::SubprocessRun run = weld::agent::run_subprocess(options, {std::chrono::seconds(120), &cancel, 64 * 1024});
///   if (run.end == weld::agent::SubprocessRun::End::Exited) use(run.exit_code, run.output);
/// \endcode

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "weld/base/result.h"
#include "weld/provider/model.h"

namespace weld::agent {

/// Registers a secret (the API key in use) that no child may see: a variable
/// holding it is left out of every child's environment, whatever its name,
/// and scrub_secrets() removes it from text. Values shorter than 4 bytes are
/// ignored (too short to be keys, too common to replace).
void protect_secret(std::string_view value);

/// `text` with every protected secret replaced by "[REDACTED]" — the second
/// line of defence for tool results (a secret read from a file, say).
std::string scrub_secrets(std::string_view text);

/// Variables never passed to a child: the provider keys weld reads.
inline constexpr const char* kChildEnvironmentDenied[] = {"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "WELD_API_KEY",
                                                          "ANTHROPIC_AUTH_TOKEN"};

/// weld's environment for a child ("NAME=value" strings): without the
/// denied variables and any variable holding a protected secret, then
/// `overrides` set on top (an MCP server's own `env`, which may set a key
/// deliberately).
std::vector<std::string> child_environment(const std::vector<std::pair<std::string, std::string>>& overrides = {});

/// What to start and how to connect it.
struct SubprocessOptions {
  /// Program and arguments; argv[0] is looked up in PATH when it has no '/'.
  std::vector<std::string> argv;
  /// Working directory (must exist).
  std::string cwd;
  /// Added to child_environment() (see there).
  std::vector<std::pair<std::string, std::string>> env;
  enum class Input { Null, Pipe, Data };
  /// Null: /dev/null; Pipe: stdin_fd() to write to; Data: `input` (read
  /// from a memory file, so a child that never reads cannot block weld).
  Input stdin_mode = Input::Null;
  std::string input;
  enum class Output { Null, Pipe, MergeIntoStdout };
  Output stdout_mode = Output::Pipe;
  Output stderr_mode = Output::Pipe;
  /// The child gets SIGTERM if weld dies without stopping it (long-lived
  /// servers).
  bool die_with_parent = false;
};

/// A running child in its own process group. The destructor stops it.
class Subprocess {
 public:
  /// Starts `options.argv`. An Error says why it could not start (fork,
  /// the working directory, exec — with the child's errno).
  static Result<std::unique_ptr<Subprocess>> start(const SubprocessOptions& options);
  ~Subprocess();
  Subprocess(const Subprocess&) = delete;
  Subprocess& operator=(const Subprocess&) = delete;

  /// The child's pid (= its process group id).
  pid_t pid() const { return pid_; }
  /// Our ends of the pipes (-1 when not piped). Owned by this object.
  int stdin_fd() const { return stdin_fd_; }
  int stdout_fd() const { return stdout_fd_; }
  int stderr_fd() const { return stderr_fd_; }
  void close_stdin();

  /// Reaps the child if it has exited (never blocks); true once it has.
  bool exited();
  /// After exited(): its wait status.
  int wait_status() const { return status_; }

  /// SIGTERM to the group (unless `grace` is zero), up to `grace` for the
  /// child to exit, then SIGKILL to the group; reaps. Idempotent and safe
  /// from another thread (the CLI's signal deadline).
  void stop(std::chrono::milliseconds grace = std::chrono::milliseconds(300));

 private:
  Subprocess() = default;
  pid_t pid_ = -1;
  int stdin_fd_ = -1;
  int stdout_fd_ = -1;
  int stderr_fd_ = -1;
  int status_ = 0;
  bool reaped_ = false;
  std::mutex mutex_;
};

/// Bounds of run_subprocess.
struct SubprocessLimits {
  std::chrono::milliseconds timeout{120'000};
  const provider::CancelToken* cancel = nullptr;
  /// Output kept per stream (the rest is counted, not kept).
  std::size_t max_output = 64 * 1024;
};

/// How run_subprocess ended.
struct SubprocessRun {
  enum class End { Exited, Signaled, TimedOut, Cancelled, StartFailed };
  End end = End::StartFailed;
  int exit_code = -1;
  int signal = 0;
  /// stdout (with stderr when merged) and stderr, each cut at max_output.
  std::string output;
  std::string error_output;
  /// Bytes of stdout received (more than output.size() when cut).
  std::size_t output_bytes = 0;
  /// StartFailed: why.
  std::string start_error;
};

/// Runs a child to its end: collects its output, and ends when the child
/// exits — then what it left running in its group (a background job still
/// holding the pipe) is killed after a short drain, and never turns a
/// finished command into a timeout — or at the timeout or cancellation
/// (the group killed).
SubprocessRun run_subprocess(const SubprocessOptions& options, const SubprocessLimits& limits);

}  // namespace weld::agent
