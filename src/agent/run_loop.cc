// The turn loop of a headless run (docs/run.md, "What the model sees, and how
// the run ends"): pre-scan for structured_output, synthesised results for
// suppressed siblings, validation with repair, retry budget, limits.

#include "weld/agent/run_loop.h"
#include "weld/agent/subprocess.h"

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>
#include <utility>

#include "weld/agent/partial_result.h"
#include "weld/json/parse.h"
#include "weld/json/serialize.h"
#include "weld/json/utf8.h"
#include "weld/provider/openai.h"
#include "run_trace.h"

namespace weld::agent {
namespace {

using Clock = std::chrono::steady_clock;

std::int64_t ms_since(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
}

// Sets `cancel` (and `hit`) when the wall-time budget runs out, so that a
// request in flight is interrupted too, not only checked between steps.
class WallClockGuard {
 public:
  // `watch`: start the thread that sets `cancel` at the deadline (else the
  // caller does, RunOptions::wall_time_thread).
  WallClockGuard(double seconds, provider::CancelToken& cancel, bool watch) {
    if (seconds <= 0) return;
    limited_ = true;
    deadline_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    if (!watch) return;
    thread_ = std::thread([this, &cancel] {
      std::unique_lock lock(mutex_);
      if (!cv_.wait_until(lock, deadline_, [this] { return done_; })) {
        hit_ = true;
        cancel.cancelled = true;
      }
    });
  }
  ~WallClockGuard() {
    if (!thread_.joinable()) return;
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  WallClockGuard(const WallClockGuard&) = delete;
  WallClockGuard& operator=(const WallClockGuard&) = delete;

  /// True once the budget is spent (checked between steps too).
  bool exceeded() const {
    if (!limited_) return false;
    return hit_.load() || Clock::now() >= deadline_;
  }

 private:
  bool limited_ = false;
  Clock::time_point deadline_{};
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  std::atomic<bool> hit_{false};
};

// Cuts `text` to at most `limit` bytes on a UTF-8 boundary, saying so.
std::string bound_output(std::string text, std::size_t limit) {
  if (text.size() <= limit) return text;
  std::size_t total = text.size();
  std::size_t cut = limit;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  text.resize(cut);
  text += "\n[output truncated: " + std::to_string(total) + " bytes in total, first " + std::to_string(cut) +
          " shown]";
  return text;
}

// Arguments as a JSON value for the envelope: parsed, {} when blank, else the raw text.
json::Value arguments_json(std::string_view text) {
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) return json::Object{};
  Result<json::Value> parsed = json::parse(text);
  return parsed ? std::move(*parsed) : json::Value(std::string(text));
}

std::string format_seconds(double seconds) {
  std::string s = json::serialize(json::Value(seconds));
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
  return s;
}

}  // namespace

std::string_view subtype_name(Subtype subtype) {
  switch (subtype) {
    case Subtype::Success: return "success";
    case Subtype::ErrorPlainText: return "error_plain_text";
    case Subtype::ErrorMaxTurns: return "error_max_turns";
    case Subtype::ErrorMaxStructuredOutputRetries: return "error_max_structured_output_retries";
    case Subtype::ErrorBudget: return "error_budget";
    case Subtype::ErrorApi: return "error_api";
    case Subtype::ErrorCancelled: return "error_cancelled";
    case Subtype::ErrorDuringExecution: return "error_during_execution";
  }
  return "error_during_execution";
}

std::string max_turns_schema_note(const SettingNames& names) {
  std::string note = "Note: " + std::string(names.json_schema) +
                     " is active. If the model never called structured_output, verify ";
  if (!names.exclude_tools.empty()) note += "it isn't denied by permissions.deny / " + std::string(names.exclude_tools) + " and ";
  return note + "that the schema is satisfiable.";
}

std::string plain_text_message(int turns, std::string_view model_text, const SettingNames& names) {
  std::string message = "Model produced plain text instead of calling the structured_output tool as required by " +
                        std::string(names.json_schema) + " after " + std::to_string(turns) + " turn(s).";
  if (model_text.empty()) return message;
  // The plain-text message quotes the first 200 characters across all turns, '+' when there
  // were 200 or more.
  constexpr std::size_t kPreview = 200;
  std::size_t total = json::count_code_points(model_text);
  std::string_view preview = json::utf8_prefix(model_text, kPreview);
  std::size_t shown = total < kPreview ? total : kPreview;
  message += " Output preview (" + std::to_string(shown) + (total >= kPreview ? "+" : "") +
             " chars): " + json::quote(preview) + ".";
  return message;
}

namespace {

// One run, in named stages: choose the mechanism, describe the
// tools, announce the start, then turns until one of them ends the run. A
// stage returns the outcome when the run ends there, nullopt to go on.
class RunLoop {
 public:
  using Step = std::optional<RunOutcome>;

