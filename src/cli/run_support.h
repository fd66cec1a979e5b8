#pragma once
// Helpers of the headless run command (run_command.cc): the prompt, the
// model, and signal handling. Each lives in its own run_*.cc file.

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "weld/agent/mechanism.h"
#include "weld/agent/model_choice.h"
#include "weld/agent/output.h"
#include "weld/agent/run_loop.h"
#include "weld/agent/settings.h"
#include "weld/base/result.h"
#include "weld/provider/http.h"
#include "weld/provider/config.h"
#include "weld/provider/model.h"

namespace CLI {
class App;
}

namespace weld::cli {

/// The message when there is no prompt at all (docs/run.md, "The prompt"), as the
/// agent CLIs weld stands in for word it.
inline constexpr const char* kNoPromptMessage =
    "No input provided via stdin. Input can be provided by piping data into weld or using the --prompt option.";

/// The prompt from -p/positional text and standard input (read only when it
/// is not a terminal). Both: piped text, a blank line, then the prompt.
/// nullopt when there is none. An Error when stdin cannot be read.
Result<std::optional<std::string>> assemble_prompt(const std::optional<std::string>& prompt_arg);

/// Provider-related flags of a run (the library's ModelRequest).
using ModelFlags = agent::ModelRequest;

/// The library's messages, as the run and `weld batch` show them: the
/// settings named by their flags ("pass --model NAME").
inline constexpr SettingNames kFlagNames{.provider = "--provider",
                                         .model = "--model",
                                         .base_url = "--base-url",
                                         .max_session_turns = "--max-session-turns",
                                         .max_structured_retries = "--max-structured-retries",
                                         .max_tool_calls = "--max-tool-calls",
                                         .max_wall_time = "--max-wall-time",
                                         .mechanism = "--mechanism",
                                         .connect_timeout = "--connect-timeout",
                                         .idle_timeout = "--idle-timeout",
                                         .max_retries = "--max-retries",
                                         .max_response_bytes = "--max-response-bytes",
                                         .json_schema = "--json-schema",
                                         .exclude_tools = "--exclude-tools",
                                         .core_tools = "--core-tools",
                                         .settings = "--settings",
                                         .mcp_config = "--mcp-config",
                                         .output = "-o",
                                         .output_format = "--output-format",
                                         .id_field = "--id-field",
                                         .assign = " "};

/// The model flags as typed, checked by `check_model_flags` (CLI11 would
/// print its own message for a bad number; weld's names the flag and its range).
struct ModelFlagText {
  std::optional<std::string> connect_timeout;
  std::optional<std::string> idle_timeout;
  std::optional<std::string> max_retries;
  std::optional<std::string> mechanism;
  std::optional<std::string> max_response_bytes;
};

/// Adds --provider, -m/--model, --base-url, --seed, --connect-timeout,
/// --idle-timeout, --max-retries, --max-response-bytes and --mechanism (shared by the run and
/// `weld batch`).
void add_model_flags(CLI::App& app, ModelFlags& flags, ModelFlagText& text);

/// Checks the typed values into `flags` (and `mechanism`, when given), and
/// names the settings by their flags (kFlagNames) in what the library says;
/// nullopt, or the usage error's message.
std::optional<std::string> check_model_flags(const ModelFlagText& text, ModelFlags& flags,
                                             std::optional<agent::Mechanism>& mechanism);

/// The limits, repair and schema flags of a run (docs/run.md, docs/design.md "Repairs"), shared
/// by the run and every row of `weld batch`.
struct RunLimitFlags {
  int max_session_turns = -1;
  int max_tool_calls = -1;
  double max_wall_time = 0;
  int max_structured_retries = 5;
  bool no_repair = false;
  bool clamp = false;
  /// --no-strict: compile --json-schema without the strict rules.
  bool no_strict = false;
  /// --max-tokens and --temperature as typed (checked by
  /// apply_run_limit_flags).
  std::optional<std::string> max_tokens;
  std::optional<std::string> temperature;
};

/// Adds --max-session-turns, --max-tool-calls, --max-wall-time,
/// --max-structured-retries, --no-repair, --clamp, --no-strict, --max-tokens
/// and --temperature.
void add_run_limit_flags(CLI::App& app, RunLimitFlags& flags, bool per_row = false);

/// Checks the combination (nullopt, or the usage error's message) and
/// copies the limits into `options`.
std::optional<std::string> apply_run_limit_flags(const RunLimitFlags& flags, agent::RunOptions& options);

/// The mechanism (docs/run.md, "Mechanisms"): the flag, else WELD_MECHANISM, else settings;
/// default tool. A bad WELD_MECHANISM is a configuration error (exit 52).
Result<agent::Mechanism> choose_mechanism(const std::optional<agent::Mechanism>& flag, const agent::Settings& settings);

/// The `--output-format` that argv asks for, found without CLI11 so that an
/// argv CLI11 rejects still gets its error envelope in the JSON modes.
/// nullopt when none (or no valid one) is given.
std::optional<agent::OutputFormat> sniff_output_format(int argc, char** argv);

/// Ends a run before its loop starts (bad flags, no prompt, schema or
/// configuration errors): the message on stderr and, in the JSON modes, one
/// error envelope (subtype error_during_execution, `error.message` equal to
/// the stderr text without its final newline) on stdout — a one-element
/// array in `json`, one line in `stream-json` (docs/run.md, "Output formats").
class EarlyEnding {
 public:
  EarlyEnding(agent::OutputFormat format, std::string session_id);
  /// Once the flags are parsed, the format they name.
  void set_format(agent::OutputFormat format) { format_ = format; }
  void set_session_id(std::string id) { session_id_ = std::move(id); }
  const std::string& session_id() const { return session_id_; }
  /// Writes the ending (once the run has a signal guard: after claiming
  /// the ending — when the signal thread has it, waits for it to exit);
  /// returns `exit_code`.
  int fail(int exit_code, std::string message,
           agent::Subtype subtype = agent::Subtype::ErrorDuringExecution) const;
  /// Writes the ending without claiming it (the signal thread's path).
  void write(int exit_code, std::string message, agent::Subtype subtype) const;
  /// The flag whoever ends the run first sets (see SignalGuard).
  void set_ending_claim(std::atomic<bool>* claim) { claim_ = claim; }
  /// "weld: <message>" plus the --help hint; exit 1.
  int usage_error(const std::string& message) const;

