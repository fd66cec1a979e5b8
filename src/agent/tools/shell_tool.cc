// run_shell_command: side effects, offered only with --yolo or
// --approval-mode yolo (or an allow rule). Runs `bash -c` through the
// subprocess runner: own process group, an environment without the provider
// keys, a timeout, bounded output, prompt cancellation, and the group killed
// when the command ends (background jobs included).

#include <sys/stat.h>

#include <chrono>

#include "paths.h"
#include "weld/agent/subprocess.h"

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
    auto dir_path = tools::workspace_path(context.cwd, dir_arg->value_or("."));
    if (!dir_path) return tool_error("run_shell_command: " + dir_path.error().message);
    auto dir_st = tools::stat_in_workspace(context.cwd, *dir_path);
    if (dir_st && !S_ISDIR(dir_st->st_mode)) dir_st = Error{ErrorCode::Io, "\"" + dir_path->absolute + "\" is not a directory.", ""};
    if (!dir_st) return tool_error("run_shell_command: " + dir_st.error().message);
    const std::string* dir = &dir_path->absolute;
    std::int64_t timeout_ms = timeout->value_or(kDefaultTimeoutMs);
    if (timeout_ms <= 0 || timeout_ms > kMaxTimeoutMs) timeout_ms = kMaxTimeoutMs;

    SubprocessOptions spawn;
    spawn.argv = {"/bin/bash", "-c", **command};
    spawn.cwd = *dir;
    spawn.stdout_mode = SubprocessOptions::Output::Pipe;
    spawn.stderr_mode = SubprocessOptions::Output::MergeIntoStdout;
    SubprocessRun ran = run_subprocess(spawn, {std::chrono::milliseconds(timeout_ms), context.cancel, kMaxOutputBytes});
    if (ran.end == SubprocessRun::End::StartFailed) return tool_error("run_shell_command: " + ran.start_error);
    bool cancelled = ran.end == SubprocessRun::End::Cancelled;
    bool timed_out = ran.end == SubprocessRun::End::TimedOut;
    if (cancelled) return tool_error("run_shell_command: cancelled.");

    std::string out = "Command: " + **command + "\nDirectory: " + *dir + "\n";
    bool failed = false;
    if (timed_out) {
      out += "Timed out after " + std::to_string(timeout_ms) + " ms; the process group was killed.\n";
      failed = true;
    } else if (ran.end == SubprocessRun::End::Exited) {
      out += "Exit code: " + std::to_string(ran.exit_code) + "\n";
      failed = ran.exit_code != 0;
    } else {
      out += "Killed by signal " + std::to_string(ran.signal) + "\n";
      failed = true;
    }
    out += "Output:\n" + ran.output;
    if (ran.output_bytes > ran.output.size()) {
      out += "\n[output truncated: " + std::to_string(ran.output_bytes) + " bytes in total]";
    }
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
