// Result lines (docs/batch.md, "Output"). weld's shape carries what the
// run's envelope carries (docs/run.md, "Output formats") for one row; the OpenAI shape is the Batch API's output
// line, whose body is a chat completion with the JSON as message content, so
// readers of OpenAI or vLLM batch results read weld's unchanged.

#include "weld/batch/result_line.h"

#include <cstdio>
#include <random>

#include "weld/agent/output.h"
#include "weld/base/clock.h"
#include "weld/base/random.h"
#include "weld/json/parse.h"
#include "weld/json/serialize.h"
#include "weld/provider/codec.h"
#include "weld/repair/repair.h"

namespace weld::batch {
namespace {

// 24 random hex digits for the OpenAI shape's ids (they identify a request,
// they carry nothing).
std::string random_hex() {
  std::mt19937_64& engine = thread_random();
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

// Every result line starts with one of these (is_result_line_start).
constexpr std::string_view kWeldStart = R"({"custom_id":)";
constexpr std::string_view kOpenAiStart = R"({"id":"batch_req_)";

json::Value custom_id(const Row& row) { return row.id_from_line ? json::Value(nullptr) : json::Value(row.id); }

json::Value openai_line(const Row& row, json::Value response, json::Value error) {
  return json::Object{{"id", "batch_req_" + random_hex()},
                      {"custom_id", custom_id(row)},
                      {"line", static_cast<std::int64_t>(row.line)},
                      {"response", std::move(response)},
                      {"error", std::move(error)}};
}

json::Value openai_error_line(const Row& row, std::string_view type, std::string_view message) {
  return openai_line(row, nullptr, json::Object{{"code", type}, {"message", message}});
}

}  // namespace

std::optional<OutputFormat> parse_output_format(std::string_view text) {
  if (text == "weld") return OutputFormat::Weld;
  if (text == "openai") return OutputFormat::OpenAi;
  return std::nullopt;
}

bool row_succeeded(const agent::RunOutcome& outcome) {
  return outcome.subtype == agent::Subtype::Success && outcome.structured.has_value();
}

std::string run_result_line(OutputFormat format, const Row& row, const agent::RunOutcome& outcome,
                            std::string_view model) {
  const bool success = row_succeeded(outcome);
  if (format == OutputFormat::OpenAi) {
    if (!success) return finish(openai_error_line(row, agent::subtype_name(outcome.subtype), outcome.error_message));
    // The body is the chat completion the proxy answers too, written by the
    // OpenAI Chat codec (docs/protocols.md, "Codecs").
    provider::AnswerHead head;
    head.id = "chatcmpl-" + random_hex();
    head.model = std::string(model);
    head.created = unix_seconds();
    Result<json::Value> body = json::parse(provider::codec_for(provider::Protocol::OpenAiChat)
                                               .answer(head, json::serialize(*outcome.structured), outcome.usage));
    return finish(openai_line(
        row, json::Object{{"status_code", 200}, {"request_id", "req_" + random_hex()}, {"body", std::move(*body)}},
        nullptr));
  }
  json::Value line = json::Object{{"custom_id", custom_id(row)}, {"line", static_cast<std::int64_t>(row.line)}};
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
  return finish(json::Object{{"custom_id", custom_id(row)},
                             {"line", static_cast<std::int64_t>(row.line)},
                             {"status", "errored"},
                             {"error", json::Object{{"type", type}, {"message", message}}},
                             {"attempts", 0}});
}

namespace {

bool is_string(const json::Value* value) { return value != nullptr && value->is_string(); }

// An error object: {"type"|"code": string, "message": string}; its type.
const json::Value* error_type(const json::Value* error, std::string_view type_member) {
  if (error == nullptr || !error->is_object()) return nullptr;
  const json::Value* type = error->find(type_member);
  return is_string(type) && is_string(error->find("message")) ? type : nullptr;
}

}  // namespace

std::optional<ResultLineInfo> read_result_line(std::string_view text) {
  if (!is_result_line_start(text)) return std::nullopt;
  Result<json::Value> doc = json::parse(text);
  if (!doc || !doc->is_object()) return std::nullopt;
  const json::Value* id = doc->find("custom_id");
  const json::Value* line = doc->find("line");
  if (id == nullptr || !(id->is_null() || (id->is_string() && !id->as_string().empty()))) return std::nullopt;
  if (line == nullptr || !line->is_integer() || line->as_integer() < 1) return std::nullopt;
  ResultLineInfo info;
  const json::Value* type = nullptr;
  if (is_string(doc->find("id"))) {
    // The OpenAI Batch output shape: exactly one of response and error.
    const json::Value* response = doc->find("response");
    const json::Value* error = doc->find("error");
    if (response == nullptr || error == nullptr || doc->find("id")->as_string().rfind("batch_req_", 0) != 0)
      return std::nullopt;
    info.format = OutputFormat::OpenAi;
    if (response->is_null()) {
      type = error_type(error, "code");
      if (type == nullptr) return std::nullopt;
      info.errored = true;
    } else {
      const json::Value* status = response->is_object() ? response->find("status_code") : nullptr;
      const json::Value* body = response->is_object() ? response->find("body") : nullptr;
      if (!error->is_null() || status == nullptr || !status->is_integer() || body == nullptr || !body->is_object())
        return std::nullopt;
    }
  } else {
    // weld's shape: a status, then what it carries.
    const json::Value* status = doc->find("status");
    const json::Value* attempts = doc->find("attempts");
    if (!is_string(status) || attempts == nullptr || !attempts->is_integer()) return std::nullopt;
    if (status->as_string() == "succeeded") {
      if (doc->find("structured_result") == nullptr || doc->find("error") != nullptr) return std::nullopt;
    } else if (status->as_string() == "errored") {
      type = error_type(doc->find("error"), "type");
      if (type == nullptr) return std::nullopt;
      info.errored = true;
    } else {
      return std::nullopt;
    }
  }
  const auto number = static_cast<std::uint64_t>(line->as_integer());
  if (type != nullptr && type->as_string() == input_error_type(InputErrorKind::DuplicateId))
    info.key = key_of_duplicate(number);
  else
    info.key = id->is_null() ? key_of_line(number) : key_of_id(id->as_string());
  return info;
}

bool is_result_line_start(std::string_view bytes) {
  auto starts = [&](std::string_view start) {
    const std::size_t n = std::min(bytes.size(), start.size());
    return n > 0 && bytes.substr(0, n) == start.substr(0, n);
  };
  return starts(kWeldStart) || starts(kOpenAiStart);
}

}  // namespace weld::batch
