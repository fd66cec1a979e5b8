// `weld [-p PROMPT] [--json-schema SCHEMA] …` — the headless run (docs/run.md).
// Reads flags, loads the schema (docs/schema.md, exit 52 before anything is
// sent), picks the model (docs/run.md, "Pointing weld at a model"), runs
// weld::agent::run, and turns its outcome into output (docs/run.md, "Output
// formats") and an exit code (docs/design.md, "Exit codes").

#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "commands.h"
#include "help_text.h"
#include "suggest.h"
#include "run_log.h"
#include "run_setup.h"
#include "run_support.h"
#include "telemetry_support.h"
#include "usage.h"
#include "weld/agent/mcp.h"
#include "weld/agent/mechanism.h"
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
  RunLimitFlags limits;
  ToolFlags tools;
  bool include_partial_messages = false;
  bool continue_session = false;
  std::optional<std::string> resume;
  bool no_session_persistence = false;
  bool keep_answers = false;
  ModelFlagText model_text;
  std::optional<std::string> price_input;
  std::optional<std::string> price_output;
  std::optional<std::string> price_cache_read;
  std::optional<std::string> price_cache_write;
  std::optional<std::string> telemetry_file;
  RunLogFlags log;
};

void write_stdout(std::string_view text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

// Every line starts with "weld: " (docs/run.md, "Messages").
void write_stderr(std::string_view text) { write_stderr_lines("weld: ", text); }

void add_flags(CLI::App& app, RunFlags& f) {
  app.add_option("-p,--prompt", f.prompt, "The prompt (also: a positional argument, or piped standard input)");
  app.add_option("prompt_text", f.positional, "The prompt, when -p is not used");
  app.add_option("--json-schema,--output-schema", f.json_schema,
                 "JSON Schema the final answer must validate against: inline JSON, @path, or a path");
  add_model_flags(app, f.model, f.model_text);
  app.add_option("-o,--output-format", f.output_format,
                 "text | json | stream-json | result (only the result envelope, as claude -p --output-format json)")
      ->check(CLI::IsMember({"text", "json", "stream-json", "result"}));
  app.add_flag("--include-partial-messages", f.include_partial_messages,
               "stream-json: add stream_event lines with the provider's deltas, and partial_result lines with the "
               "structured answer so far");
  add_run_limit_flags(app, f.limits);
  add_tool_flags(app, f.tools);
  app.add_flag("-c,--continue", f.continue_session, "Resume the newest session of this directory");
  app.add_option("-r,--resume", f.resume, "Resume the session with this id");
  app.add_flag("--no-session-persistence", f.no_session_persistence, "Do not record this run's transcript");
  app.add_flag("--keep-answers", f.keep_answers,
               "Keep the answers in the session transcript (mode 0600), so --continue/--resume give the model what it "
               "answered (default: redacted; also settings \"keepAnswers\")");
  app.add_option("--price-input", f.price_input,
                 "USD per million input tokens: the envelope then has total_cost_usd (with --price-output)")
      ->type_name("USD");
  app.add_option("--price-output", f.price_output, "USD per million output tokens (with --price-input)")
      ->type_name("USD");
  app.add_option("--price-cache-read", f.price_cache_read, "USD per million cache-read input tokens")
      ->type_name("USD");
  app.add_option("--price-cache-write", f.price_cache_write, "USD per million cache-write input tokens")
      ->type_name("USD");
  add_telemetry_file_flag(app, f.telemetry_file);
  app.add_flag("--verbose", f.log.verbose,
               "One stderr line per step: requests, statuses, resends and why, turns, failed validations, repairs");
  app.add_flag("--debug", f.log.debug,
               "Log each request and response on stderr (credentials redacted, bodies cut to 4 KiB)");
  app.add_option("--debug-file", f.log.debug_file, "Append the --debug log to FILE (mode 0600) instead of stderr")
      ->type_name("FILE");
}

// "--price-input 0.15": a finite number >= 0. nullopt with `error` set
// otherwise.
std::optional<double> parse_price(const std::string& flag, const std::string& text, std::string& error) {
  char* end = nullptr;
  double price = std::strtod(text.c_str(), &end);
  if (text.empty() || end == text.c_str() || *end != '\0' || !std::isfinite(price) || price < 0) {
    error = flag + " must be a price in USD per million tokens, a number of at least 0 (got \"" + text + "\").";
    return std::nullopt;
  }
  return price;
}

// The --price-* flags: nullopt when none is given; an error when only one
// of --price-input/--price-output is, or a value is not a price.
Result<std::optional<agent::Prices>> parse_prices(const RunFlags& f) {
  if (!f.price_input && !f.price_output) {
    if (f.price_cache_read || f.price_cache_write)
      return Error{ErrorCode::Usage, "--price-cache-read and --price-cache-write need --price-input and --price-output.", ""};
    return std::optional<agent::Prices>();
  }
  if (!f.price_input || !f.price_output)
    return Error{ErrorCode::Usage, "--price-input and --price-output go together (USD per million tokens).", ""};
  std::string error;
  agent::Prices prices;
  std::optional<double> input = parse_price("--price-input", *f.price_input, error);
  if (!input) return Error{ErrorCode::Usage, error, ""};
  std::optional<double> output = parse_price("--price-output", *f.price_output, error);
  if (!output) return Error{ErrorCode::Usage, error, ""};
  prices.input = *input;
  prices.output = *output;
  if (f.price_cache_read) {
    prices.cache_read = parse_price("--price-cache-read", *f.price_cache_read, error);
    if (!prices.cache_read) return Error{ErrorCode::Usage, error, ""};
  }
  if (f.price_cache_write) {
    prices.cache_write = parse_price("--price-cache-write", *f.price_cache_write, error);
    if (!prices.cache_write) return Error{ErrorCode::Usage, error, ""};
  }
  return std::optional<agent::Prices>(prices);
}

// The keys a --debug log must never show, wherever they were set.
std::vector<std::string> secrets_from_environment() {
  std::vector<std::string> secrets;
  for (const char* name : {"WELD_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"}) {
    const char* value = std::getenv(name);
    if (value != nullptr && value[0] != '\0') secrets.emplace_back(value);
  }
  return secrets;
}

// The flags' combinations and values, checked before anything else
// (usage errors: exit 1, docs/design.md "Exit codes").
struct CheckedFlags {
  agent::ApprovalMode approval = agent::ApprovalMode::Default;
  agent::RunOptions options;  ///< the limits, so far
  std::optional<agent::Mechanism> mechanism;
  std::optional<agent::Prices> prices;
};

Result<CheckedFlags> check_flags(RunFlags& flags) {
  auto usage = [](std::string message) { return Error{ErrorCode::Usage, std::move(message), ""}; };
  CheckedFlags out;
  if (flags.prompt && !flags.positional.empty())
    return usage("give the prompt either with -p/--prompt or as a positional argument, not both.");
  Result<agent::ApprovalMode> approval = approval_from_flags(flags.tools);
  if (!approval) return approval.error();
  out.approval = *approval;
  if (flags.continue_session && flags.resume) return usage("--continue and --resume cannot be used together.");
  if (auto error = apply_run_limit_flags(flags.limits, out.options)) return usage(*error);
  if (flags.include_partial_messages && flags.output_format != "stream-json")
    return usage("--include-partial-messages requires --output-format stream-json.");
  if (auto error = check_model_flags(flags.model_text, flags.model, out.mechanism)) return usage(*error);
  Result<std::optional<agent::Prices>> prices = parse_prices(flags);
  if (!prices) return prices.error();
  out.prices = *prices;
  return out;
}

// -c/--continue or -r/--resume (docs/run.md, "Sessions and privacy"): the
// session's history goes into `options`; an exit code when it cannot.
std::optional<int> resume_session(const RunFlags& flags, const std::string& home, const std::string& cwd,
                                  EarlyEnding& early, agent::RunOptions& options) {
  if (home.empty()) return early.fail(1, "Cannot resume a session: HOME is not set (or not a directory).");
  std::string id;
  if (flags.resume) {
    id = *flags.resume;
  } else {
    Result<std::string> newest = agent::newest_session_id(home, cwd);
    if (!newest) return early.fail(1, newest.error().message);
    id = *newest;
  }
  if (id.empty() || id.find('/') != std::string::npos || id.find("..") != std::string::npos) {
    return early.fail(1, "--resume: \"" + id + "\" is not a session id.");
  }
  Result<std::vector<provider::Message>> history = agent::read_session(agent::session_path(home, cwd, id));
  if (!history) return early.fail(1, "No session \"" + id + "\" for " + cwd + ": " + history.error().message);
  // The model sees a placeholder where its answers were redacted: say so,
  // and how to give it what it answered (docs/run.md, "Sessions and
  // privacy").
  if (std::size_t redacted = agent::redacted_answers(*history); redacted > 0) {
    write_stderr("weld: note: session " + id + " holds " + std::to_string(redacted) + " redacted answer" +
                 (redacted == 1 ? "" : "s") +
                 ": the model sees a placeholder, not what it answered. To refine an answer, pass it in the "
                 "prompt, or record sessions with --keep-answers (settings \"keepAnswers\").\n");
  }
  options.history = std::move(*history);
  options.session_id = id;
  early.set_session_id(id);
  return std::nullopt;
}

// The settings' MCP servers (docs/run.md, "MCP servers"), their tools added
// to `tools` as the policy allows. A server that fails is left out.
void start_mcp_servers(const agent::ToolPolicy& policy, const std::string& cwd, provider::CancelToken& cancel,
                       agent::McpServers& mcp, std::vector<const agent::Tool*>& tools, agent::RunOptions& options) {
  std::vector<std::string> taken;
  for (const agent::Tool* tool : tools) taken.push_back(tool->name());
  mcp.start(policy.settings.mcp_servers, cwd, taken, &cancel);
  // A signal during start-up ends the run with its own message only.
  if (!cancel.cancelled.load()) {
    for (const auto& warning : mcp.warnings()) write_stderr(warning + "\n");
  }
  mcp.filter_tools([&](const agent::Tool& tool) {
    if (policy.approval == agent::ApprovalMode::Plan && tool.has_side_effects()) return false;
    return agent::tool_allowed_by_rules(policy, tool.name());
  });
  for (const agent::Tool* tool : mcp.tools()) tools.push_back(tool);
  options.mcp_servers = mcp.status();
}

// agent::run; an exception (not expected: library code returns errors) is
// an ending all the same.
agent::RunOutcome run_guarded(provider::Model& model, const std::vector<const agent::Tool*>& tools,
                              const agent::RunOptions& options, const std::vector<agent::RunObserver*>& observers,
                              provider::CancelToken& cancel) {
  try {
    return agent::run(model, tools, options, observers, cancel);
  } catch (const std::exception& e) {
    agent::RunOutcome outcome;
    outcome.subtype = agent::Subtype::ErrorDuringExecution;
    outcome.exit_code = 1;
    outcome.error_message = std::string("weld: internal error: ") + e.what();
    outcome.session_id = options.session_id;
    return outcome;
  }
}

// -p/--prompt, or the positional words joined by spaces.
std::optional<std::string> prompt_argument(const RunFlags& flags) {
  if (flags.positional.empty()) return flags.prompt;
  std::string joined;
  for (const auto& part : flags.positional) joined += (joined.empty() ? "" : " ") + part;
  return joined;
}

// The session transcript (docs/run.md, "Sessions and privacy"): none with
// --no-session-persistence or without a usable HOME (said when HOME is set).
std::unique_ptr<agent::SessionLog> open_session_log(const RunFlags& flags, const std::string& home,
                                                    const std::string& cwd, const agent::ToolPolicy& policy,
                                                    const std::string& session_id) {
  if (flags.no_session_persistence) return nullptr;
  if (home.empty()) {
    const char* set = std::getenv("HOME");
    if (set != nullptr && set[0] != '\0') {
      write_stderr(std::string("weld: warning: HOME (\"") + set + "\") is not a directory; the session is not recorded.\n");
    }
    return nullptr;
  }
  const bool keep = flags.keep_answers || policy.settings.keep_answers.value_or(false);
  return std::make_unique<agent::SessionLog>(agent::session_path(home, cwd, session_id),
                                             keep ? agent::Answers::Kept : agent::Answers::Redacted);
}

// After the run, before the output's last line: the transcript and the
// --verbose log end, and stderr says what went wrong or was left out.
void report_outcome(agent::RunOutcome& outcome, agent::SessionLog* log, RunLog& run_log,
                    const std::optional<agent::Prices>& prices) {
  if (log) {
    log->finish(outcome);
    if (!log->error().empty()) write_stderr("weld: warning: session transcript not recorded: " + log->error() + "\n");
  }
  run_log.finish(outcome);
  for (const auto& warning : outcome.warnings) write_stderr("weld: warning: " + warning + "\n");
  if (prices && !agent::cost_usd(outcome.usage, *prices)) {
    write_stderr("weld: warning: total_cost_usd left out: the usage has cached input tokens and no "
                 "--price-cache-read/--price-cache-write price for them.\n");
  }
  if (outcome.subtype != agent::Subtype::Success) {
    // The envelope says what stderr says, "weld: " included.
    outcome.error_message = with_prefix("weld: ", outcome.error_message);
    std::string text = outcome.error_message + "\n";
    if (!outcome.error_note.empty()) text += outcome.error_note + "\n";
    write_stderr(text);
  }
}

int run_command(int argc, char** argv, EarlyEnding& early) {
  CLI::App app{"weld: a headless agent run that ends on the first schema-valid answer", "weld"};
  RunFlags flags;
  add_flags(app, flags);
  app.footer(kMainHelpFooter);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return early.usage_error(parse_error_text(app, e));
  }
  const agent::OutputFormat format = *agent::parse_output_format(flags.output_format);
  early.set_format(format);

  Result<CheckedFlags> checked = check_flags(flags);
  if (!checked) return early.usage_error(checked.error().message);
  agent::RunOptions& options = checked->options;

  // Signals (exit 130, docs/run.md "Limits"): handled from here on, reading a piped
  // stdin included, whatever disposition weld inherited. Whoever ends the
  // run first (this thread, or the signal deadline) writes the ending; the
  // other stays silent. Before the loop runs, a signal's ending is the early
  // one (error_cancelled); once it runs, the writer's snapshot. MCP servers
  // die with the run either way.
  agent::McpServers mcp;
  std::atomic<bool> ending_claimed{false};
  std::atomic<agent::OutputWriter*> running_writer{nullptr};
  provider::CancelToken cancel;
  SignalGuard signals(cancel, [&] {
    if (ending_claimed.exchange(true)) return;
    mcp.stop_all();
    agent::OutputWriter* writer = running_writer.load();
    if (writer == nullptr) {
      early.write(130, "Operation cancelled.", agent::Subtype::ErrorCancelled);
      std::_Exit(130);
    }
    agent::RunOutcome forced = writer->snapshot();
    forced.subtype = agent::Subtype::ErrorCancelled;
    forced.exit_code = 130;
    forced.error_message = "weld: Operation cancelled.";
    write_stderr("Operation cancelled.\n");
    writer->finish(forced);
    std::_Exit(130);
  });
  early.set_ending_claim(&ending_claimed);
  struct ClaimScope {  // `ending_claimed` dies with this function; `early` outlives it
    EarlyEnding& early;
    ~ClaimScope() { early.set_ending_claim(nullptr); }
  } claim_scope{early};

  // The prompt (docs/run.md, "The prompt").
  Result<std::optional<std::string>> prompt = assemble_prompt(prompt_argument(flags));
  // A signal while stdin was read: the partial input is never sent.
  if (cancel.cancelled.load()) return early.fail(130, "Operation cancelled.", agent::Subtype::ErrorCancelled);
  if (!prompt) return early.fail(1, prompt.error().message);
  if (!*prompt) return early.fail(1, kNoPromptMessage);

  // The schema (docs/schema.md), settings, tools and mechanism: every
  // failure exits 52 before any request.
  RunSetup setup(write_stderr);
  const std::string& cwd = setup.cwd();
  const std::string& home = setup.home();
  if (SetupStep failed = setup.load_schema(flags.json_schema, flags.limits.no_strict))
    return early.fail(failed->code, failed->message);
  if (SetupStep failed = setup.load_tools(flags.tools, checked->approval)) return early.fail(failed->code, failed->message);
  if (SetupStep failed = setup.choose_mechanism(checked->mechanism)) return early.fail(failed->code, failed->message);
  const agent::ToolPolicy& policy = setup.policy();
  std::vector<const agent::Tool*> tools;
  for (const auto& tool : setup.selection().tools) tools.push_back(tool.get());

  // Session (docs/run.md, "Sessions and privacy").
  options.session_id = early.session_id();
  if (flags.continue_session || flags.resume) {
    if (std::optional<int> ended = resume_session(flags, home, cwd, early, options)) return *ended;
  }

  // --verbose / --debug: the log wraps the model's transport.
  Result<std::unique_ptr<RunLog>> run_log = RunLog::open(flags.log, secrets_from_environment());
  if (!run_log) return early.fail(1, run_log.error().message);
  provider::ModelHooks log_hooks;
  log_hooks.wrap_transport = [log = run_log->get()](std::unique_ptr<provider::Transport> inner) {
    return log->wrap(std::move(inner));
  };

  // The model (docs/run.md, "Pointing weld at a model").
  Result<ModelChoice> choice = choose_model(flags.model, log_hooks);
  if (!choice) return early.fail(agent::model_choice_exit_code(choice.error()), choice.error().message);
  setup.report_model(*choice);

  setup.fill_options(*choice, options);
  options.system_prompt = flags.tools.joined_system_prompt();
  options.prompt = **prompt;
  options.partial_results = flags.include_partial_messages;  // only with stream-json (checked above)

  // Hooks come from settings, so --bare (which skips settings) has none.
  std::unique_ptr<agent::HookRunner> hooks;
  if (!policy.settings.hooks.empty()) {
    hooks = std::make_unique<agent::HookRunner>(policy.settings.hooks, options.session_id, cwd, choice->network);
    options.hooks = hooks.get();
  }

  agent::OutputWriter writer(format, flags.include_partial_messages, write_stdout);
  if (checked->prices) writer.set_prices(*checked->prices);
  std::unique_ptr<agent::SessionLog> log = open_session_log(flags, home, cwd, policy, options.session_id);
  if (options.mechanism == agent::Mechanism::Auto) (*run_log)->note_mechanism_choice();
  std::vector<agent::RunObserver*> observers{&writer, run_log->get()};
  if (log) observers.push_back(log.get());

  running_writer = &writer;

  // Telemetry (docs/telemetry.md): after the SignalGuard, which must see no other thread.
  // Most runs end within the first export's schedule: their spans go at
  // exit, with no background thread started for them.
  options.telemetry = setup.start_telemetry(flags.telemetry_file, telemetry::Config::Sender::WhenNeeded);
  options.trace_parent = traceparent_from_environment();

  // MCP servers (docs/run.md, "MCP servers"): started after every configuration check, so an
  // early ending never leaves one behind. A server that fails is left out.
  if (!policy.settings.mcp_servers.empty()) start_mcp_servers(policy, cwd, cancel, mcp, tools, options);

  agent::RunOutcome outcome = run_guarded(*choice->model, tools, options, observers, cancel);
  // Every span of the run has ended: the background sender stops now (its
  // thread ends while the run does); finish_telemetry sends the rest.
  setup.end_telemetry_spans();
  signals.run_ended();
  if (ending_claimed.exchange(true)) {
    // The signal thread is writing the ending and will exit the process.
    for (;;) ::pause();
  }
  mcp.stop_all();
  report_outcome(outcome, log.get(), **run_log, checked->prices);
  writer.finish(outcome);
  // After the output: a reader of stdout has the answer before the final export.
  setup.finish_telemetry();
  if (std::ferror(stdout) != 0) return outcome.exit_code == 0 ? 1 : outcome.exit_code;
  return outcome.exit_code;
}

}  // namespace

int run_main(int argc, char** argv) {
  // A closed stdout must end in a write error, not a silent SIGPIPE death.
  ::signal(SIGPIPE, SIG_IGN);
  // docs/run.md, "Output formats": in the JSON modes even the endings before the run leave an
  // envelope (the format is sniffed from argv until CLI11 has parsed it).
  EarlyEnding early(sniff_output_format(argc, argv).value_or(agent::OutputFormat::Text), agent::new_session_id());
  try {
    return run_command(argc, argv, early);
  } catch (const std::exception& e) {
    return early.fail(1, std::string("weld: internal error: ") + e.what());
  }
}

}  // namespace weld::cli
