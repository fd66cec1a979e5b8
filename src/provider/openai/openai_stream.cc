// The OpenAI Chat Completions reader (docs/protocols.md), for streamed
// `chat.completion.chunk`s and whole `chat.completion` bodies. Quirks
// handled, from the real servers: the tool-call id and name come only in the
// first fragment of a call (OpenAI, vLLM) or in every fragment (some
// compatible servers): an id/name replaces, arguments concatenate (as the
// official SDK's accumulator does); calls are keyed by `index`, falling back
// to the id when a server omits it; the usage chunk has empty `choices`; a
// server may send an `{"error":…}` object (OpenAI) or `{"object":"error",…}`
// (vLLM) mid-stream; arguments may be an object (Ollama) and content an array
// of text parts.
#include <algorithm>
#include <string>

#include "../reader/fields.h"
#include "weld/json/parse.h"
#include "weld/json/serialize.h"
#include "weld/provider/openai.h"

namespace weld::provider {
namespace {

using fields::integer_member;
using fields::preview;
using fields::string_member;

bool transient_error(const json::Value& error) {
  for (const char* key : {"type", "code"}) {
    const json::Value* v = error.find(key);
    if (!v) continue;
    if (v->is_string()) {
      const std::string& s = v->as_string();
      if (s == "server_error" || s == "overloaded_error" || s == "rate_limit_exceeded" ||
          s == "rate_limit_error" || s == "api_error" || s == "service_unavailable")
        return true;
    } else if (v->is_integer()) {
      std::int64_t code = v->as_integer();
      if (code == 429 || code >= 500) return true;
    }
  }
  return false;
}

// The error a body or chunk carries ({"error":…} or vLLM's
// {"object":"error",…}), or nullptr.
const json::Value* error_detail(const json::Value& body) {
  const json::Value* error = body.find("error");
  const std::string* object = string_member(&body, "object");
  if ((error && !error->is_null()) || (object && *object == "error"))
    return error && error->is_object() ? error : &body;
  return nullptr;
}

std::string error_message(const json::Value& body, const json::Value& detail) {
  if (const std::string* m = string_member(&detail, "message")) return *m;
  const json::Value* error = body.find("error");
  if (error && error->is_string()) return error->as_string();
  return json::serialize(detail);
}

void read_usage(const json::Value* usage, Usage& out) {
  if (!usage || !usage->is_object()) return;
  out.input_tokens = integer_member(usage, "prompt_tokens").value_or(0);
  out.output_tokens = integer_member(usage, "completion_tokens").value_or(0);
  out.cache_read_input_tokens =
      integer_member(fields::object_member(usage, "prompt_tokens_details"), "cached_tokens").value_or(0);
}

void read_head(const json::Value& body, Response& response) {
  if (response.id.empty())
    if (const std::string* id = string_member(&body, "id")) response.id = *id;
  if (response.model.empty())
    if (const std::string* model = string_member(&body, "model")) response.model = *model;
  if (response.created == 0) response.created = integer_member(&body, "created").value_or(0);
}

// `message.content` / `delta.content`: a string, or (some servers) an array
// of {type:"text", text} parts; nullopt when null or absent.
std::optional<std::string> content_text(const json::Value* content) {
  if (content == nullptr || content->is_null()) return std::nullopt;
  if (content->is_string()) return content->as_string();
  if (!content->is_array()) return std::nullopt;
  std::string out;
  for (const json::Value& part : content->as_array())
    if (const std::string* text = string_member(&part, "text")) out += *text;
  return out;
}

void finish_message(Response& response, std::string text, bool has_text, std::vector<ToolCall> calls) {
  response.message.role = Role::Assistant;
  response.message.text = std::move(text);
  response.message.text += response.refusal;
  if (has_text || !response.refusal.empty())
    response.parts.push_back(Part{Part::Kind::Text, response.message.text, 0, {}});
  std::size_t n = 0;
  for (ToolCall& call : calls) {
    ++n;
    // Some servers (older llama.cpp, Ollama) send no call id; a tool result
    // needs one to pair with its call.
    if (call.id.empty()) call.id = "call_weld_" + std::to_string(n);
    response.parts.push_back(Part{Part::Kind::ToolCall, {}, response.message.tool_calls.size(), {}});
    response.message.tool_calls.push_back(std::move(call));
  }
}

}  // namespace

OpenAiStreamParser::Slot& OpenAiStreamParser::slot_for(const json::Value& delta_call) {
  const json::Value* index = delta_call.find("index");
  if (index && index->is_integer()) {
    for (Slot& slot : slots_)
      if (slot.index == index->as_integer()) return slot;
    slots_.push_back(Slot{index->as_integer(), {}});
    return slots_.back();
  }
  // No index: a new id starts a new call, otherwise it continues the last.
  const std::string* id = string_member(&delta_call, "id");
  if (id && !id->empty()) {
    for (Slot& slot : slots_)
      if (slot.call.id == *id) return slot;
    slots_.push_back(Slot{static_cast<std::int64_t>(slots_.size()), {}});
    return slots_.back();
  }
  if (slots_.empty()) slots_.push_back(Slot{0, {}});
  return slots_.back();
}

Status OpenAiStreamParser::feed(std::string_view bytes) {
  events_.clear();
  if (Status st = decoder_.feed(bytes, events_); !st) return st;
  for (const SseEvent& event : events_) {
    if (done_) break;  // anything after [DONE] is ignored
    std::string_view data = event.data;
    while (!data.empty() && (data.back() == ' ' || data.back() == '\t')) data.remove_suffix(1);
    if (data == "[DONE]") {
      done_ = true;
      break;
    }
    ++chunks_;
    auto chunk = json::parse(data);
    if (!chunk) {
      return Error{ErrorCode::Protocol,
                   "malformed JSON in stream chunk " + std::to_string(chunks_) + " (" +
                       chunk.error().message + " at " + chunk.error().where +
                       "): " + json::quote(preview(data)),
                   ""};
    }
    if (observer_ && observer_->on_event) observer_->on_event(*chunk);
    if (Status st = apply(*chunk); !st) return st;
  }
  return Ok{};
}

Status OpenAiStreamParser::apply(const json::Value& chunk) {
  if (!chunk.is_object())
    return Error{ErrorCode::Protocol, "stream chunk is not a JSON object: " + preview(json::serialize(chunk)), ""};
  if (const json::Value* detail = error_detail(chunk)) {
    const ErrorCode code =
        !content_seen_ && transient_error(*detail) ? ErrorCode::RetryableStream : ErrorCode::Http;
    return Error{code, "the server sent an error in the stream: " + error_message(chunk, *detail), ""};
  }
  read_head(chunk, response_);
  read_usage(chunk.find("usage"), response_.usage);
  const json::Value* choices = chunk.find("choices");
  if (!choices || !choices->is_array()) return Ok{};
  for (const json::Value& choice : choices->as_array()) {
    if (!choice.is_object()) continue;
    // weld asks for one choice; others (n > 1) are ignored.
    if (integer_member(&choice, "index").value_or(0) != 0) continue;
    if (const json::Value* delta = choice.find("delta"); delta && delta->is_object()) {
      if (auto content = content_text(delta->find("content"))) {
        text_ += *content;
        has_text_ = true;
        if (!content->empty()) content_seen_ = true;
        if (observer_ && observer_->on_text && !content->empty()) observer_->on_text(*content);
      }
      if (const std::string* refusal = string_member(delta, "refusal")) {
        response_.refusal += *refusal;
        if (!refusal->empty()) content_seen_ = true;
      }
      if (const json::Value* calls = delta->find("tool_calls"); calls && calls->is_array()) {
        for (const json::Value& call : calls->as_array()) {
          if (!call.is_object()) continue;
          content_seen_ = true;
          Slot& slot = slot_for(call);
          if (const std::string* id = string_member(&call, "id"); id && !id->empty()) slot.call.id = *id;
          const json::Value* function = call.find("function");
          if (!function || !function->is_object()) continue;
          if (const std::string* name = string_member(function, "name"); name && !name->empty())
            slot.call.name = *name;
          const std::size_t before = slot.call.arguments.size();
          slot.call.arguments += fields::arguments_text(function->find("arguments"));
          if (observer_ && observer_->on_tool_arguments && slot.call.arguments.size() > before) {
            observer_->on_tool_arguments(static_cast<std::size_t>(&slot - slots_.data()), slot.call.name,
                                         std::string_view(slot.call.arguments).substr(before));
          }
        }
      }
    }
    if (const std::string* finish = string_member(&choice, "finish_reason"); finish && !finish->empty()) {
      response_.stop_reason = *finish;
      finished_ = true;
    }
  }
  return Ok{};
}

Result<Response> OpenAiStreamParser::finish() {
  // A last event whose lines are complete but that lacks its blank line is
  // dispatched by this one line end (a cut-off line stays cut off).
  if (Status st = feed("\n"); !st) return st.error();
  bool partial = decoder_.finish();
  // The answer is complete when the model finished (`finish_reason`) or the
  // server closed the stream (`data: [DONE]`); without either it was cut
  // (docs/protocols.md, "End of stream").
  if (!done_ && !finished_) {
    std::string message = "the response stream ended early: no `finish_reason` and no `data: [DONE]` after " +
                          std::to_string(chunks_) + " chunk" + (chunks_ == 1 ? "" : "s");
    if (partial) message += " (the last event was cut off)";
    return Error{.code = ErrorCode::Protocol, .message = message, .where = {}, .http_status = 0, .temporary = true};
  }
  std::stable_sort(slots_.begin(), slots_.end(),
                   [](const Slot& a, const Slot& b) { return a.index < b.index; });
  std::vector<ToolCall> calls;
  calls.reserve(slots_.size());
  for (Slot& slot : slots_) calls.push_back(std::move(slot.call));
  Response response = std::move(response_);
  finish_message(response, std::move(text_), has_text_, std::move(calls));
  return response;
}

bool OpenAiStreamParser::ended() const { return done_ || finished_; }

Result<Response> openai_response_from_json(const json::Value& body) {
  if (!body.is_object()) return Error{ErrorCode::Protocol, "the response body is not a JSON object", ""};
  if (const json::Value* detail = error_detail(body))
    return Error{ErrorCode::Http, "the server answered with an error: " + error_message(body, *detail), ""};
  const json::Value* choices = body.find("choices");
  if (!choices || !choices->is_array() || choices->size() == 0 || !choices->as_array()[0].is_object())
    return Error{ErrorCode::Protocol, "the response has no `choices`", ""};
  const json::Value& choice = choices->as_array()[0];
  Response response;
  read_head(body, response);
  read_usage(body.find("usage"), response.usage);
  if (const std::string* finish = string_member(&choice, "finish_reason")) response.stop_reason = *finish;
  std::string text;
  bool has_text = false;
  std::vector<ToolCall> calls;
  if (const json::Value* message = fields::object_member(&choice, "message")) {
    if (auto content = content_text(message->find("content"))) {
      text = std::move(*content);
      has_text = true;
    }
    if (const std::string* refusal = string_member(message, "refusal")) response.refusal = *refusal;
    if (const json::Value* list = message->find("tool_calls"); list && list->is_array()) {
      for (const json::Value& call : list->as_array()) {
        if (!call.is_object()) continue;
        ToolCall out;
        if (const std::string* id = string_member(&call, "id")) out.id = *id;
        if (const json::Value* function = fields::object_member(&call, "function")) {
          if (const std::string* name = string_member(function, "name")) out.name = *name;
          out.arguments = fields::arguments_text(function->find("arguments"));
        }
        calls.push_back(std::move(out));
      }
    }
  }
  finish_message(response, std::move(text), has_text, std::move(calls));
  return response;
}

}  // namespace weld::provider