  RunLoop(provider::Model& model, const std::vector<const Tool*>& tools, const RunOptions& options,
          const std::vector<RunObserver*>& observers, provider::CancelToken& cancel)
      : model_(model),
        tools_(tools),
        options_(options),
        observers_(observers),
        cancel_(cancel),
        started_(Clock::now()),
        wall_(options.max_wall_time_seconds, cancel, options.wall_time_thread),
        schema_active_(options.schema != nullptr),
        contract_(schema_active_ && options.offer_structured_output),
        trace_(options, model.provider_name()),
        native_repair_(options.repair) {
    out_.session_id = options.session_id;
  }

  RunOutcome run() {
    if (Step ended = choose_mechanism()) return std::move(*ended);
    describe_tools();
    announce_start();
    follow_stream();
    for (;;) {
      if (Step ended = turn()) return std::move(*ended);
    }
  }

 private:
  RunOutcome finish(Subtype subtype, ExitCode exit_code, std::string message) {
    out_.subtype = subtype;
    out_.exit_code = exit_code;
    out_.error_message = std::move(message);
    out_.duration_ms = ms_since(started_);
    trace_.finish(out_);
    return std::move(out_);
  }

  RunOutcome cancelled_or_budget() {
    if (wall_.exceeded()) {
      return finish(Subtype::ErrorBudget, ExitCode::Limits,
                    "Exceeded " + std::string(options_.names.max_wall_time) + " (" + format_seconds(options_.max_wall_time_seconds) + " s).");
    }
    return finish(Subtype::ErrorCancelled, ExitCode::Cancelled, "Operation cancelled.");
  }

  bool interrupted() const { return cancel_.cancelled.load() || wall_.exceeded(); }

  // A failed model request ends the run: 41 for auth, 75 when the same
  // command may well succeed later (docs/design.md, "Exit codes"), else 1.
  RunOutcome request_failed(const Error& error, const std::string& message) {
    if (cancel_.cancelled.load() || error.code == ErrorCode::Cancelled) return cancelled_or_budget();
    out_.api_error_status = error.http_status;
    if (error.code == ErrorCode::Auth) return finish(Subtype::ErrorApi, ExitCode::Auth, message);
    return finish(Subtype::ErrorApi, error.temporary ? ExitCode::Temporary : ExitCode::Failure, message);
  }

  // The mechanism (docs/run.md, "Mechanisms"). `auto` asks the cache, else probes once.
  Step choose_mechanism() {
    mechanism_ = options_.mechanism;
    if (contract_ && mechanism_ == Mechanism::Auto) {
      const std::int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count();
      std::optional<bool> cached;
      if (!options_.mechanism_cache_path.empty())
        cached = read_mechanism_cache(options_.mechanism_cache_path, options_.mechanism_cache_key, now);
      if (cached) {
        mechanism_ = *cached ? Mechanism::Native : Mechanism::Tool;
      } else {
        const Clock::time_point api_started = Clock::now();
        trace_.request_started(0, true);
        Result<provider::Response> probe = model_.complete(native_probe_request(options_.model), {}, cancel_);
        trace_.request_ended(probe);
        out_.duration_api_ms += ms_since(api_started);
        // One verdict with the proxy (provider/native_probe.h): a server
        // that refuses the field for good does not enforce it; a probe that
        // said nothing (network, credentials, 408/429/5xx after the retries)
        // ends the run as any failed request does, and nothing is remembered.
        const provider::ProbeVerdict verdict = provider::judge_probe(probe);
        if (!probe && (verdict == provider::ProbeVerdict::Unknown || cancel_.cancelled.load())) {
          const Error& error = probe.error();
          return request_failed(error, options_.names.with_value(options_.names.mechanism, "auto") +
                                               ": the probe request failed: " + error.message);
        }
        if (probe) out_.usage += probe->usage;
        const bool native = verdict == provider::ProbeVerdict::Native;
        mechanism_ = native ? Mechanism::Native : Mechanism::Tool;
        if (!options_.mechanism_cache_path.empty()) {
          Status written =
              write_mechanism_cache(options_.mechanism_cache_path, options_.mechanism_cache_key, native, now);
          if (!written)
            out_.warnings.push_back(options_.names.with_value(options_.names.mechanism, "auto") +
                                    ": probe result not remembered: " + written.error().message);
        }
      }
    }
    if (mechanism_ == Mechanism::Auto) mechanism_ = Mechanism::Tool;
    native_ = contract_ && mechanism_ == Mechanism::Native;
    offer_so_ = contract_ && !native_;
    if (schema_active_) out_.mechanism = std::string(mechanism_name(mechanism_));
    return std::nullopt;
  }

