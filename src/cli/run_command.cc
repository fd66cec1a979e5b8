// `weld [-p PROMPT] [--json-schema SCHEMA] …` — the headless run (SPEC §2).
// Reads flags, loads the schema (SPEC §1.1, exit 52 before anything is
// sent), picks the model (SPEC §4/§5), runs weld::agent::run, and turns its
// outcome into output (SPEC §2.4) and an exit code (SPEC §2.5).

#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "commands.h"
#include "run_support.h"
#include "weld/agent/output.h"
#include "weld/agent/run_loop.h"
#include "weld/agent/session_log.h"
#include "weld/agent/settings.h"
#include "weld/schema/load.h"

namespace weld::cli {
namespace {

// Everything the command line says.
struct RunFlags {
  std::optional<std::string> prompt;
  std::vector<std::string> positional;
  std::optional<std::string> json_schema;
  ModelFlags model;
  std::string output_format = "text";
  int max_session_turns = -1;
  int max_tool_calls = -1;
  double max_wall_time = 0;
  int max_structured_retries = 5;
  bool no_repair = false;
  bool clamp = false;
  bool yolo = false;
  std::optional<std::string> approval_mode;
  std::vector<std::string> exclude_tools;
  std::vector<std::string> core_tools;
  bool bare = false;
  bool include_partial_messages = false;
  std::optional<std::string> system_prompt;
  bool continue_session = false;
  std::optional<std::string> resume;
  bool no_session_persistence = false;
};

void write_stdout(std::string_view text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

void write_stderr(std::string_view text) {
  std::fwrite(text.data(), 1, text.size(), stderr);
  std::fflush(stderr);
}

int usage_error(const std::string& message) {
  write_stderr("weld: " + message + "\nRun 'weld --help' for usage.\n");
  return 1;
}

std::string current_directory() {
  std::error_code ec;
  std::string cwd = std::filesystem::current_path(ec).string();
  return ec ? std::string(".") : cwd;
}

std::string home_directory() {
  const char* home = std::getenv("HOME");
  return home != nullptr ? std::string(home) : std::string();
}

void add_flags(CLI::App& app, RunFlags& f) {
  app.add_option("-p,--prompt", f.prompt, "The prompt (also: a positional argument, or piped standard input)");
  app.add_option("prompt_text", f.positional, "The prompt, when -p is not used");
  app.add_option("--json-schema", f.json_schema,
                 "JSON Schema (inline JSON or @path) the final answer must validate against");
  app.add_option("--provider", f.model.provider, "openai | anthropic | offline");
  app.add_option("-m,--model", f.model.model, "Model name");
  app.add_option("--base-url", f.model.base_url, "API base URL (OpenAI: up to /v1; Anthropic: the host)");
  app.add_option("-o,--output-format", f.output_format, "text | json | stream-json")
      ->check(CLI::IsMember({"text", "json", "stream-json"}));
  app.add_option("--max-session-turns", f.max_session_turns, "End with exit 53 after N model turns (default: no limit)");
  app.add_option("--max-tool-calls", f.max_tool_calls, "End with exit 55 after N tool calls (structured_output excluded)");
  app.add_option("--max-wall-time", f.max_wall_time, "End with exit 55 after SECONDS");
  app.add_option("--max-structured-retries", f.max_structured_retries,
                 "Retries allowed after an invalid structured_output call (default 5)")
      ->check(CLI::NonNegativeNumber);
  app.add_flag("--no-repair", f.no_repair, "Turn off every repair of structured_output arguments");
  app.add_flag("--clamp", f.clamp, "Clamp numbers into minimum/maximum");
  app.add_flag("-y,--yolo", f.yolo, "Offer every tool, side effects included (= --approval-mode yolo)");
  app.add_option("--approval-mode", f.approval_mode, "plan | default | auto-edit | yolo");
  app.add_option("--exclude-tools", f.exclude_tools, "Tools never offered (comma-separated; repeatable)");
  app.add_option("--core-tools", f.core_tools, "Only these built-in tools (comma-separated; repeatable)");
  app.add_flag("--bare", f.bare, "Ignore settings-derived permissions and exclusions");
  app.add_flag("--include-partial-messages", f.include_partial_messages,
               "stream-json: add stream_event lines with the provider's deltas");
  app.add_option("--seed", f.model.seed, "Seed of the offline model");
  app.add_option("--system-prompt", f.system_prompt, "System prompt");
  app.add_flag("-c,--continue", f.continue_session, "Resume the newest session of this directory");
  app.add_option("-r,--resume", f.resume, "Resume the session with this id");
  app.add_flag("--no-session-persistence", f.no_session_persistence, "Do not record this run's transcript");
}

std::vector<std::string> split_all(const std::vector<std::string>& lists) {
  std::vector<std::string> out;
  for (const auto& list : lists) {
    for (auto& name : agent::split_tool_list(list)) out.push_back(std::move(name));
  }
  return out;
}

}  // namespace

int run_main(int argc, char** argv) {
  // A closed stdout must end in a write error, not a silent SIGPIPE death.
  ::signal(SIGPIPE, SIG_IGN);

  CLI::App app{"weld: a headless agent run that ends on the first schema-valid answer (SPEC §2)", "weld"};
  RunFlags flags;
  add_flags(app, flags);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return usage_error(e.what());
  }

