// Result lines (SPEC §7). weld's shape carries what the run's envelope
// carries (§2.4) for one row; the OpenAI shape is the Batch API's output
// line, whose body is a chat completion with the JSON as message content, so
// readers of OpenAI or vLLM batch results read weld's unchanged.

#include "weld/batch/result_line.h"

#include <chrono>
#include <cstdio>
#include <random>

#include "weld/agent/output.h"
#include "weld/json/parse.h"
#include "weld/json/serialize.h"
#include "weld/repair/repair.h"

namespace weld::batch {
namespace {

// 24 random hex digits for the OpenAI shape's ids (they identify a request,
// they carry nothing).
std::string random_hex() {
  thread_local std::mt19937_64 engine{std::random_device{}()};
  char text[25];
  std::snprintf(text, sizeof text, "%016llx%08x", static_cast<unsigned long long>(engine()),
                static_cast<unsigned>(engine() & 0xffffffffu));
  return text;
}

std::string finish(const json::Value& line) {
  std::string text = json::serialize(line);
  text += '\n';
  return text;
}

json::Value openai_usage(const provider::Usage& usage) {
  return json::Object{{"prompt_tokens", usage.input_tokens},
                      {"completion_tokens", usage.output_tokens},
                      {"total_tokens", usage.input_tokens + usage.output_tokens}};
}

json::Value openai_error_line(const Row& row, std::string_view type, std::string_view message) {
  return json::Object{{"id", "batch_req_" + random_hex()},
                      {"custom_id", row.id},
                      {"response", nullptr},
                      {"error", json::Object{{"code", type}, {"message", message},
                                             {"line", static_cast<std::int64_t>(row.line)}}}};
}

}  // namespace

std::optional<OutputFormat> parse_output_format(std::string_view text) {
  if (text == "weld") return OutputFormat::Weld;
  if (text == "openai") return OutputFormat::OpenAi;
  return std::nullopt;
}

std::string run_result_line(OutputFormat format, const Row& row, const agent::RunOutcome& outcome,
                            std::string_view model) {
  const bool success = outcome.subtype == agent::Subtype::Success && outcome.structured.has_value();
  if (format == OutputFormat::OpenAi) {
    if (!success) return finish(openai_error_line(row, agent::subtype_name(outcome.subtype), outcome.error_message));
    const std::int64_t created =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    json::Value message = json::Object{{"role", "assistant"}, {"content", json::serialize(*outcome.structured)}};
    json::Value choice = json::Object{
        {"index", 0}, {"message", std::move(message)}, {"logprobs", nullptr}, {"finish_reason", "stop"}};
    json::Value body = json::Object{{"id", "chatcmpl-" + random_hex()},
                                    {"object", "chat.completion"},
                                    {"created", created},
                                    {"model", model},
                                    {"choices", json::Array{std::move(choice)}},
                                    {"usage", openai_usage(outcome.usage)}};
    return finish(json::Object{
        {"id", "batch_req_" + random_hex()},
        {"custom_id", row.id},
        {"response", json::Object{{"status_code", 200}, {"request_id", "req_" + random_hex()}, {"body", std::move(body)}}},
        {"error", nullptr}});
  }
  json::Value line = json::Object{{"custom_id", row.id}, {"line", static_cast<std::int64_t>(row.line)}};
  if (success) {
    line.set("status", "succeeded");
    line.set("structured_result", *outcome.structured);
  } else {
    line.set("status", "errored");
    line.set("error", json::Object{{"type", agent::subtype_name(outcome.subtype)}, {"message", outcome.error_message}});
    line.set("last_candidate", outcome.last_candidate ? *outcome.last_candidate : json::Value());
  }
  line.set("attempts", outcome.attempts);
  json::Array repairs;
  for (const auto& repair : outcome.repairs) repairs.push_back(repair::to_json(repair));
  line.set("repairs", std::move(repairs));
  line.set("usage", agent::usage_json(outcome.usage));
  line.set("duration_ms", outcome.duration_ms);
  return finish(line);
}

std::string input_error_line(OutputFormat format, const Row& row, InputErrorKind kind, std::string_view message) {
  const std::string_view type = input_error_type(kind);
  if (format == OutputFormat::OpenAi) return finish(openai_error_line(row, type, message));
  return finish(json::Object{{"custom_id", row.id},
                             {"line", static_cast<std::int64_t>(row.line)},
                             {"status", "errored"},
                             {"error", json::Object{{"type", type}, {"message", message}}},
                             {"attempts", 0}});
}

std::optional<RowKey> key_of_result_line(std::string_view text) {
  Result<json::Value> doc = json::parse(text);
  if (!doc || !doc->is_object()) return std::nullopt;
  const json::Value* id = doc->find("custom_id");
  if (id == nullptr || !id->is_string()) return std::nullopt;
  const json::Value* error = doc->find("error");
  if (error != nullptr && error->is_object()) {
    const json::Value* type = error->find("type");
    if (type == nullptr) type = error->find("code");
    const json::Value* line = doc->find("line");
    if (line == nullptr) line = error->find("line");
    if (type != nullptr && type->is_string() && type->as_string() == input_error_type(InputErrorKind::DuplicateId) &&
        line != nullptr && line->is_integer() && line->as_integer() >= 0)
      return key_of_duplicate(static_cast<std::uint64_t>(line->as_integer()));
  }
  return key_of_id(id->as_string());
}

}  // namespace weld::batch
