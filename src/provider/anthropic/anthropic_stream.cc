// Parsing the Anthropic Messages stream (issue 3): message_start,
// content_block_start/delta/stop, message_delta, message_stop, ping, error.
// The event kind is taken from the JSON "type" (always present in the real
// API), falling back to the SSE `event:` name. Compatible servers sometimes
// put a tool's whole input in content_block_start and send no deltas; that
// input is used when no partial_json arrives.
#include <string>

#include "weld/json/parse.h"
#include "weld/json/serialize.h"
#include "weld/provider/anthropic.h"

namespace weld::provider {
namespace {

std::string preview(std::string_view text) {
  if (text.size() <= 120) return std::string(text);
  return std::string(text.substr(0, 120)) + "…";
}

const std::string* string_member(const json::Value* object, std::string_view key) {
  if (!object) return nullptr;
  const json::Value* v = object->find(key);
  return v && v->is_string() ? &v->as_string() : nullptr;
}

std::optional<std::int64_t> integer_member(const json::Value* object, std::string_view key) {
  if (!object) return std::nullopt;
  const json::Value* v = object->find(key);
  if (!v || !v->is_number()) return std::nullopt;
  if (v->is_integer()) return v->as_integer();
  // A count sent as a real ("12.0") is accepted; one outside int64 (found by
  // fuzz/sse_fuzz.cc: converting it is undefined behaviour) is ignored.
  double real = v->as_real();
  if (!(real >= -9.0e18 && real <= 9.0e18)) return std::nullopt;
  return static_cast<std::int64_t>(real);
}

void read_usage(const json::Value* usage, Usage& out) {
  if (!usage || !usage->is_object()) return;
  if (auto v = integer_member(usage, "input_tokens")) out.input_tokens = *v;
  if (auto v = integer_member(usage, "output_tokens")) out.output_tokens = *v;
  if (auto v = integer_member(usage, "cache_read_input_tokens")) out.cache_read_input_tokens = *v;
  if (auto v = integer_member(usage, "cache_creation_input_tokens"))
    out.cache_creation_input_tokens = *v;
}

}  // namespace

Status AnthropicStreamParser::feed(std::string_view bytes) {
  events_.clear();
  if (Status st = decoder_.feed(bytes, events_); !st) return st;
  for (const SseEvent& event : events_) {
    if (done_) break;
    auto parsed = json::parse(event.data);
    if (!parsed) {
      return Error{"protocol",
                   "malformed JSON in stream event `" + event.type + "` (" + parsed.error().message +
                       " at " + parsed.error().where + "): " + json::quote(preview(event.data)),
                   ""};
    }
    if (observer_ && observer_->on_event) observer_->on_event(*parsed);
    if (Status st = apply(event.type, *parsed); !st) return st;
  }
  return Ok{};
}

Status AnthropicStreamParser::apply(std::string_view sse_type, const json::Value& event) {
  if (!event.is_object())
    return Error{"protocol", "stream event is not a JSON object: " + preview(json::serialize(event)), ""};
  std::string type(sse_type);
  if (const std::string* t = string_member(&event, "type")) type = *t;

  if (type == "ping") return Ok{};
  if (type == "error") {
    const json::Value* error = event.find("error");
    std::string kind, message;
    if (const std::string* k = string_member(error, "type")) kind = *k;
    if (const std::string* m = string_member(error, "message")) message = *m;
    if (message.empty()) message = json::serialize(event);
    bool transient = kind == "overloaded_error" || kind == "api_error" || kind == "rate_limit_error";
    std::string text = "the server sent an error in the stream: " + message;
    if (!kind.empty()) text += " (" + kind + ")";
    return Error{transient && !content_seen_ ? std::string(kRetryableStreamError) : "http", text, ""};
  }
  if (type == "message_start") {
    const json::Value* message = event.find("message");
    if (const std::string* id = string_member(message, "id")) response_.id = *id;
    if (message) read_usage(message->find("usage"), response_.usage);
    started_ = true;
    return Ok{};
  }
  if (!started_ && type != "message_stop")
    return Error{"protocol", "stream event `" + type + "` before message_start", ""};
  if (type == "content_block_start") {
    auto index = integer_member(&event, "index").value_or(static_cast<std::int64_t>(blocks_.size()));
    const json::Value* block = event.find("content_block");
    Block& state = blocks_[index];
    const std::string* block_type = string_member(block, "type");
    if (block_type && *block_type == "text") {
      state.kind = Block::Kind::Text;
      if (const std::string* text = string_member(block, "text")) {
        response_.message.text += *text;
        if (!text->empty()) content_seen_ = true;
      }
    } else if (block_type && *block_type == "tool_use") {
      state.kind = Block::Kind::ToolUse;
      content_seen_ = true;
      ToolCall call;
      if (const std::string* id = string_member(block, "id")) call.id = *id;
      if (const std::string* name = string_member(block, "name")) call.name = *name;
      if (const json::Value* input = block->find("input"); input && !input->is_null()) {
        if (input->is_string()) state.initial_input = input->as_string();
        else if (!(input->is_object() && input->size() == 0)) state.initial_input = json::serialize(*input);
      }
      state.call_index = response_.message.tool_calls.size();
      response_.message.tool_calls.push_back(std::move(call));
    }
    // thinking, redacted_thinking, server tool blocks: not part of Message.
    return Ok{};
  }
  if (type == "content_block_delta") {
    auto index = integer_member(&event, "index").value_or(0);
    auto found = blocks_.find(index);
    if (found == blocks_.end())
      return Error{"protocol",
                   "content_block_delta for block " + std::to_string(index) +
                       " without content_block_start",
                   ""};
    Block& state = found->second;
    const json::Value* delta = event.find("delta");
    const std::string* delta_type = string_member(delta, "type");
    if (!delta_type) return Ok{};
    if (*delta_type == "text_delta" && state.kind == Block::Kind::Text) {
      if (const std::string* text = string_member(delta, "text")) {
        response_.message.text += *text;
        if (!text->empty()) content_seen_ = true;
        if (observer_ && observer_->on_text && !text->empty()) observer_->on_text(*text);
      }
    } else if (*delta_type == "input_json_delta" && state.kind == Block::Kind::ToolUse) {
      if (const std::string* part = string_member(delta, "partial_json")) {
        ToolCall& call = response_.message.tool_calls[state.call_index];
        call.arguments += *part;
        state.got_delta = true;
        if (observer_ && observer_->on_tool_arguments && !part->empty())
          observer_->on_tool_arguments(state.call_index, call.name, *part);
      }
    }
    return Ok{};
  }
  if (type == "content_block_stop") {
    auto index = integer_member(&event, "index").value_or(0);
    auto found = blocks_.find(index);
    if (found != blocks_.end() && found->second.kind == Block::Kind::ToolUse) {
      Block& state = found->second;
      ToolCall& call = response_.message.tool_calls[state.call_index];
      if (!state.got_delta && call.arguments.empty()) call.arguments = state.initial_input;
    }
    return Ok{};
  }
  if (type == "message_delta") {
    const json::Value* delta = event.find("delta");
    if (const std::string* reason = string_member(delta, "stop_reason")) response_.stop_reason = *reason;
    read_usage(event.find("usage"), response_.usage);
    return Ok{};
  }
  if (type == "message_stop") {
    done_ = true;
    return Ok{};
  }
  return Ok{};  // unknown events are ignored, as the API's versioning policy asks
}

Result<Response> AnthropicStreamParser::finish() {
  bool partial = decoder_.finish();
  if (!done_) {
    std::string message = "the response stream ended early: no `message_stop` event";
    if (!started_) message += " (not even `message_start`)";
    if (partial) message += "; the last event was cut off";
    return Error{"protocol", message, ""};
  }
  // A tool_use block never closed by content_block_stop still gets the
  // input its start event carried.
  for (auto& [index, state] : blocks_) {
    if (state.kind != Block::Kind::ToolUse) continue;
    ToolCall& call = response_.message.tool_calls[state.call_index];
    if (!state.got_delta && call.arguments.empty()) call.arguments = state.initial_input;
  }
  Response response = std::move(response_);
  response.message.role = Role::Assistant;
  return response;
}

}  // namespace weld::provider