  // Conflicting flags: exit 1 (SPEC §2.5).
  if (flags.prompt && !flags.positional.empty()) {
    return usage_error("give the prompt either with -p/--prompt or as a positional argument, not both.");
  }
  if (flags.yolo && flags.approval_mode && *flags.approval_mode != "yolo") {
    return usage_error("Cannot use both --yolo (-y) and --approval-mode together. Use --approval-mode=yolo instead.");
  }
  std::optional<agent::ApprovalMode> approval =
      flags.yolo ? agent::ApprovalMode::Yolo : agent::parse_approval_mode(flags.approval_mode.value_or("default"));
  if (!approval) {
    return usage_error("--approval-mode must be one of plan, default, auto-edit, yolo (got \"" +
                       *flags.approval_mode + "\").");
  }
  if (flags.no_repair && flags.clamp) return usage_error("--clamp cannot be used with --no-repair.");
  if (flags.continue_session && flags.resume) return usage_error("--continue and --resume cannot be used together.");
  if (flags.max_wall_time < 0) return usage_error("--max-wall-time must not be negative.");
  if (!flags.include_partial_messages) {
    // ok
  } else if (flags.output_format != "stream-json") {
    return usage_error("--include-partial-messages requires --output-format stream-json.");
  }
  const agent::OutputFormat format = *agent::parse_output_format(flags.output_format);

  // The prompt (SPEC §2.1).
  std::optional<std::string> prompt_arg = flags.prompt;
  if (!flags.positional.empty()) {
    std::string joined;
    for (const auto& part : flags.positional) joined += (joined.empty() ? "" : " ") + part;
    prompt_arg = joined;
  }
  Result<std::optional<std::string>> prompt = assemble_prompt(prompt_arg);
  if (!prompt) {
    write_stderr(prompt.error().message + "\n");
    return 1;
  }
  if (!*prompt) {
    write_stderr(std::string(kNoPromptMessage) + "\n");
    return 1;
  }

  const std::string cwd = current_directory();
  const std::string home = home_directory();

  // The schema (SPEC §1.1): every failure exits 52 before any request.
  std::optional<schema::LoadedSchema> loaded;
  if (flags.json_schema) {
    Result<schema::LoadedSchema> schema = schema::load_json_schema(*flags.json_schema, {}, "--json-schema", cwd);
    if (!schema) {
      write_stderr(schema.error().message + "\n");
      return 52;
    }
    for (const auto& warning : schema->warnings) {
      write_stderr("weld: warning: --json-schema " + warning.message +
                   (warning.pointer.empty() ? std::string() : " (at " + warning.pointer + ")") + "\n");
    }
    loaded.emplace(std::move(*schema));
  }

  // Settings and tools (SPEC §2.7).
  agent::ToolPolicy policy;
  policy.approval = *approval;
  policy.bare = flags.bare;
  policy.exclude_flag = split_all(flags.exclude_tools);
  policy.core_tools = split_all(flags.core_tools);
  if (!flags.bare) {
    Result<agent::Settings> settings = agent::load_settings(home, cwd);
    if (!settings) {
      write_stderr(settings.error().message + "\n");
      return 52;
    }
    policy.settings = std::move(*settings);
  }
  agent::ToolSelection selection = agent::select_tools(policy);
  std::vector<const agent::Tool*> tools;
  for (const auto& tool : selection.tools) tools.push_back(tool.get());