  // The request's tool list: built-in (and MCP) tools, then
  // structured_output; for native, the response format.
  void describe_tools() {
    for (const Tool* tool : tools_) {
      if (tool->name() == kStructuredOutputTool) continue;  // the synthetic tool keeps its name (docs/run.md, "MCP servers")
      specs_.push_back(tool->spec());
      by_name_.emplace(tool->name(), tool);
    }
    if (offer_so_) {
      specs_.push_back({std::string(kStructuredOutputTool), std::string(kStructuredOutputDescription),
                        options_.schema_source});
    }
    if (!native_) return;
    provider::ResponseFormat format;
    format.schema = options_.schema_source;
    // The schema lowered for the provider's own structured output (docs/run.md, Mechanisms;
    // weld/schema/lower.h; the proxy lowers the same way): OpenAI (Chat and
    // Responses) openai-strict with `strict: true`, Anthropic its own
    // subset. The init message lists what the lowering changed, and the
    // answer is mapped back to the original's shape before validation.
    std::optional<schema::Target> target;
    if (const std::optional<provider::Protocol> wire = model_.protocol()) {
      if (*wire == provider::Protocol::OpenAiChat || *wire == provider::Protocol::OpenAiResponses)
        target = schema::Target::OpenAIStrict;
      if (*wire == provider::Protocol::AnthropicMessages) target = schema::Target::Anthropic;
    }
    if (target) {
      lowering_.emplace(schema::Lowering::lower(options_.schema_source, *target));
      format.schema = lowering_->schema();
      relaxed_ = lowering_->changes();
      native_repair_.lowering = &*lowering_;
    }
    format.strict = true;
    response_format_ = std::move(format);
  }

  void announce_start() {
    RunStart start{options_.session_id, options_.model, model_.provider_name(), options_.cwd, {}, schema_active_,
                   out_.mechanism, options_.mcp_servers, std::move(relaxed_)};
    for (const auto& spec : specs_) start.tools.push_back(spec.name);
    for (RunObserver* obs : observers_) obs->on_start(start);

    messages_ = options_.history;
    provider::Message prompt;
    prompt.role = provider::Role::User;
    prompt.text = options_.prompt;
    messages_.push_back(prompt);
    for (RunObserver* obs : observers_) obs->on_prompt(prompt);
  }

  // What the run watches while an answer streams: time to first token (the
  // envelope's `ttft_ms`, from sending the run's first request to the first
  // event streamed back), the observers' stream events, and partial
  // structured answers (docs/run.md, "Partial results"): the structured_output arguments, or the
  // native answer's text; a new call (or turn) starts a new attempt.
  void follow_stream() {
    stream_.on_event = [this](const json::Value& event) {
      if (first_request_sent_ && !out_.ttft_ms) out_.ttft_ms = ms_since(*first_request_sent_);
      for (RunObserver* obs : observers_) obs->on_stream_event(event);
    };
    // A request sent again: the answer it streams is a new attempt.
    stream_.on_restart = [this] { partial_call_.reset(); };
    if (!options_.partial_results || !contract_) return;
    partials_.emplace([this](const json::Value& partial, int attempt) {
      for (RunObserver* obs : observers_) obs->on_partial_result(partial, attempt);
    });
    stream_.on_tool_arguments = [this](std::size_t call_index, std::string_view name, std::string_view fragment) {
      if (native_ || name != kStructuredOutputTool) return;
      if (partial_call_ != call_index) {
        partial_call_ = call_index;
        partials_->start_attempt();
      }
      partials_->feed(fragment);
    };
    stream_.on_text = [this](std::string_view fragment) {
      if (!native_) return;
      if (!partial_call_) {
        partial_call_ = 0;
        partials_->start_attempt();
      }
      partials_->feed(fragment);
    };
  }