namespace weld::provider {

Result<Response> anthropic_response_from_json(const json::Value& body) {
  if (!body.is_object()) return Error{"protocol", "the response body is not a JSON object", ""};
  const std::string* type = string_member(&body, "type");
  if (type && *type == "error") {
    const json::Value* error = body.find("error");
    const std::string* message = string_member(error, "message");
    return Error{"http", "the server answered with an error: " + (message ? *message : json::serialize(body)), ""};
  }
  const json::Value* content = body.find("content");
  if (!content || !content->is_array()) return Error{"protocol", "the response has no `content`", ""};
  Response response;
  response.message.role = Role::Assistant;
  if (const std::string* id = string_member(&body, "id")) response.id = *id;
  if (const std::string* reason = string_member(&body, "stop_reason")) response.stop_reason = *reason;
  read_usage(body.find("usage"), response.usage);
  for (const json::Value& block : content->as_array()) {
    const std::string* block_type = string_member(&block, "type");
    if (!block_type) continue;
    if (*block_type == "text") {
      if (const std::string* text = string_member(&block, "text")) response.message.text += *text;
    } else if (*block_type == "tool_use") {
      ToolCall call;
      if (const std::string* id = string_member(&block, "id")) call.id = *id;
      if (const std::string* name = string_member(&block, "name")) call.name = *name;
      if (const json::Value* input = block.find("input"); input && !input->is_null())
        call.arguments = input->is_string() ? input->as_string() : json::serialize(*input);
      response.message.tool_calls.push_back(std::move(call));
    }
  }
  return response;
}

}  // namespace weld::provider
