// The run's output formats (docs/run.md, "Output formats"). Messages follow the shape agent SDKs
// use (system/init, assistant, user, result) so that existing consumers of
// `claude -p --output-format stream-json` read weld's output unchanged.

#include "weld/agent/output.h"

#include <utility>

#include "weld/json/parse.h"
#include "weld/json/serialize.h"

namespace weld::agent {

std::optional<OutputFormat> parse_output_format(std::string_view text) {
  if (text == "text") return OutputFormat::Text;
  if (text == "json") return OutputFormat::Json;
  if (text == "stream-json") return OutputFormat::StreamJson;
  if (text == "result") return OutputFormat::Result;
  return std::nullopt;
}

std::optional<double> cost_usd(const provider::Usage& usage, const Prices& prices) {
  constexpr double kPerToken = 1e-6;  // prices are per million tokens
  double cost = (static_cast<double>(usage.input_tokens) * prices.input +
                 static_cast<double>(usage.output_tokens) * prices.output) *
                kPerToken;
  if (usage.cache_read_input_tokens > 0) {
    if (!prices.cache_read) return std::nullopt;
    cost += static_cast<double>(usage.cache_read_input_tokens) * *prices.cache_read * kPerToken;
  }
  if (usage.cache_creation_input_tokens > 0) {
    if (!prices.cache_write) return std::nullopt;
    cost += static_cast<double>(usage.cache_creation_input_tokens) * *prices.cache_write * kPerToken;
  }
  return cost;
}

json::Value usage_json(const provider::Usage& usage) {
  return json::Object{{"input_tokens", usage.input_tokens},
                      {"output_tokens", usage.output_tokens},
                      {"cache_read_input_tokens", usage.cache_read_input_tokens},
                      {"cache_creation_input_tokens", usage.cache_creation_input_tokens}};
}

json::Value arguments_value(std::string_view arguments) {
  if (arguments.find_first_not_of(" \t\r\n") == std::string_view::npos) return json::Object{};
  Result<json::Value> parsed = json::parse(arguments);
  if (parsed) return std::move(*parsed);
  return json::Value(std::string(arguments));
}

json::Value init_message(const RunStart& start) {
  json::Array tools;
  for (const auto& name : start.tools) tools.emplace_back(name);
  json::Value out = json::Object{{"type", "system"},
                      {"subtype", "init"},
                      {"session_id", start.session_id},
                      {"cwd", start.cwd},
                      {"model", start.model},
                      {"provider", start.provider},
                      {"tools", std::move(tools)},
                      {"json_schema", start.json_schema}};
  json::Value message = std::move(out);
  if (!start.mechanism.empty()) message.set("mechanism", start.mechanism);
  if (!start.native_relaxed.empty()) {
    // What the lowered schema sent to the server does not enforce
    // (docs/run.md, Mechanisms).
    json::Array relaxed;
    for (const schema::Change& r : start.native_relaxed)
      relaxed.push_back(json::Object{{"path", r.pointer}, {"change", r.change}, {"reason", r.reason}});
    message.set("native_relaxed", std::move(relaxed));
  }
  if (!start.mcp_servers.empty()) {
    json::Array servers;
    for (const auto& [name, status] : start.mcp_servers)
      servers.emplace_back(json::Object{{"name", name}, {"status", status}});
    message.set("mcp_servers", std::move(servers));
  }
  return message;
}

json::Value assistant_message(const provider::Response& response, const std::string& model,
                              const std::string& session_id) {
  json::Array content;
  if (!response.message.text.empty()) {
    content.emplace_back(json::Object{{"type", "text"}, {"text", response.message.text}});
  }
  for (const auto& call : response.message.tool_calls) {
    content.emplace_back(json::Object{{"type", "tool_use"},
                                      {"id", call.id},
                                      {"name", call.name},
                                      {"input", arguments_value(call.arguments)}});
  }
  json::Value message = json::Object{{"id", response.id},
                                     {"type", "message"},
                                     {"role", "assistant"},
                                     {"model", model},
                                     {"content", std::move(content)},
                                     {"stop_reason", response.stop_reason},
                                     {"usage", usage_json(response.usage)}};
  return json::Object{{"type", "assistant"},
                      {"message", std::move(message)},
                      {"parent_tool_use_id", nullptr},
                      {"session_id", session_id}};
}

json::Value user_message(const provider::Message& message, const std::string& session_id) {
  json::Array content;
  if (!message.text.empty()) content.emplace_back(json::Object{{"type", "text"}, {"text", message.text}});
  for (const auto& result : message.tool_results) {
    content.emplace_back(json::Object{{"type", "tool_result"},
                                      {"tool_use_id", result.tool_call_id},
                                      {"content", result.content},
                                      {"is_error", result.is_error}});
  }
  return json::Object{{"type", "user"},
                      {"message", json::Object{{"role", "user"}, {"content", std::move(content)}}},
                      {"parent_tool_use_id", nullptr},
                      {"session_id", session_id}};
}

json::Value partial_result_message(const json::Value& partial, int attempt, const std::string& session_id) {
  return json::Object{{"type", "partial_result"},
                      {"structured_partial", partial},
                      {"attempt", attempt},
                      {"parent_tool_use_id", nullptr},
                      {"session_id", session_id}};
}

json::Value stream_event_message(const json::Value& event, const std::string& session_id) {
  return json::Object{
      {"type", "stream_event"}, {"event", event}, {"parent_tool_use_id", nullptr}, {"session_id", session_id}};
}

json::Value result_envelope(const RunOutcome& outcome, const Prices* prices) {
  const bool success = outcome.subtype == Subtype::Success;
  json::Value envelope = json::Object{{"type", "result"},
                                      {"subtype", subtype_name(outcome.subtype)},
                                      {"is_error", !success}};
  if (success) {
    envelope.set("result", outcome.structured ? json::serialize(*outcome.structured) : outcome.final_text);
    if (outcome.structured) {
      envelope.set("structured_result", *outcome.structured);
      // Claude Code's name for the same payload, so its consumers
      // (`jq .structured_output`) read weld's envelope unchanged.
      envelope.set("structured_output", *outcome.structured);
    }
  } else {
    envelope.set("result", outcome.error_message);
  }
  envelope.set("num_turns", outcome.num_turns);
  envelope.set("attempts", outcome.attempts);
  json::Array repairs;
  for (const auto& r : outcome.repairs) repairs.push_back(repair::to_json(r));
  envelope.set("repairs", std::move(repairs));
  envelope.set("usage", usage_json(outcome.usage));
  if (prices != nullptr) {
    if (std::optional<double> cost = cost_usd(outcome.usage, *prices)) envelope.set("total_cost_usd", *cost);
  }
  envelope.set("duration_ms", outcome.duration_ms);
  envelope.set("duration_api_ms", outcome.duration_api_ms);
  if (outcome.ttft_ms) envelope.set("ttft_ms", *outcome.ttft_ms);
  envelope.set("api_error_status",
               outcome.api_error_status != 0 ? json::Value(outcome.api_error_status) : json::Value(nullptr));
  envelope.set("session_id", outcome.session_id);
  envelope.set("stop_reason", outcome.stop_reason);
  if (!success) {
    std::string message = outcome.error_message;
    if (!outcome.error_note.empty()) message += "\n" + outcome.error_note;
    envelope.set("error", json::Object{{"message", message}});
    if (outcome.last_candidate) envelope.set("last_candidate", *outcome.last_candidate);
  }
  return envelope;
}

OutputWriter::OutputWriter(OutputFormat format, bool include_partial_messages, Sink sink)
    : format_(format), partial_(include_partial_messages), sink_(std::move(sink)) {}

void OutputWriter::set_prices(const Prices& prices) {
  std::lock_guard lock(mutex_);
  prices_ = prices;
}

void OutputWriter::emit(const json::Value& message) {
  // Caller holds mutex_.
  if (format_ == OutputFormat::StreamJson) {
    std::string line = json::serialize(message);
    line += '\n';
    sink_(line);
  } else if (format_ == OutputFormat::Json) {
    messages_.push_back(message);
  }
}

void OutputWriter::on_start(const RunStart& start) {
  std::lock_guard lock(mutex_);
  if (finished_) return;
  model_ = start.model;
  session_id_ = start.session_id;
  seen_.session_id = start.session_id;
  emit(init_message(start));
}

void OutputWriter::on_stream_event(const json::Value& event) {
  std::lock_guard lock(mutex_);
  if (finished_ || !partial_ || format_ != OutputFormat::StreamJson) return;
  emit(stream_event_message(event, session_id_));
}

void OutputWriter::on_partial_result(const json::Value& partial, int attempt) {
  std::lock_guard lock(mutex_);
  if (finished_ || !partial_ || format_ != OutputFormat::StreamJson) return;
  emit(partial_result_message(partial, attempt, session_id_));
}

void OutputWriter::on_assistant(const provider::Response& response, int turn) {
  std::lock_guard lock(mutex_);
  if (finished_) return;
  seen_.num_turns = turn;
  seen_.usage += response.usage;
  seen_.stop_reason = response.stop_reason;
  emit(assistant_message(response, model_, session_id_));
}

void OutputWriter::on_tool_results(const provider::Message& message) {
  std::lock_guard lock(mutex_);
  if (finished_) return;
  emit(user_message(message, session_id_));
}

RunOutcome OutputWriter::snapshot() const {
  std::lock_guard lock(mutex_);
  return seen_;
}

bool OutputWriter::finish(const RunOutcome& outcome) {
  std::lock_guard lock(mutex_);
  if (finished_) return false;
  finished_ = true;
  switch (format_) {
    case OutputFormat::Text:
      // docs/run.md, "Output formats": exactly the payload, compact, model's key order, raw
      // UTF-8, one "\n"; nothing at all on failure.
      if (outcome.subtype == Subtype::Success) {
        std::string text = outcome.structured ? json::serialize(*outcome.structured) : outcome.final_text;
        text += '\n';
        sink_(text);
      }
      break;
    case OutputFormat::Json: {
      messages_.push_back(result_envelope(outcome, prices_ ? &*prices_ : nullptr));
      std::string text = json::serialize(messages_);
      text += '\n';
      sink_(text);
      break;
    }
    case OutputFormat::StreamJson:
    case OutputFormat::Result: {
      std::string line = json::serialize(result_envelope(outcome, prices_ ? &*prices_ : nullptr));
      line += '\n';
      sink_(line);
      break;
    }
  }
  return true;
}

}  // namespace weld::agent
