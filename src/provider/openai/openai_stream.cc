// Parsing the OpenAI Chat Completions stream (issue 3). Quirks handled, from
// the real servers: the tool-call id and name come only in the first
// fragment of a call (OpenAI, vLLM) or in every fragment (some compatible
// servers): an id/name replaces, arguments concatenate (as the official SDK's
// accumulator does); calls are keyed by `index`, falling back to the id when
// a server omits it; the usage chunk has empty `choices`; a server may send
// an `{"error":…}` object (OpenAI) or `{"object":"error",…}` (vLLM) mid-stream.
#include <algorithm>
#include <string>

#include "weld/json/parse.h"
#include "weld/json/serialize.h"
#include "weld/provider/openai.h"

namespace weld::provider {
namespace {

std::string preview(std::string_view text) {
  if (text.size() <= 120) return std::string(text);
  return std::string(text.substr(0, 120)) + "…";
}

const std::string* string_member(const json::Value& object, std::string_view key) {
  const json::Value* v = object.find(key);
  return v && v->is_string() ? &v->as_string() : nullptr;
}

std::int64_t integer_member(const json::Value* object, std::string_view key) {
  if (!object) return 0;
  const json::Value* v = object->find(key);
  if (!v || !v->is_number()) return 0;
  if (v->is_integer()) return v->as_integer();
  // A count sent as a real ("12.0") is accepted; one outside int64 (found by
  // fuzz/sse_fuzz.cc: converting it is undefined behaviour) is ignored.
  double real = v->as_real();
  if (!(real >= -9.0e18 && real <= 9.0e18)) return 0;
  return static_cast<std::int64_t>(real);
}

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

}  // namespace

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
      return Error{"protocol",
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

OpenAiStreamParser::Slot& OpenAiStreamParser::slot_for(const json::Value& delta_call) {
  const json::Value* index = delta_call.find("index");
  if (index && index->is_integer()) {
    for (Slot& slot : slots_)
      if (slot.index == index->as_integer()) return slot;
    slots_.push_back(Slot{index->as_integer(), {}});
    return slots_.back();
  }
  // No index: a new id starts a new call, otherwise it continues the last.
  const std::string* id = string_member(delta_call, "id");
  if (id && !id->empty()) {
    for (Slot& slot : slots_)
      if (slot.call.id == *id) return slot;
    slots_.push_back(Slot{static_cast<std::int64_t>(slots_.size()), {}});
    return slots_.back();
  }
  if (slots_.empty()) slots_.push_back(Slot{0, {}});
  return slots_.back();
}

Status OpenAiStreamParser::apply(const json::Value& chunk) {
  if (!chunk.is_object())
    return Error{"protocol", "stream chunk is not a JSON object: " + preview(json::serialize(chunk)), ""};
  const json::Value* error = chunk.find("error");
  const std::string* object = string_member(chunk, "object");
  if ((error && !error->is_null()) || (object && *object == "error")) {
    const json::Value& detail = error && error->is_object() ? *error : chunk;
    std::string message;
    if (const std::string* m = string_member(detail, "message")) message = *m;
    else if (error && error->is_string()) message = error->as_string();
    else message = json::serialize(detail);
    std::string code = !content_seen_ && transient_error(detail) ? std::string(kRetryableStreamError)
                                                                  : std::string("http");
    return Error{code, "the server sent an error in the stream: " + message, ""};
  }
  if (const std::string* id = string_member(chunk, "id"); id && response_.id.empty())
    response_.id = *id;
  if (const json::Value* usage = chunk.find("usage"); usage && usage->is_object()) {
    response_.usage.input_tokens = integer_member(usage, "prompt_tokens");
    response_.usage.output_tokens = integer_member(usage, "completion_tokens");
    response_.usage.cache_read_input_tokens =
        integer_member(usage->find("prompt_tokens_details"), "cached_tokens");
  }
  const json::Value* choices = chunk.find("choices");
  if (!choices || !choices->is_array()) return Ok{};
  for (const json::Value& choice : choices->as_array()) {
    if (!choice.is_object()) continue;
    // weld asks for one choice; others (n > 1) are ignored.
    if (integer_member(&choice, "index") != 0) continue;
    if (const json::Value* delta = choice.find("delta"); delta && delta->is_object()) {
      if (const std::string* content = string_member(*delta, "content")) {
        response_.message.text += *content;
        if (!content->empty()) content_seen_ = true;
        if (observer_ && observer_->on_text && !content->empty()) observer_->on_text(*content);
      }
      if (const std::string* refusal = string_member(*delta, "refusal")) {
        response_.message.text += *refusal;
        if (!refusal->empty()) content_seen_ = true;
      }
      if (const json::Value* calls = delta->find("tool_calls"); calls && calls->is_array()) {
        for (const json::Value& call : calls->as_array()) {
          if (!call.is_object()) continue;
          content_seen_ = true;
          Slot& slot = slot_for(call);
          if (const std::string* id = string_member(call, "id"); id && !id->empty())
            slot.call.id = *id;
          const json::Value* function = call.find("function");
          if (!function || !function->is_object()) continue;
          if (const std::string* name = string_member(*function, "name"); name && !name->empty())
            slot.call.name = *name;
          if (const json::Value* args = function->find("arguments")) {
            const std::size_t before = slot.call.arguments.size();
            if (args->is_string()) slot.call.arguments += args->as_string();
            else if (!args->is_null()) slot.call.arguments += json::serialize(*args);
            if (observer_ && observer_->on_tool_arguments && slot.call.arguments.size() > before) {
              observer_->on_tool_arguments(static_cast<std::size_t>(&slot - slots_.data()), slot.call.name,
                                           std::string_view(slot.call.arguments).substr(before));
            }
          }
        }
      }
    }
    if (const std::string* finish = string_member(choice, "finish_reason"); finish && !finish->empty())
      response_.stop_reason = *finish;
  }
  return Ok{};
}

Result<Response> OpenAiStreamParser::finish() {
  bool partial = decoder_.finish();
  if (!done_) {
    std::string message = "the response stream ended early: no `data: [DONE]` after " +
                          std::to_string(chunks_) + " chunk" + (chunks_ == 1 ? "" : "s");
    if (partial) message += " (the last event was cut off)";
    return Error{"protocol", message, ""};
  }
  std::stable_sort(slots_.begin(), slots_.end(),
                   [](const Slot& a, const Slot& b) { return a.index < b.index; });
  Response response = std::move(response_);
  std::size_t n = 0;
  for (Slot& slot : slots_) {
    ++n;
    // Some servers (older llama.cpp, Ollama) send no call id; the run loop
    // needs one to pair the result.
    if (slot.call.id.empty()) slot.call.id = "call_weld_" + std::to_string(n);
    response.message.tool_calls.push_back(std::move(slot.call));
  }
  response.message.role = Role::Assistant;
  return response;
}

}  // namespace weld::provider

namespace weld::provider {

Result<Response> openai_response_from_json(const json::Value& body) {
  if (!body.is_object()) return Error{"protocol", "the response body is not a JSON object", ""};
  const json::Value* error = body.find("error");
  const std::string* object = string_member(body, "object");
  if ((error && !error->is_null()) || (object && *object == "error")) {
    const json::Value& detail = error && error->is_object() ? *error : body;
    const std::string* message = string_member(detail, "message");
    return Error{"http", "the server answered with an error: " + (message ? *message : json::serialize(detail)), ""};
  }
  const json::Value* choices = body.find("choices");
  if (!choices || !choices->is_array() || choices->size() == 0 || !choices->as_array()[0].is_object())
    return Error{"protocol", "the response has no `choices`", ""};
  const json::Value& choice = choices->as_array()[0];
  Response response;
  response.message.role = Role::Assistant;
  if (const std::string* id = string_member(body, "id")) response.id = *id;
  if (const std::string* finish = string_member(choice, "finish_reason")) response.stop_reason = *finish;
  if (const json::Value* message = choice.find("message"); message && message->is_object()) {
    if (const std::string* content = string_member(*message, "content")) response.message.text = *content;
    if (const json::Value* calls = message->find("tool_calls"); calls && calls->is_array()) {
      std::size_t n = 0;
      for (const json::Value& call : calls->as_array()) {
        if (!call.is_object()) continue;
        ++n;
        ToolCall out;
        if (const std::string* id = string_member(call, "id")) out.id = *id;
        if (out.id.empty()) out.id = "call_weld_" + std::to_string(n);
        if (const json::Value* function = call.find("function"); function && function->is_object()) {
          if (const std::string* name = string_member(*function, "name")) out.name = *name;
          if (const json::Value* args = function->find("arguments")) {
            if (args->is_string()) out.arguments = args->as_string();
            else if (!args->is_null()) out.arguments = json::serialize(*args);
          }
        }
        response.message.tool_calls.push_back(std::move(out));
      }
    }
  }
  if (const json::Value* usage = body.find("usage"); usage && usage->is_object()) {
    response.usage.input_tokens = integer_member(usage, "prompt_tokens");
    response.usage.output_tokens = integer_member(usage, "completion_tokens");
    response.usage.cache_read_input_tokens = integer_member(usage->find("prompt_tokens_details"), "cached_tokens");
  }
  return response;
}

}  // namespace weld::provider