  // Session (SPEC §2.8).
  agent::RunOptions options;
  options.session_id = agent::new_session_id();
  if (flags.continue_session || flags.resume) {
    if (home.empty()) {
      write_stderr("Cannot resume a session: HOME is not set.\n");
      return 1;
    }
    std::string id;
    if (flags.resume) {
      id = *flags.resume;
    } else {
      Result<std::string> newest = agent::newest_session_id(home, cwd);
      if (!newest) {
        write_stderr(newest.error().message + "\n");
        return 1;
      }
      id = *newest;
    }
    if (id.empty() || id.find('/') != std::string::npos || id.find("..") != std::string::npos) {
      write_stderr("--resume: \"" + id + "\" is not a session id.\n");
      return 1;
    }
    Result<std::vector<provider::Message>> history = agent::read_session(agent::session_path(home, cwd, id));
    if (!history) {
      write_stderr("No session \"" + id + "\" for " + cwd + ": " + history.error().message + "\n");
      return 1;
    }
    options.history = std::move(*history);
    options.session_id = id;
  }

  // The model (SPEC §4, §5).
  Result<ModelChoice> choice = choose_model(flags.model);
  if (!choice) {
    write_stderr(choice.error().message + "\n");
    return 52;
  }
  if (choice->offline) {
    write_stderr(choice->offline_by_default
                     ? "weld: no model provider configured (no --provider, WELD_PROVIDER, API key or base URL); "
                       "using the built-in offline model, which samples a schema-valid instance and is not a "
                       "language model. See docs/run.md to point weld at a real model.\n"
                     : "weld: using the built-in offline model (samples a schema-valid instance; not a language "
                       "model).\n");
  }

  options.model = choice->model_name;
  options.system_prompt = flags.system_prompt.value_or("");
  options.prompt = **prompt;
  if (loaded) {
    options.schema = &loaded->schema;
    options.schema_source = loaded->source;
  }
  options.offer_structured_output = selection.structured_output_allowed;
  options.max_session_turns = flags.max_session_turns;
  options.max_tool_calls = flags.max_tool_calls;
  options.max_wall_time_seconds = flags.max_wall_time;
  options.max_structured_retries = flags.max_structured_retries;
  if (flags.no_repair) options.repair = {false, false, false};
  options.repair.clamp = flags.clamp;
  options.cwd = cwd;

  // Hooks come from settings, so --bare (which skips settings) has none.
  std::unique_ptr<agent::HookRunner> hooks;
  if (!policy.settings.hooks.empty()) {
    hooks = std::make_unique<agent::HookRunner>(policy.settings.hooks, options.session_id, cwd);
    options.hooks = hooks.get();
  }

  agent::OutputWriter writer(format, flags.include_partial_messages, write_stdout);
  std::unique_ptr<agent::SessionLog> log;
  if (!flags.no_session_persistence && !home.empty()) {
    log = std::make_unique<agent::SessionLog>(agent::session_path(home, cwd, options.session_id));
  }
  std::vector<agent::RunObserver*> observers{&writer};
  if (log) observers.push_back(log.get());

  // Whoever ends the run first (the loop, or the signal deadline) writes the
  // ending; the other stays silent.
  std::atomic<bool> ending_claimed{false};
  provider::CancelToken cancel;
  SignalGuard signals(cancel, [&] {
    if (ending_claimed.exchange(true)) return;
    agent::RunOutcome forced = writer.snapshot();
    forced.subtype = agent::Subtype::ErrorCancelled;
    forced.exit_code = 130;
    forced.error_message = "Operation cancelled.";
    write_stderr("Operation cancelled.\n");
    writer.finish(forced);
    std::_Exit(130);
  });

  agent::RunOutcome outcome = agent::run(*choice->model, tools, options, observers, cancel);
  signals.run_ended();
  if (ending_claimed.exchange(true)) {
    // The signal thread is writing the ending and will exit the process.
    for (;;) ::pause();
  }
  if (log) {
    log->finish(outcome);
    if (!log->error().empty()) write_stderr("weld: warning: session transcript not recorded: " + log->error() + "\n");
  }
  if (outcome.subtype != agent::Subtype::Success) {
    std::string text = outcome.error_message + "\n";
    if (!outcome.error_note.empty()) text += outcome.error_note + "\n";
    write_stderr(text);
  }
  writer.finish(outcome);
  if (std::ferror(stdout) != 0) return outcome.exit_code == 0 ? 1 : outcome.exit_code;
  return outcome.exit_code;
}

}  // namespace weld::cli