  // One turn: a model request, then what its answer asks for.
  Step turn() {
    if (interrupted()) return cancelled_or_budget();
    if (options_.max_session_turns >= 0 && out_.num_turns + 1 > options_.max_session_turns) {
      out_.error_note = schema_active_ ? max_turns_schema_note(options_.names) : std::string();
      return finish(Subtype::ErrorMaxTurns, ExitCode::MaxTurns,
                    "Reached max session turns (" + std::to_string(options_.max_session_turns) +
                        "). Increase " + std::string(options_.names.max_session_turns) + " to allow more.");
    }
    ++out_.num_turns;

    // The conversation and the tool list are lent to the request and taken
    // back after it (no copy of the schema or the history per turn).
    provider::Request request;
    request.model = options_.model;
    request.system = options_.system_prompt;
    request.messages = std::move(messages_);
    request.tools = std::move(specs_);
    request.response_format = response_format_;
    request.max_tokens = options_.max_tokens;
    request.sampling = options_.sampling;

    const Clock::time_point api_started = Clock::now();
    if (!first_request_sent_) first_request_sent_ = api_started;
    partial_call_.reset();
    trace_.request_started(out_.num_turns);
    Result<provider::Response> response = model_.complete(request, stream_, cancel_);
    messages_ = std::move(request.messages);
    specs_ = std::move(request.tools);
    trace_.request_ended(response);
    out_.duration_api_ms += ms_since(api_started);
    if (!response) return request_failed(response.error(), response.error().message);
    out_.usage += response->usage;
    out_.stop_reason = response->stop_reason;
    for (RunObserver* obs : observers_) obs->on_assistant(*response, out_.num_turns);

    provider::Message assistant = std::move(response->message);
    assistant.role = provider::Role::Assistant;
    if (!assistant.text.empty()) {
      if (!all_text_.empty()) all_text_ += "\n";
      all_text_ += assistant.text;
    }
    messages_.push_back(std::move(assistant));
    // A signal that arrived while the answer was being read still wins.
    if (cancel_.cancelled.load()) return cancelled_or_budget();

    const std::vector<provider::ToolCall>& calls = messages_.back().tool_calls;
    if (calls.empty() && native_) return check_native_answer();
    if (calls.empty()) {
      if (schema_active_) return finish(Subtype::ErrorPlainText, ExitCode::Failure, plain_text_message(out_.num_turns, all_text_, options_.names));
      out_.final_text = messages_.back().text;
      return finish(Subtype::Success, ExitCode::Success, {});
    }
    bool has_so = false;
    if (offer_so_) {
      for (const auto& call : calls) has_so = has_so || call.name == kStructuredOutputTool;
    }
    // Copied: the results are appended to messages_, which may move the answer.
    const std::vector<provider::ToolCall> answer_calls = calls;
    return has_so ? check_structured_calls(answer_calls) : run_tools(answer_calls);
  }

  // Native (docs/run.md, "Mechanisms"): the final text is the answer, parsed, repaired
  // and validated here; an invalid one goes back as a user message and
  // counts against --max-structured-retries.
  Step check_native_answer() {
    ++out_.attempts;
    trace_.validation_started(out_.attempts);
    repair::Checked checked = repair::check_arguments(messages_.back().text, *options_.schema, native_repair_);
    trace_.validation_ended(checked);
    if (checked.valid) {
      out_.structured = std::move(checked.value);
      out_.repairs = std::move(checked.repairs);
      return finish(Subtype::Success, ExitCode::Success, {});
    }
    ++invalid_calls_;
    std::string error = schema::describe_for_model(checked.validation.violations, checked.value, "answer");
    out_.last_candidate = checked.parsed ? std::move(checked.value) : json::Value(std::string(messages_.back().text));
    if (error.empty()) error = "answer failed validation";
    if (invalid_calls_ > options_.max_structured_retries) {
      return finish(Subtype::ErrorMaxStructuredOutputRetries, ExitCode::Failure,
                    "The structured answer (" + options_.names.with_value(options_.names.mechanism, "native") +
                        ") failed validation " + std::to_string(invalid_calls_) +
                        " time(s); " + retries_allowed() + ". Last validation error: " + error);
    }
    provider::Message feedback;
    feedback.role = provider::Role::User;
    if (error.back() != '.') error += '.';
    feedback.text = std::string(kNativeFeedbackPrefix) + error + std::string(kNativeFeedbackSuffix);
    for (RunObserver* obs : observers_) obs->on_tool_results(feedback);
    messages_.push_back(std::move(feedback));
    return std::nullopt;
  }

