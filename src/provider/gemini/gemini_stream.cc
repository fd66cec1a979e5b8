// The Gemini generateContent reader (docs/protocols.md, "Codecs"), for
// `streamGenerateContent?alt=sse` chunks and whole `GenerateContentResponse`
// bodies: the first candidate's `content.parts` — `text` parts joined,
// `functionCall` parts each a whole call (`args` an object; a call without
// an `id` gets "call_weld_<n>"), other parts (thoughts, code) kept
// verbatim — its `finishReason`, `usageMetadata`, `responseId`,
// `modelVersion`; an `{"error":{code,message,status}}` body or event.
#include <string>

#include "../reader/fields.h"
#include "weld/json/parse.h"
#include "weld/json/serialize.h"
#include "weld/provider/gemini.h"

namespace weld::provider {
namespace {

using fields::integer_member;
using fields::object_member;
using fields::preview;
using fields::string_member;

// {"error":{"code":503,"message":…,"status":"UNAVAILABLE"}}: the message
// (with its status), and whether it may pass.
const json::Value* error_of(const json::Value& body) {
  const json::Value* error = body.find("error");
  return error != nullptr && error->is_object() ? error : nullptr;
}

std::string error_text(const json::Value& error) {
  std::string text;
  if (const std::string* message = string_member(&error, "message")) text = *message;
  if (const std::string* status = string_member(&error, "status")) text += (text.empty() ? "" : " (") + *status + (text.empty() ? "" : ")");
  return text.empty() ? json::serialize(error) : text;
}

bool transient(const json::Value& error) {
  const std::int64_t code = integer_member(&error, "code").value_or(0);
  const std::string* status = string_member(&error, "status");
  return code == 429 || code >= 500 ||
         (status != nullptr && (*status == "UNAVAILABLE" || *status == "RESOURCE_EXHAUSTED" || *status == "INTERNAL"));
}

void read_head(const json::Value& body, Response& response) {
  if (response.id.empty())
    if (const std::string* id = string_member(&body, "responseId")) response.id = *id;
  if (response.model.empty())
    if (const std::string* model = string_member(&body, "modelVersion")) response.model = *model;
  if (const json::Value* usage = object_member(&body, "usageMetadata")) {
    response.usage.input_tokens = integer_member(usage, "promptTokenCount").value_or(response.usage.input_tokens);
    response.usage.output_tokens = integer_member(usage, "candidatesTokenCount").value_or(response.usage.output_tokens);
    response.usage.cache_read_input_tokens =
        integer_member(usage, "cachedContentTokenCount").value_or(response.usage.cache_read_input_tokens);
  }
}

// The first candidate, or nullptr.
const json::Value* first_candidate(const json::Value& body) {
  const json::Value* candidates = body.find("candidates");
  if (candidates == nullptr || !candidates->is_array() || candidates->size() == 0) return nullptr;
  const json::Value& first = candidates->as_array()[0];
  return first.is_object() ? &first : nullptr;
}

// Appends the candidate's parts: text to `text`, calls to `calls`, others to
// `response.parts` verbatim. Returns whether anything was said.
bool read_parts(const json::Value& candidate, std::string& text, bool& has_text, std::vector<ToolCall>& calls,
                Response& response, const StreamObserver* observer) {
  const json::Value* content = object_member(&candidate, "content");
  const json::Value* parts = content != nullptr ? content->find("parts") : nullptr;
  if (parts == nullptr || !parts->is_array()) return false;
  bool said = false;
  for (const json::Value& part : parts->as_array()) {
    if (!part.is_object()) continue;
    if (const std::string* piece = string_member(&part, "text"); piece != nullptr && part.find("thought") == nullptr) {
      if (!has_text) response.parts.push_back(Part{Part::Kind::Text, {}, 0, {}});
      text += *piece;
      has_text = true;
      if (!piece->empty()) said = true;
      if (observer != nullptr && observer->on_text && !piece->empty()) observer->on_text(*piece);
    } else if (const json::Value* call = object_member(&part, "functionCall")) {
      ToolCall out;
      if (const std::string* id = string_member(call, "id")) out.id = *id;
      if (const std::string* name = string_member(call, "name")) out.name = *name;
      out.arguments = fields::arguments_text(call->find("args"));
      if (observer != nullptr && observer->on_tool_arguments && !out.arguments.empty())
        observer->on_tool_arguments(calls.size(), out.name, out.arguments);
      response.parts.push_back(Part{Part::Kind::ToolCall, {}, calls.size(), {}});
      calls.push_back(std::move(out));
      said = true;
    } else {
      response.parts.push_back(Part{Part::Kind::Other, {}, 0, part});
    }
  }
  return said;
}

void finish_message(Response& response, std::string text, std::vector<ToolCall> calls) {
  response.message.role = Role::Assistant;
  for (Part& part : response.parts)
    if (part.kind == Part::Kind::Text) part.text = text;
  response.message.text = std::move(text);
  std::size_t n = 0;
  for (ToolCall& call : calls) {
    ++n;
    // Gemini before 2.5 sends no call id; a result pairs with its call by it.
    if (call.id.empty()) call.id = "call_weld_" + std::to_string(n);
  }
  response.message.tool_calls = std::move(calls);
}

}  // namespace

Status GeminiStreamParser::feed(std::string_view bytes) {
  events_.clear();
  if (Status st = decoder_.feed(bytes, events_); !st) return st;
  for (const SseEvent& event : events_) {
    ++chunks_;
    auto chunk = json::parse(event.data);
    if (!chunk) {
      return Error{ErrorCode::Protocol,
                   "malformed JSON in stream chunk " + std::to_string(chunks_) + " (" + chunk.error().message +
                       " at " + chunk.error().where + "): " + json::quote(preview(event.data)),
                   ""};
    }
    if (observer_ != nullptr && observer_->on_event) observer_->on_event(*chunk);
    if (Status st = apply(*chunk); !st) return st;
  }
  return Ok{};
}

Status GeminiStreamParser::apply(const json::Value& chunk) {
  if (!chunk.is_object())
    return Error{ErrorCode::Protocol, "stream chunk is not a JSON object: " + preview(json::serialize(chunk)), ""};
  if (const json::Value* error = error_of(chunk)) {
    const ErrorCode code = !content_seen_ && transient(*error) ? ErrorCode::RetryableStream : ErrorCode::Http;
    return Error{code, "the server sent an error in the stream: " + error_text(*error), ""};
  }
  read_head(chunk, response_);
  const json::Value* candidate = first_candidate(chunk);
  if (candidate == nullptr) return Ok{};
  if (read_parts(*candidate, text_, has_text_, calls_, response_, observer_)) content_seen_ = true;
  if (const std::string* reason = string_member(candidate, "finishReason"); reason != nullptr && !reason->empty()) {
    response_.stop_reason = *reason;
    finished_ = true;
  }
  return Ok{};
}

Result<Response> GeminiStreamParser::finish() {
  if (Status st = feed("\n"); !st) return st.error();
  const bool partial = decoder_.finish();
  if (!finished_) {
    std::string message = "the response stream ended early: no `finishReason` after " + std::to_string(chunks_) +
                          " chunk" + (chunks_ == 1 ? "" : "s");
    if (partial) message += " (the last event was cut off)";
    return Error{.code = ErrorCode::Protocol, .message = message, .where = {}, .http_status = 0, .temporary = true};
  }
  Response response = std::move(response_);
  finish_message(response, std::move(text_), std::move(calls_));
  return response;
}

Result<Response> gemini_response_from_json(const json::Value& body) {
  if (!body.is_object()) return Error{ErrorCode::Protocol, "the response body is not a JSON object", ""};
  if (const json::Value* error = error_of(body))
    return Error{ErrorCode::Http, "the server answered with an error: " + error_text(*error), ""};
  const json::Value* candidate = first_candidate(body);
  if (candidate == nullptr) return Error{ErrorCode::Protocol, "the response has no `candidates`", ""};
  Response response;
  read_head(body, response);
  std::string text;
  bool has_text = false;
  std::vector<ToolCall> calls;
  read_parts(*candidate, text, has_text, calls, response, nullptr);
  if (const std::string* reason = string_member(candidate, "finishReason")) response.stop_reason = *reason;
  finish_message(response, std::move(text), std::move(calls));
  return response;
}

}  // namespace weld::provider
