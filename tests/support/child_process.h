#pragma once
/// \file
/// How tests start child processes: through weld's one subprocess runner
/// (weld/agent/subprocess.h), the one that runs tools, hooks and MCP
/// servers, so a test's child gets what weld's own children get (its own
/// process group, default signal dispositions, no provider keys in its
/// environment, the group killed at the end). Tests that use this link
/// weld_agent.
///
/// \code
///   weld::testing::ChildRun run = weld::testing::run_child({WELD_BINARY, "schema", "check", path});
///   EXPECT_EQ(run.exit_code, 0) << run.err;
/// \endcode

#include <poll.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "weld/agent/subprocess.h"

namespace weld::testing {

/// What a child run to its end did.
struct ChildRun {
  /// The exit status; -1 when it did not exit (a signal, the timeout, or
  /// it could not start).
  int exit_code = -1;
  /// The signal that ended it (0 when it exited).
  int signal = 0;
  /// Killed at the timeout.
  bool timed_out = false;
  std::string out;
  std::string err;
  /// Why it could not start (empty when it started).
  std::string start_error;
};

/// How to run a child: what it reads on stdin (a file of these bytes; an
/// empty one by default, so a child that reads stdin sees its end at
/// once), variables set on top of the test's environment, and how long it
/// may take before its process group is killed.
struct ChildOptions {
  std::string input;
  std::vector<std::pair<std::string, std::string>> env;
  std::chrono::milliseconds timeout{30'000};
};

/// Runs `argv` (argv[0] looked up in PATH when it has no '/') to its end,
/// keeping all it writes on stdout and stderr.
inline ChildRun run_child(std::vector<std::string> argv, ChildOptions options = {}) {
  agent::SubprocessOptions spawn;
  spawn.argv = std::move(argv);
  spawn.env = std::move(options.env);
  spawn.stdin_mode = agent::SubprocessOptions::Input::Data;
  spawn.input = std::move(options.input);
  agent::SubprocessLimits limits;
  limits.timeout = options.timeout;
  limits.max_output = std::size_t{1} << 30;
  agent::SubprocessRun run = agent::run_subprocess(spawn, limits);
  ChildRun out;
  out.exit_code = run.end == agent::SubprocessRun::End::Exited ? run.exit_code : -1;
  out.signal = run.end == agent::SubprocessRun::End::Signaled ? run.signal : 0;
  out.timed_out = run.end == agent::SubprocessRun::End::TimedOut;
  out.out = std::move(run.output);
  out.err = std::move(run.error_output);
  out.start_error = std::move(run.start_error);
  return out;
}

/// A long-lived child (a server) with its stdout piped and its stderr
/// merged into it; stopped (SIGTERM to its group, then SIGKILL) when
/// destroyed. nullptr when it cannot start.
inline std::unique_ptr<agent::Subprocess> start_child(std::vector<std::string> argv) {
  agent::SubprocessOptions spawn;
  spawn.argv = std::move(argv);
  spawn.stderr_mode = agent::SubprocessOptions::Output::MergeIntoStdout;
  spawn.die_with_parent = true;
  Result<std::unique_ptr<agent::Subprocess>> started = agent::Subprocess::start(spawn);
  return started ? std::move(*started) : nullptr;
}

/// The first line `child` writes that starts with `prefix` (without its
/// "\n"); the lines before it are skipped. Empty when none comes within
/// `timeout` or the child closes its output. Reads byte by byte, so
/// nothing after that line is taken from the pipe.
inline std::string wait_for_line(agent::Subprocess& child, std::string_view prefix,
                                 std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string line;
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd ready{child.stdout_fd(), POLLIN, 0};
    if (::poll(&ready, 1, 100) <= 0) continue;
    char c;
    if (::read(child.stdout_fd(), &c, 1) != 1) return "";
    if (c != '\n') {
      line.push_back(c);
      continue;
    }
    if (line.rfind(prefix, 0) == 0) return line;
    line.clear();
  }
  return "";
}

}  // namespace weld::testing
