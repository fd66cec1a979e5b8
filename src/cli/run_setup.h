#pragma once
// One way to set up a run from flags (docs/design.md, "Setting up a run"):
// the steps the headless run (run_command.cc) and every row of `weld batch`
// (batch_command.cc) share — where the run stands (directory, HOME), the
// schema, settings and tools, the mechanism, the run options the chosen
// model implies, and telemetry. Each command keeps only what is its own
// (the prompt and sessions; the shard, input and result file).

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "weld/agent/mechanism.h"
#include "weld/agent/model_choice.h"
#include "weld/agent/run_loop.h"
#include "weld/agent/settings.h"
#include "weld/base/exit_code.h"
#include "weld/base/result.h"
#include "weld/schema/load.h"
#include "weld/telemetry/telemetry.h"

namespace CLI {
class App;
}

namespace weld::cli {

/// How a setup step ends the command before anything is sent: the exit
/// code and the message (without the command's prefix).
struct SetupEnding {
  ExitCode code;
  std::string message;
};
/// nullopt when the step went through.
using SetupStep = std::optional<SetupEnding>;

/// The flags that pick the tools, the approval mode and the system prompt,
/// declared once by add_tool_flags for the run and `weld batch` (which
/// refuses --bare and the MCP ones: rows run no MCP servers).
struct ToolFlags {
  bool yolo = false;                           ///< -y/--yolo/--dangerously-skip-permissions
  std::optional<std::string> approval_mode;    ///< --approval-mode, as typed
  std::optional<std::string> permission_mode;  ///< Claude Code's --permission-mode, as typed
  std::vector<std::string> core_tools;         ///< comma-separated lists, as typed
  std::vector<std::string> allowed_tools;      ///< rules (Claude Code's names mapped), checked by check_allow_rule
  std::vector<std::string> exclude_tools;      ///< rules (Claude Code's names mapped)
  std::vector<std::string> settings;           ///< --settings sources, read after the files
  std::optional<std::string> system_prompt;
  std::optional<std::string> append_system_prompt;
  bool bare = false;                      ///< the run only
  std::vector<std::string> mcp_config;    ///< --mcp-config sources (the run only)
  bool strict_mcp_config = false;         ///< the run only

  /// Whether any flag asks for built-in tools (a batch row offers none
  /// unless asked).
  bool tools_asked() const;
  /// --system-prompt, then a blank line and --append-system-prompt.
  std::string joined_system_prompt() const;
};

/// Adds --core-tools, -y/--yolo/--dangerously-skip-permissions,
/// --approval-mode, --permission-mode, --allowedTools/--allowed-tools,
/// --exclude-tools/--disallowedTools/--disallowed-tools, --system-prompt,
/// --append-system-prompt and --settings; and, unless `per_row` (`weld
/// batch`, whose help speaks of rows), --bare, --mcp-config and
/// --strict-mcp-config.
void add_tool_flags(CLI::App& app, ToolFlags& flags, bool per_row = false);

/// The approval mode from -y/--yolo (Claude Code's --dangerously-skip-permissions),
/// --approval-mode and Claude Code's --permission-mode (default, dontAsk,
/// acceptEdits = auto-edit, plan, bypassPermissions = yolo); the usage
/// error's message when they conflict or a mode is not known.
Result<agent::ApprovalMode> approval_from_flags(const ToolFlags& flags);

/// A run being set up. Steps in order: load_schema, load_tools,
/// choose_mechanism, then (once the model is chosen) fill_options.
class RunSetup {
 public:
  /// Writes one or more stderr lines (each ending in "\n").
  using Write = std::function<void(std::string_view)>;

  /// The working directory ("." when it cannot be read) and HOME as
  /// agent::home_directory gives it: empty unless HOME is an absolute path
  /// to a directory. With no usable HOME nothing under ~/.weld is read or
  /// written — no user settings, no session, no mechanism cache — in the
  /// run and the batch alike (docs/run.md, "Mechanisms").
  explicit RunSetup(Write write);
  RunSetup(const RunSetup&) = delete;
  RunSetup& operator=(const RunSetup&) = delete;

  const std::string& cwd() const { return cwd_; }
  const std::string& home() const { return home_; }

  /// --json-schema, compiled once (docs/schema.md): warnings to stderr;
  /// every failure exits 52. No flag: no schema.
  SetupStep load_schema(const std::optional<std::string>& json_schema, bool no_strict);
  const schema::LoadedSchema* schema() const { return schema_ ? &*schema_ : nullptr; }

  /// Settings (~/.weld, then ./.weld, unless --bare; then --settings),
  /// MCP servers, and the tools they, `flags` and `approval` (from
  /// approval_from_flags) allow (docs/run.md,
  /// "Tools and permissions"). `offer_tools` false: no built-in tools
  /// (a batch row that asked for none), the settings still read.
  /// Configuration errors exit 52.
  SetupStep load_tools(const ToolFlags& flags, agent::ApprovalMode approval, bool offer_tools = true);
  const agent::ToolPolicy& policy() const { return policy_; }
  const agent::ToolSelection& selection() const { return selection_; }

  /// The mechanism (docs/run.md, "Mechanisms"): the flag, else
  /// WELD_MECHANISM, else settings; default tool. Exit 52 when bad.
  SetupStep choose_mechanism(const std::optional<agent::Mechanism>& flag);
  agent::Mechanism mechanism() const { return mechanism_; }

  /// Writes the choice's notes (and the offline model's notice) to stderr.
  void report_model(const agent::ModelChoice& choice) const;

  /// What the chosen model implies for the run's options: the model name,
  /// the schema, whether structured_output is offered, the mechanism (the
  /// offline model answers through the tool only) and, for `auto` with a
  /// usable HOME, where the probe's verdict is remembered; the directory;
  /// the flags' names for what the run loop says (kFlagNames).
  void fill_options(const agent::ModelChoice& choice, agent::RunOptions& options) const;

  /// Starts telemetry (docs/telemetry.md) from the environment and
  /// --telemetry-file; nullptr when nothing is configured. Call after
  /// SignalGuard, whose blocked signals its thread must inherit.
  telemetry::Telemetry* start_telemetry(const std::optional<std::string>& file, telemetry::Config::Sender sender);
  /// Stops telemetry's background sender (every span has ended).
  void end_telemetry_spans() const;
  /// Sends what telemetry still holds, for a bounded time, and says on
  /// stderr what could not be sent.
  void finish_telemetry() const;

 private:
  void warn(std::string_view text) const;

  Write write_;
  std::string cwd_;
  std::string home_;
  std::optional<schema::LoadedSchema> schema_;
  agent::ToolPolicy policy_;
  agent::ToolSelection selection_;
  agent::Mechanism mechanism_ = agent::Mechanism::Tool;
  std::unique_ptr<telemetry::Telemetry> telemetry_;
};

}  // namespace weld::cli