  // "max_structured_retries=2 allows 2 retries" (the CLI: "--max-structured-retries 2 …")
  std::string retries_allowed() const {
    const int n = options_.max_structured_retries;
    return options_.names.with_value(options_.names.max_structured_retries, std::to_string(n)) + " allows " +
           std::to_string(n) + " retr" +
           (n == 1 ? "y" : "ies");
  }

  static provider::Message results_for(const std::vector<provider::ToolCall>& calls) {
    provider::Message results;
    results.role = provider::Role::User;
    results.tool_results.resize(calls.size());
    for (std::size_t i = 0; i < calls.size(); ++i) results.tool_results[i].tool_call_id = calls[i].id;
    return results;
  }

  // Only the structured_output calls run, in order, stopping at
  // the first valid one; every other call gets a synthesised result.
  Step check_structured_calls(const std::vector<provider::ToolCall>& calls) {
    provider::Message results = results_for(calls);
    bool accepted = false;
    bool exhausted = false;
    std::vector<bool> done(calls.size(), false);
    for (std::size_t i = 0; i < calls.size() && !accepted && !exhausted; ++i) {
      if (calls[i].name != kStructuredOutputTool) continue;
      done[i] = true;
      ++out_.attempts;
      auto& result = results.tool_results[i];
      RunTrace::ToolScope traced(trace_, calls[i], result);
      if (options_.hooks != nullptr) {
        // Hooks see the raw arguments (docs/run.md, "Hooks"); a blocked call counts as invalid.
        HookRunner::Decision decision = options_.hooks->pre_tool_use(calls[i], &cancel_);
        if (decision.blocked) {
          ++invalid_calls_;
          out_.last_candidate = arguments_json(calls[i].arguments);
          result = {calls[i].id, decision.message, true};
          exhausted = invalid_calls_ > options_.max_structured_retries;
          continue;
        }
      }
      trace_.validation_started(out_.attempts);
      repair::Checked checked = repair::check_arguments(calls[i].arguments, *options_.schema, options_.repair);
      trace_.validation_ended(checked);
      if (options_.hooks != nullptr) {
        options_.hooks->post_tool_use(
            calls[i], {checked.valid ? std::string(kStructuredOutputAccepted)
                                     : schema::describe(checked.validation.violations, "params"),
                       !checked.valid},
            &cancel_);
      }
      if (checked.valid) {
        accepted = true;
        out_.structured = std::move(checked.value);
        out_.repairs = std::move(checked.repairs);
        result.content = std::string(kStructuredOutputAccepted);
        continue;
      }
      ++invalid_calls_;
      result.content = schema::describe_for_model(checked.validation.violations, checked.value, "params");
      out_.last_candidate = checked.parsed ? std::move(checked.value) : json::Value(std::string(calls[i].arguments));
      if (result.content.empty()) result.content = "params failed validation";
      result.is_error = true;
      exhausted = invalid_calls_ > options_.max_structured_retries;
    }
    for (std::size_t i = 0; i < calls.size(); ++i) {
      if (done[i]) continue;
      results.tool_results[i].content = std::string(accepted ? kSkippedSuccess : kSkippedRetry);
    }
    for (RunObserver* obs : observers_) obs->on_tool_results(results);
    if (accepted) return finish(Subtype::Success, ExitCode::Success, {});
    if (exhausted) {
      std::string last;
      for (const auto& r : results.tool_results) {
        if (r.is_error) last = r.content;
      }
      return finish(Subtype::ErrorMaxStructuredOutputRetries, ExitCode::Failure,
                    "structured_output arguments failed validation " + std::to_string(invalid_calls_) + " time(s); " +
                        retries_allowed() + ". Last validation error: " + last);
    }
    messages_.push_back(std::move(results));
    return std::nullopt;
  }

