// run_shell_command: side effects, offered only with --yolo or
// --approval-mode yolo (or an allow rule). Runs `bash -c` in its own process
// group with a timeout, bounded output, and prompt cancellation.

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "paths.h"

namespace weld::agent {
namespace {
using tools::tool_error;

constexpr std::int64_t kDefaultTimeoutMs = 120000;
constexpr std::int64_t kMaxTimeoutMs = 600000;
constexpr std::size_t kMaxOutputBytes = 64 * 1024;

class RunShellCommandTool final : public Tool {
 public:
  std::string name() const override { return "run_shell_command"; }
  std::string description() const override {
    return "Runs a command with bash -c in the workspace and returns its exit code and combined stdout/stderr "
           "(first 64 KiB). Standard input is empty. Default timeout 120000 ms.";
  }
  json::Value parameters() const override {
    return json::Object{
        {"type", "object"},
        {"properties",
         json::Object{{"command", json::Object{{"type", "string"}}},
                      {"directory", json::Object{{"type", "string"},
                                                 {"description", "Directory to run in (default: the working directory)."}}},
                      {"timeout_ms", json::Object{{"type", "integer"}, {"minimum", 1}, {"maximum", kMaxTimeoutMs}}}}},
        {"required", json::Array{"command"}},
        {"additionalProperties", false}};
  }
  bool has_side_effects() const override { return true; }

  ToolOutput run(const json::Value& arguments, const ToolContext& context) const override {
    auto command = tools::string_arg(arguments, name(), "command", true);
    if (!command) return tool_error(command.error().message);
    auto dir_arg = tools::string_arg(arguments, name(), "directory", false);
    if (!dir_arg) return tool_error(dir_arg.error().message);
    auto timeout = tools::integer_arg(arguments, name(), "timeout_ms");
    if (!timeout) return tool_error(timeout.error().message);
    auto dir = tools::resolve_in_workspace(context.cwd, dir_arg->value_or("."));
    if (!dir) return tool_error("run_shell_command: " + dir.error().message);
    std::error_code ec;
    if (!std::filesystem::is_directory(*dir, ec)) return tool_error("run_shell_command: \"" + *dir + "\" is not a directory.");
    std::int64_t timeout_ms = timeout->value_or(kDefaultTimeoutMs);
    if (timeout_ms <= 0 || timeout_ms > kMaxTimeoutMs) timeout_ms = kMaxTimeoutMs;

    int pipe_fds[2];
    if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return tool_error(std::string("run_shell_command: pipe failed: ") + std::strerror(errno));
    pid_t pid = ::fork();
    if (pid < 0) {
      ::close(pipe_fds[0]);
      ::close(pipe_fds[1]);
      return tool_error(std::string("run_shell_command: fork failed: ") + std::strerror(errno));
    }
    if (pid == 0) {
      // Child: own process group (so a timeout kills the whole tree), default
      // signal mask (the CLI blocks SIGINT/SIGTERM in its threads).
      ::setpgid(0, 0);
      sigset_t none;
      sigemptyset(&none);
      ::sigprocmask(SIG_SETMASK, &none, nullptr);
      ::signal(SIGPIPE, SIG_DFL);  // the CLI ignores SIGPIPE; `yes | head` must still end
      int devnull = ::open("/dev/null", O_RDONLY);
      if (devnull >= 0) ::dup2(devnull, 0);
      ::dup2(pipe_fds[1], 1);
      ::dup2(pipe_fds[1], 2);
      if (::chdir(dir->c_str()) != 0) ::_exit(126);
      ::execl("/bin/bash", "bash", "-c", command->value().c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::setpgid(pid, pid);
    ::close(pipe_fds[1]);

    std::string output;
    std::size_t total = 0;
    bool timed_out = false;
    bool cancelled = false;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    char buffer[8192];
    for (;;) {
      if (context.cancel != nullptr && context.cancel->cancelled.load()) {
        cancelled = true;
        break;
      }
      if (std::chrono::steady_clock::now() >= deadline) {
        timed_out = true;
        break;
      }
      pollfd pfd{pipe_fds[0], POLLIN, 0};
      int ready = ::poll(&pfd, 1, 50);
      if (ready < 0 && errno != EINTR) break;
      if (ready <= 0) continue;
      ssize_t n = ::read(pipe_fds[0], buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;  // EOF: every writer closed
      total += static_cast<std::size_t>(n);
      if (output.size() < kMaxOutputBytes) {
        output.append(buffer, std::min(static_cast<std::size_t>(n), kMaxOutputBytes - output.size()));
      }
    }
    ::close(pipe_fds[0]);
    if (timed_out || cancelled) ::kill(-pid, SIGKILL);
    int status = 0;
    // Bounded wait: the group was killed, or the output closed (the shell exits).
    for (int i = 0; i < 200; ++i) {
      pid_t r = ::waitpid(pid, &status, WNOHANG);
      if (r == pid || r < 0) break;
      if (i == 100) ::kill(-pid, SIGKILL);
      ::usleep(10000);
    }
    if (cancelled) return tool_error("run_shell_command: cancelled.");

    std::string out = "Command: " + **command + "\nDirectory: " + *dir + "\n";
    bool failed = false;
    if (timed_out) {
      out += "Timed out after " + std::to_string(timeout_ms) + " ms; the process group was killed.\n";
      failed = true;
    } else if (WIFEXITED(status)) {
      out += "Exit code: " + std::to_string(WEXITSTATUS(status)) + "\n";
      failed = WEXITSTATUS(status) != 0;
    } else if (WIFSIGNALED(status)) {
      out += "Killed by signal " + std::to_string(WTERMSIG(status)) + "\n";
      failed = true;
    }
    out += "Output:\n" + output;
    if (total > output.size()) out += "\n[output truncated: " + std::to_string(total) + " bytes in total]";
    return {std::move(out), failed};
  }
};

}  // namespace

std::unique_ptr<Tool> make_run_shell_command_tool() { return std::make_unique<RunShellCommandTool>(); }

std::vector<std::unique_ptr<Tool>> make_builtin_tools() {
  std::vector<std::unique_ptr<Tool>> tools;
  tools.push_back(make_read_file_tool());
  tools.push_back(make_list_directory_tool());
  tools.push_back(make_glob_tool());
  tools.push_back(make_grep_search_tool());
  tools.push_back(make_write_file_tool());
  tools.push_back(make_edit_tool());
  tools.push_back(make_run_shell_command_tool());
  return tools;
}

}  // namespace weld::agent
