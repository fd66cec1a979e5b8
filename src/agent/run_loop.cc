// The turn loop of a headless run. SPEC §2.2 (what the model sees) and §2.3
// (the turn loop): pre-scan for structured_output, synthesised results for
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
  WallClockGuard(double seconds, provider::CancelToken& cancel) {
    if (seconds <= 0) return;
    deadline_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
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
    if (!thread_.joinable()) return false;
    return hit_.load() || Clock::now() >= deadline_;
  }

 private:
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

std::string plain_text_message(int turns, std::string_view model_text) {
  std::string message = "Model produced plain text instead of calling the structured_output tool as required by "
                        "--json-schema after " +
                        std::to_string(turns) + " turn(s).";
  if (model_text.empty()) return message;
  // SPEC §2.3: the first 200 characters across all turns, '+' when there
  // were 200 or more.
  constexpr std::size_t kPreview = 200;
  std::size_t total = json::count_code_points(model_text);
  std::string_view preview = json::utf8_prefix(model_text, kPreview);
  std::size_t shown = total < kPreview ? total : kPreview;
  message += " Output preview (" + std::to_string(shown) + (total >= kPreview ? "+" : "") +
             " chars): " + json::quote(preview) + ".";
  return message;
}

RunOutcome run(provider::Model& model, const std::vector<const Tool*>& tools, const RunOptions& options,
               const std::vector<RunObserver*>& observers, provider::CancelToken& cancel) {
  const Clock::time_point started = Clock::now();
  RunOutcome out;
  out.session_id = options.session_id;
  WallClockGuard wall(options.max_wall_time_seconds, cancel);
  const bool schema_active = options.schema != nullptr;
  const bool contract = schema_active && options.offer_structured_output;
  RunTrace trace(options, model.provider_name());

  auto finish = [&](Subtype subtype, int exit_code, std::string message) {
    out.subtype = subtype;
    out.exit_code = exit_code;
    out.error_message = std::move(message);
    out.duration_ms = ms_since(started);
    trace.finish(out);
    return std::move(out);
  };
  auto cancelled_or_budget = [&]() {
    if (wall.exceeded()) {
      return finish(Subtype::ErrorBudget, 55,
                    "Exceeded --max-wall-time (" + format_seconds(options.max_wall_time_seconds) + " s).");
    }
    return finish(Subtype::ErrorCancelled, 130, "Operation cancelled.");
  };

  // The mechanism (SPEC §4). `auto` asks the cache, else probes once.
  Mechanism mechanism = options.mechanism;
  if (contract && mechanism == Mechanism::Auto) {
    const std::int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                                 std::chrono::system_clock::now().time_since_epoch())
                                 .count();
    std::optional<bool> cached;
    if (!options.mechanism_cache_path.empty())
      cached = read_mechanism_cache(options.mechanism_cache_path, options.mechanism_cache_key, now);
    if (cached) {
      mechanism = *cached ? Mechanism::Native : Mechanism::Tool;
    } else {
      const Clock::time_point api_started = Clock::now();
      trace.request_started(0, true);
      Result<provider::Response> probe = model.complete(native_probe_request(options.model), {}, cancel);
      trace.request_ended(probe);
      out.duration_api_ms += ms_since(api_started);
      bool native = false;
      if (!probe) {
        const Error& error = probe.error();
        if (cancel.cancelled.load() || error.code == "cancelled") return cancelled_or_budget();
        const std::string message = "--mechanism auto: the probe request failed: " + error.message;
        if (error.code == "auth") {
          out.api_error_status = error.http_status;
          return finish(Subtype::ErrorApi, 41, message);
        }
        // A server that rejects the field (400 and the like) does not
        // enforce it; a network failure says nothing and ends the run.
        if (error.code != "http") return finish(Subtype::ErrorApi, error.temporary ? 75 : 1, message);
      } else {
        out.usage += probe->usage;
        native = native_probe_passed(*probe);
      }
      mechanism = native ? Mechanism::Native : Mechanism::Tool;
      if (!options.mechanism_cache_path.empty()) {
        Status written = write_mechanism_cache(options.mechanism_cache_path, options.mechanism_cache_key, native, now);
        if (!written) out.warnings.push_back("--mechanism auto: probe result not remembered: " + written.error().message);
      }
    }
  }
  if (mechanism == Mechanism::Auto) mechanism = Mechanism::Tool;
  const bool native = contract && mechanism == Mechanism::Native;
  const bool offer_so = contract && !native;
  if (schema_active) out.mechanism = std::string(mechanism_name(mechanism));

  // The request's tool list: built-in (and MCP) tools, then structured_output.
  std::vector<provider::ToolSpec> specs;
  std::map<std::string, const Tool*, std::less<>> by_name;
  for (const Tool* tool : tools) {
    if (tool->name() == kStructuredOutputTool) continue;  // the synthetic tool keeps its name (SPEC §2.7)
    specs.push_back(tool->spec());
    by_name.emplace(tool->name(), tool);
  }
  if (offer_so) {
    specs.push_back({std::string(kStructuredOutputTool), std::string(kStructuredOutputDescription),
                     options.schema_source});
  }
  std::optional<provider::ResponseFormat> response_format;
  repair::Options native_repair = options.repair;
  std::vector<provider::Relaxation> relaxed;
  if (native) {
    provider::ResponseFormat format;
    format.schema = options.schema_source;
    // OpenAI (Chat and Responses): strict, with the schema rewritten into
    // the strict subset when it can be (SPEC §4, strict_schema.h; the proxy
    // decides the same way). The init message lists what that relaxed, and
    // a null only the rewrite allowed is dropped before validation.
    format.strict = true;
    response_format = std::move(format);
    const std::string wire = model.provider_name();
    if (wire == "openai" || wire == "openai-responses") {
      if (std::optional<provider::StrictSchema> strict = provider::openai_strict_schema(options.schema_source)) {
        relaxed = std::move(strict->relaxed);
        native_repair.drop_nulls = strict->nullable_added;
      }
    }
  }

  RunStart start{options.session_id, options.model, model.provider_name(), options.cwd, {}, schema_active,
                 out.mechanism, options.mcp_servers, std::move(relaxed)};
  for (const auto& spec : specs) start.tools.push_back(spec.name);
  for (RunObserver* obs : observers) obs->on_start(start);

  std::vector<provider::Message> messages = options.history;
  provider::Message prompt;
  prompt.role = provider::Role::User;
  prompt.text = options.prompt;
  messages.push_back(prompt);
  for (RunObserver* obs : observers) obs->on_prompt(prompt);

  // Time to first token (the envelope's `ttft_ms`): from sending the run's
  // first request to the first event streamed back for it.
  std::optional<Clock::time_point> first_request_sent;
  provider::StreamObserver stream;
  stream.on_event = [&observers, &out, &first_request_sent](const json::Value& event) {
    if (first_request_sent && !out.ttft_ms) out.ttft_ms = ms_since(*first_request_sent);
    for (RunObserver* obs : observers) obs->on_stream_event(event);
  };
  // Partial structured answers (issue 17): the structured_output arguments,
  // or the native answer's text, as they stream. A new call (or turn)
  // starts a new attempt.
  std::optional<PartialResults> partials;
  std::optional<std::size_t> partial_call;  // the call followed in this turn
  if (options.partial_results && contract) {
    partials.emplace([&observers](const json::Value& partial, int attempt) {
      for (RunObserver* obs : observers) obs->on_partial_result(partial, attempt);
    });
    stream.on_tool_arguments = [&](std::size_t call_index, std::string_view name, std::string_view fragment) {
      if (native || name != kStructuredOutputTool) return;
      if (partial_call != call_index) {
        partial_call = call_index;
        partials->start_attempt();
      }
      partials->feed(fragment);
    };
    stream.on_text = [&](std::string_view fragment) {
      if (!native) return;
      if (!partial_call) {
        partial_call = 0;
        partials->start_attempt();
      }
      partials->feed(fragment);
    };
  }

  std::string all_text;  // everything the model said, for the plain-text preview
  int invalid_calls = 0;

  for (;;) {
    if (cancel.cancelled.load() || wall.exceeded()) return cancelled_or_budget();
    if (options.max_session_turns >= 0 && out.num_turns + 1 > options.max_session_turns) {
      out.error_note = schema_active ? std::string(kMaxTurnsJsonSchemaNote) : std::string();
      return finish(Subtype::ErrorMaxTurns, 53,
                    "Reached max session turns (" + std::to_string(options.max_session_turns) +
                        "). Increase --max-session-turns to allow more.");
    }
    ++out.num_turns;

    // The conversation and the tool list are lent to the request and taken
    // back after it (no copy of the schema or the history per turn).
    provider::Request request;
    request.model = options.model;
    request.system = options.system_prompt;
    request.messages = std::move(messages);
    request.tools = std::move(specs);
    request.response_format = response_format;

    const Clock::time_point api_started = Clock::now();
    if (!first_request_sent) first_request_sent = api_started;
    partial_call.reset();
    trace.request_started(out.num_turns);
    Result<provider::Response> response = model.complete(request, stream, cancel);
    messages = std::move(request.messages);
    specs = std::move(request.tools);
    trace.request_ended(response);
    out.duration_api_ms += ms_since(api_started);
    if (!response) {
      const Error& error = response.error();
      if (cancel.cancelled.load() || error.code == "cancelled") return cancelled_or_budget();
      out.api_error_status = error.http_status;
      if (error.code == "auth") return finish(Subtype::ErrorApi, 41, error.message);
      // SPEC §2.5: 75 when the same command may well succeed later.
      return finish(Subtype::ErrorApi, error.temporary ? 75 : 1, error.message);
    }
    out.usage += response->usage;
    out.stop_reason = response->stop_reason;
    for (RunObserver* obs : observers) obs->on_assistant(*response, out.num_turns);

    provider::Message assistant = std::move(response->message);
    assistant.role = provider::Role::Assistant;
    if (!assistant.text.empty()) {
      if (!all_text.empty()) all_text += "\n";
      all_text += assistant.text;
    }
    const std::vector<provider::ToolCall>& calls = assistant.tool_calls;
    messages.push_back(assistant);
    // A signal that arrived while the answer was being read still wins.
    if (cancel.cancelled.load()) return cancelled_or_budget();

    if (calls.empty() && native) {
      // SPEC §4, native: the final text is the answer, parsed, repaired
      // (§1.3) and validated here; an invalid one goes back as a user
      // message and counts against --max-structured-retries.
      ++out.attempts;
      trace.validation_started(out.attempts);
      repair::Checked checked = repair::check_arguments(messages.back().text, *options.schema, native_repair);
      trace.validation_ended(checked);
      if (checked.valid) {
        out.structured = std::move(checked.value);
        out.repairs = std::move(checked.repairs);
        return finish(Subtype::Success, 0, {});
      }
      ++invalid_calls;
      out.last_candidate =
          checked.parsed ? std::move(checked.value) : json::Value(std::string(messages.back().text));
      std::string error = schema::describe(checked.validation.violations, "answer");
      if (error.empty()) error = "answer failed validation";
      if (invalid_calls > options.max_structured_retries) {
        return finish(Subtype::ErrorMaxStructuredOutputRetries, 1,
                      "The structured answer (--mechanism native) failed validation " + std::to_string(invalid_calls) +
                          " time(s); --max-structured-retries " + std::to_string(options.max_structured_retries) +
                          " allows " + std::to_string(options.max_structured_retries) + " retr" +
                          (options.max_structured_retries == 1 ? "y" : "ies") + ". Last validation error: " + error);
      }
      provider::Message feedback;
      feedback.role = provider::Role::User;
      if (error.back() != '.') error += '.';
      feedback.text = std::string(kNativeFeedbackPrefix) + error + std::string(kNativeFeedbackSuffix);
      for (RunObserver* obs : observers) obs->on_tool_results(feedback);
      messages.push_back(std::move(feedback));
      continue;
    }

    if (calls.empty()) {
      if (schema_active) return finish(Subtype::ErrorPlainText, 1, plain_text_message(out.num_turns, all_text));
      out.final_text = messages.back().text;
      return finish(Subtype::Success, 0, {});
    }

    provider::Message results;
    results.role = provider::Role::User;
    results.tool_results.resize(calls.size());
    for (std::size_t i = 0; i < calls.size(); ++i) results.tool_results[i].tool_call_id = calls[i].id;

    bool has_so = false;
    if (offer_so) {
      for (const auto& call : calls) has_so = has_so || call.name == kStructuredOutputTool;
    }

    if (has_so) {
      // SPEC §2.3: only the structured_output calls run, in order, stopping
      // at the first valid one; every other call gets a synthesised result.
      bool accepted = false;
      bool exhausted = false;
      std::vector<bool> done(calls.size(), false);
      for (std::size_t i = 0; i < calls.size() && !accepted && !exhausted; ++i) {
        if (calls[i].name != kStructuredOutputTool) continue;
        done[i] = true;
        ++out.attempts;
        auto& result = results.tool_results[i];
        RunTrace::ToolScope traced(trace, calls[i], result);
        if (options.hooks != nullptr) {
          // Hooks see the raw arguments (SPEC §2.6); a blocked call counts as invalid.
          HookRunner::Decision decision = options.hooks->pre_tool_use(calls[i], &cancel);
          if (decision.blocked) {
            ++invalid_calls;
            out.last_candidate = arguments_json(calls[i].arguments);
            result = {calls[i].id, decision.message, true};
            exhausted = invalid_calls > options.max_structured_retries;
            continue;
          }
        }
        trace.validation_started(out.attempts);
        repair::Checked checked = repair::check_arguments(calls[i].arguments, *options.schema, options.repair);
        trace.validation_ended(checked);
        if (options.hooks != nullptr) {
          options.hooks->post_tool_use(
              calls[i], {checked.valid ? std::string(kStructuredOutputAccepted)
                                       : schema::describe(checked.validation.violations, "params"),
                         !checked.valid},
              &cancel);
        }
        if (checked.valid) {
          accepted = true;
          out.structured = std::move(checked.value);
          out.repairs = std::move(checked.repairs);
          result.content = std::string(kStructuredOutputAccepted);
          continue;
        }
        ++invalid_calls;
        out.last_candidate =
            checked.parsed ? std::move(checked.value) : json::Value(std::string(calls[i].arguments));
        result.content = schema::describe(checked.validation.violations, "params");
        if (result.content.empty()) result.content = "params failed validation";
        result.is_error = true;
        exhausted = invalid_calls > options.max_structured_retries;
      }
      for (std::size_t i = 0; i < calls.size(); ++i) {
        if (done[i]) continue;
        results.tool_results[i].content = std::string(accepted ? kSkippedSuccess : kSkippedRetry);
      }
      for (RunObserver* obs : observers) obs->on_tool_results(results);
      if (accepted) return finish(Subtype::Success, 0, {});
      if (exhausted) {
        std::string last;
        for (const auto& r : results.tool_results) {
          if (r.is_error) last = r.content;
        }
        return finish(Subtype::ErrorMaxStructuredOutputRetries, 1,
                      "structured_output arguments failed validation " + std::to_string(invalid_calls) +
                          " time(s); --max-structured-retries " + std::to_string(options.max_structured_retries) +
                          " allows " + std::to_string(options.max_structured_retries) +
                          " retr" + (options.max_structured_retries == 1 ? "y" : "ies") +
                          ". Last validation error: " + last);
      }
      messages.push_back(std::move(results));
      continue;
    }

    // Ordinary tool calls (SPEC §2.7): run each, results go back.
    ToolContext context{options.cwd, &cancel};
    for (std::size_t i = 0; i < calls.size(); ++i) {
      if (cancel.cancelled.load() || wall.exceeded()) return cancelled_or_budget();
      const provider::ToolCall& call = calls[i];
      auto& result = results.tool_results[i];
      RunTrace::ToolScope traced(trace, call, result);
      auto found = by_name.find(call.name);
      if (found == by_name.end()) {
        result.content = "Tool \"" + call.name + "\" is not available in this run.";
        result.is_error = true;
        continue;
      }
      if (options.max_tool_calls >= 0 && out.tool_calls + 1 > options.max_tool_calls) {
        return finish(Subtype::ErrorBudget, 55,
                      "Exceeded --max-tool-calls (" + std::to_string(options.max_tool_calls) + ").");
      }
      ++out.tool_calls;
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
      if (options.hooks != nullptr) {
        HookRunner::Decision decision = options.hooks->pre_tool_use(call, &cancel);
        if (decision.blocked) {
          result.content = decision.message;
          result.is_error = true;
          continue;
        }
      }
      ToolOutput output = found->second->run(arguments, context);
      // Second line of defence (issue 13.3): children never get the key, but
      // a tool may still read it (a file, /proc): it never reaches the hooks,
      // the transcript or the model.
      output.content = scrub_secrets(output.content);
      if (options.hooks != nullptr) options.hooks->post_tool_use(call, output, &cancel);
      result.content = bound_output(std::move(output.content), options.max_tool_result_bytes);
      result.is_error = output.is_error;
    }
    if (cancel.cancelled.load() || wall.exceeded()) return cancelled_or_budget();
    for (RunObserver* obs : observers) obs->on_tool_results(results);
    messages.push_back(std::move(results));
  }
}

}  // namespace weld::agent
