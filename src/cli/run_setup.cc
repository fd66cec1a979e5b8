// One way to set up a run from flags, for the run and `weld batch`
// (run_setup.h; docs/design.md, "Setting up a run").

#include "run_setup.h"

#include <CLI/CLI.hpp>
#include <filesystem>

#include "run_support.h"
#include "telemetry_support.h"
#include "weld/agent/mcp.h"

namespace weld::cli {
namespace {

std::string current_directory() {
  std::error_code ec;
  std::string cwd = std::filesystem::current_path(ec).string();
  return ec ? std::string(".") : cwd;
}

// --allowedTools / --disallowedTools / --exclude-tools values: rules split at
// commas and spaces outside parentheses, Claude Code's tool names mapped
// onto weld's.
std::vector<std::string> split_rules(const std::vector<std::string>& lists) {
  std::vector<std::string> out;
  for (const auto& list : lists) {
    for (const auto& rule : agent::split_rule_list(list)) out.push_back(agent::tool_rule_from_claude_code(rule));
  }
  return out;
}

// --core-tools values: names split at commas.
std::vector<std::string> split_names(const std::vector<std::string>& lists) {
  std::vector<std::string> out;
  for (const auto& list : lists) {
    for (auto& name : agent::split_tool_list(list)) out.push_back(std::move(name));
  }
  return out;
}


// Claude Code's --permission-mode as a weld approval mode.
std::optional<std::string> approval_from_permission_mode(const std::string& mode) {
  if (mode == "default" || mode == "dontAsk") return "default";  // a headless run never asks
  if (mode == "acceptEdits") return "auto-edit";
  if (mode == "plan") return "plan";
  if (mode == "bypassPermissions") return "yolo";
  return std::nullopt;
}

}  // namespace

bool ToolFlags::tools_asked() const {
  return !core_tools.empty() || yolo || approval_mode || permission_mode || !allowed_tools.empty();
}

std::string ToolFlags::joined_system_prompt() const {
  std::string text = system_prompt.value_or("");
  if (append_system_prompt) text += (text.empty() ? "" : "\n\n") + *append_system_prompt;
  return text;
}

void add_tool_flags(CLI::App& app, ToolFlags& f, bool per_row) {
  // In a batch the tools are offered to every row, and only when asked for
  // (docs/batch.md, "Each row is a run"); rows run no MCP servers.
  app.add_flag("-y,--yolo,--dangerously-skip-permissions", f.yolo,
               per_row ? "Offer every built-in tool, side effects included (= --approval-mode yolo)"
                       : "Offer every tool, side effects included (= --approval-mode yolo)");
  app.add_option("--approval-mode", f.approval_mode,
                 per_row ? "plan | default | auto-edit | yolo (offers built-in tools)" : "plan | default | auto-edit | yolo");
  app.add_option("--permission-mode", f.permission_mode,
                 "Claude Code's modes: default, acceptEdits (= auto-edit), plan, bypassPermissions (= yolo)")
      ->type_name("MODE");
  app.add_option("--allowedTools,--allowed-tools", f.allowed_tools,
                 std::string(per_row ? "Tools offered to every row" : "Tools offered without asking") +
                     ", as settings permissions.allow (\"Bash(git log:*)\" Edit; Claude Code's names or weld's)")
      ->type_name("RULES");
  app.add_option("--exclude-tools,--disallowedTools,--disallowed-tools", f.exclude_tools,
                 "Tools never offered (comma-separated; repeatable; Claude Code's names or weld's)");
  app.add_option("--core-tools", f.core_tools,
                 per_row ? "Offer these built-in tools to every row (comma-separated; repeatable; default: none)"
                         : "Only these built-in tools (comma-separated; repeatable)");
  if (!per_row) app.add_flag("--bare", f.bare, "Ignore settings-derived permissions and exclusions");
  app.add_option("--system-prompt", f.system_prompt,
                 per_row ? "System prompt of every row (a row's own system message wins)" : "System prompt");
  app.add_option("--append-system-prompt", f.append_system_prompt,
                 per_row ? "Text added at the end of --system-prompt" : "Text added at the end of the system prompt");
  app.add_option("--settings", f.settings,
                 "One more settings file (or JSON text), read after ~/.weld and ./.weld settings; repeatable")
      ->type_name("FILE");
  if (per_row) return;
  app.add_option("--mcp-config", f.mcp_config,
                 "MCP servers from a file or JSON text holding {\"mcpServers\": …} (Claude Code's .mcp.json); "
                 "repeatable")
      ->type_name("FILE|JSON");
  app.add_flag("--strict-mcp-config", f.strict_mcp_config, "Only the --mcp-config servers, none from settings");
}

Result<agent::ApprovalMode> approval_from_flags(const ToolFlags& flags) {
  std::optional<std::string> approval_mode = flags.approval_mode;
  if (const std::optional<std::string>& permission_mode = flags.permission_mode) {
    std::optional<std::string> mode = approval_from_permission_mode(*permission_mode);
    if (!mode) {
      return Error{ErrorCode::Usage,
                   "--permission-mode must be one of default, acceptEdits, plan, bypassPermissions, dontAsk (got \"" +
                       *permission_mode + "\").",
                   ""};
    }
    if (approval_mode && *approval_mode != *mode)
      return Error{ErrorCode::Usage, "--permission-mode and --approval-mode disagree; give one of them.", ""};
    approval_mode = *mode;
  }
  if (flags.yolo && approval_mode && *approval_mode != "yolo")
    return Error{ErrorCode::Usage,
                 "Cannot use both --yolo (-y) and --approval-mode together. Use --approval-mode=yolo instead.", ""};
  if (flags.yolo) return agent::ApprovalMode::Yolo;
  std::optional<agent::ApprovalMode> mode = agent::parse_approval_mode(approval_mode.value_or("default"));
  if (!mode)
    return Error{ErrorCode::Usage,
                 "--approval-mode must be one of plan, default, auto-edit, yolo (got \"" + *approval_mode + "\").", ""};
  return *mode;
}

RunSetup::RunSetup(Write write)
    : write_(std::move(write)), cwd_(current_directory()), home_(agent::home_directory()) {}

void RunSetup::warn(std::string_view text) const { write_("weld: warning: " + std::string(text) + "\n"); }

SetupStep RunSetup::load_schema(const std::optional<std::string>& json_schema, bool no_strict) {
  if (!json_schema) return std::nullopt;
  schema::CompileOptions compile;
  compile.strict = !no_strict;
  Result<schema::LoadedSchema> loaded = schema::load_json_schema(*json_schema, compile, "--json-schema", cwd_);
  if (!loaded) return SetupEnding{ExitCode::Config, loaded.error().message};
  for (const auto& warning : loaded->warnings) {
    warn("--json-schema " + warning.message +
         (warning.pointer.empty() ? std::string() : " (at " + warning.pointer + ")"));
  }
  schema_.emplace(std::move(*loaded));
  return std::nullopt;
}

SetupStep RunSetup::load_tools(const ToolFlags& flags, agent::ApprovalMode approval, bool offer_tools) {
  policy_.approval = approval;
  policy_.bare = flags.bare;
  policy_.exclude_flag = split_rules(flags.exclude_tools);
  policy_.core_tools = split_names(flags.core_tools);
  for (const std::string& rule : split_rules(flags.allowed_tools)) {
    if (Status checked = agent::check_allow_rule(rule); !checked)
      return SetupEnding{ExitCode::Config, "--allowedTools: " + checked.error().message};
    policy_.allow_flag.push_back(rule);
  }
  if (!flags.bare) {
    Result<agent::Settings> settings = agent::load_settings(home_, cwd_);
    if (!settings) return SetupEnding{ExitCode::Config, settings.error().message};
    policy_.settings = std::move(*settings);
  }
  // --settings: read even with --bare (named on the command line).
  for (const std::string& source : flags.settings) {
    if (Status merged = agent::merge_settings(source, cwd_, policy_.settings, kFlagNames); !merged)
      return SetupEnding{ExitCode::Config, merged.error().message};
  }
  if (flags.strict_mcp_config) policy_.settings.mcp_servers.clear();
  for (const std::string& source : flags.mcp_config) {
    if (Status read = agent::read_mcp_config(source, cwd_, policy_.settings.mcp_servers, kFlagNames); !read)
      return SetupEnding{ExitCode::Config, read.error().message};
  }
  if (offer_tools) selection_ = agent::select_tools(policy_);
  return std::nullopt;
}

SetupStep RunSetup::choose_mechanism(const std::optional<agent::Mechanism>& flag) {
  Result<agent::Mechanism> chosen = cli::choose_mechanism(flag, policy_.settings);
  if (!chosen) return SetupEnding{ExitCode::Config, chosen.error().message};
  mechanism_ = *chosen;
  return std::nullopt;
}

void RunSetup::report_model(const agent::ModelChoice& choice) const {
  for (const auto& note : choice.notes) write_(note + "\n");
  if (!choice.offline) return;
  write_(offline_notice(choice));
  if (schema_ && mechanism_ == agent::Mechanism::Native)
    write_("weld: the offline model answers through the structured_output tool; --mechanism native "
           "does not apply.\n");
}

void RunSetup::fill_options(const agent::ModelChoice& choice, agent::RunOptions& options) const {
  options.model = choice.model_name;
  options.names = kFlagNames;
  if (schema_) {
    options.schema = &schema_->schema;
    options.schema_source = schema_->source;
  }
  options.offer_structured_output = selection_.structured_output_allowed;
  // The offline model answers through the structured_output tool only.
  options.mechanism = choice.offline ? agent::Mechanism::Tool : mechanism_;
  if (options.mechanism == agent::Mechanism::Auto && !home_.empty()) {
    options.mechanism_cache_path = agent::mechanism_cache_path(home_);
    options.mechanism_cache_key = agent::mechanism_cache_key(choice.provider, choice.base_url, choice.model_name);
  }
  options.cwd = cwd_;
}

telemetry::Telemetry* RunSetup::start_telemetry(const std::optional<std::string>& file,
                                                telemetry::Config::Sender sender) {
  telemetry_ = cli::start_telemetry(file, [this](std::string_view text) { warn(text); }, sender);
  return telemetry_.get();
}

void RunSetup::end_telemetry_spans() const {
  if (telemetry_) telemetry_->begin_shutdown();
}

void RunSetup::finish_telemetry() const {
  cli::finish_telemetry(telemetry_.get(), [this](std::string_view text) { warn(text); });
}

}  // namespace weld::cli