  // Ordinary tool calls (docs/run.md, "Tools and permissions"): run each, results go back.
  Step run_tools(const std::vector<provider::ToolCall>& calls) {
    provider::Message results = results_for(calls);
    ToolContext context{options_.cwd, &cancel_};
    for (std::size_t i = 0; i < calls.size(); ++i) {
      if (interrupted()) return cancelled_or_budget();
      const provider::ToolCall& call = calls[i];
      auto& result = results.tool_results[i];
      RunTrace::ToolScope traced(trace_, call, result);
      auto found = by_name_.find(call.name);
      if (found == by_name_.end()) {
        result.content = "Tool \"" + call.name + "\" is not available in this run.";
        result.is_error = true;
        continue;
      }
      if (options_.max_tool_calls >= 0 && out_.tool_calls + 1 > options_.max_tool_calls) {
        return finish(Subtype::ErrorBudget, ExitCode::Limits,
                      "Exceeded " + std::string(options_.names.max_tool_calls) + " (" + std::to_string(options_.max_tool_calls) + ").");
      }
      ++out_.tool_calls;
      std::string_view text = call.arguments;
      json::Value arguments = json::Object{};
      bool blank = text.find_first_not_of(" \t\r\n") == std::string_view::npos;
      if (!blank) {
        Result<json::Value> parsed = json::parse(text);
        if (!parsed || !parsed->is_object()) {
          result.content = "Invalid arguments for " + call.name + ": " +
                           (parsed ? std::string("expected a JSON object")
                                   : parsed.error().message + " at " + parsed.error().where);
          result.is_error = true;
          continue;
        }
        arguments = std::move(*parsed);
      }
      if (options_.hooks != nullptr) {
        HookRunner::Decision decision = options_.hooks->pre_tool_use(call, &cancel_);
        if (decision.blocked) {
          result.content = decision.message;
          result.is_error = true;
          continue;
        }
      }
      ToolOutput output = found->second->run(arguments, context);
      // Second line of defence (docs/run.md, "What child processes get"): children never get the key, but
      // a tool may still read it (a file, /proc): it never reaches the hooks,
      // the transcript or the model.
      output.content = scrub_secrets(output.content);
      if (options_.hooks != nullptr) options_.hooks->post_tool_use(call, output, &cancel_);
      result.content = bound_output(std::move(output.content), options_.max_tool_result_bytes);
      result.is_error = output.is_error;
    }
    if (interrupted()) return cancelled_or_budget();
    for (RunObserver* obs : observers_) obs->on_tool_results(results);
    messages_.push_back(std::move(results));
    return std::nullopt;
  }

  provider::Model& model_;
  const std::vector<const Tool*>& tools_;
  const RunOptions& options_;
  const std::vector<RunObserver*>& observers_;
  provider::CancelToken& cancel_;
  const Clock::time_point started_;
  RunOutcome out_;
  WallClockGuard wall_;
  const bool schema_active_;
  const bool contract_;  // a schema, and structured_output may be offered
  RunTrace trace_;

  Mechanism mechanism_ = Mechanism::Tool;
  bool native_ = false;
  bool offer_so_ = false;
  std::vector<provider::ToolSpec> specs_;
  std::map<std::string, const Tool*, std::less<>> by_name_;
  std::optional<provider::ResponseFormat> response_format_;
  repair::Options native_repair_;
  std::vector<schema::Change> relaxed_;
  std::optional<schema::Lowering> lowering_;  // native: the schema sent, and the way back

  std::vector<provider::Message> messages_;
  provider::StreamObserver stream_;
  std::optional<Clock::time_point> first_request_sent_;
  std::optional<PartialResults> partials_;
  std::optional<std::size_t> partial_call_;  // the call followed in this turn
  std::string all_text_;  // everything the model said, for the plain-text preview
  int invalid_calls_ = 0;
};

}  // namespace

RunOutcome run(provider::Model& model, const std::vector<const Tool*>& tools, const RunOptions& options,
               const std::vector<RunObserver*>& observers, provider::CancelToken& cancel) {
  return RunLoop(model, tools, options, observers, cancel).run();
}

}  // namespace weld::agent