 private:
  agent::OutputFormat format_;
  std::string session_id_;
  std::chrono::steady_clock::time_point started_;
  std::atomic<bool>* claim_ = nullptr;
};

using agent::ModelChoice;
using agent::offline_notice;

/// agent::choose_model with the process environment and the offline model
/// (`hooks`: e.g. a transport wrapper). Errors: agent::model_choice_exit_code.
Result<ModelChoice> choose_model(const ModelFlags& flags, const provider::ModelHooks& hooks = {});

/// Turns SIGINT/SIGTERM into cancellation (exit 130 within a second,
/// docs/run.md "Limits"). Construct before any other thread starts: it blocks the signals
/// in the calling thread (threads created later inherit that) and waits for
/// them on a dedicated thread. On a signal it sets `cancel`, then gives the
/// run `grace` to end by itself; if it has not, it calls `force_end` (which
/// must write the ending and not return, e.g. by `_exit(130)`).
class SignalGuard {
 public:
  SignalGuard(provider::CancelToken& cancel, std::function<void()> force_end,
              std::chrono::milliseconds grace = std::chrono::milliseconds(700));
  ~SignalGuard();
  SignalGuard(const SignalGuard&) = delete;
  SignalGuard& operator=(const SignalGuard&) = delete;

  /// Tells the guard the run has ended (no forced ending after this).
  void run_ended();
  /// True once SIGINT or SIGTERM arrived.
  bool signalled() const { return signalled_.load(); }

 private:
  void wait_for_signals();

  provider::CancelToken& cancel_;
  std::function<void()> force_end_;
  std::chrono::milliseconds grace_;
  std::atomic<bool> signalled_{false};
  std::mutex mutex_;
  std::condition_variable cv_;
  bool ended_ = false;
  std::thread thread_;
};

}  // namespace weld::cli
