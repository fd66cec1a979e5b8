// The Anthropic Messages reader (docs/protocols.md), for streamed events
// (message_start, content_block_start/delta/stop, message_delta,
// message_stop, ping, error) and whole `message` bodies. The event kind is
// taken from the JSON "type" (always present in the real API), falling back
// to the SSE `event:` name. Compatible servers sometimes put a tool's whole
// input in content_block_start and send no deltas; that input is used when no
// partial_json arrives. Blocks weld does not model (thinking, redacted
// thinking, server tools) are kept verbatim, thinking and signature deltas
// applied, so a proxy can give the message back as it came.
#include <string>

#include "../reader/fields.h"
#include "weld/json/parse.h"
#include "weld/json/serialize.h"
#include "weld/provider/anthropic.h"

namespace weld::provider {
namespace {

using fields::integer_member;
using fields::preview;
using fields::string_member;

void read_usage(const json::Value* usage, Usage& out) {
  if (!usage || !usage->is_object()) return;
  if (auto v = integer_member(usage, "input_tokens")) out.input_tokens = *v;
  if (auto v = integer_member(usage, "output_tokens")) out.output_tokens = *v;
  if (auto v = integer_member(usage, "cache_read_input_tokens")) out.cache_read_input_tokens = *v;
  if (auto v = integer_member(usage, "cache_creation_input_tokens"))
    out.cache_creation_input_tokens = *v;
}

// Content blocks in order, into the message and its parts.
void add_text(Response& response, std::string text) {
  response.message.text += text;
  response.parts.push_back(Part{Part::Kind::Text, std::move(text), 0, {}});
}

void add_tool_use(Response& response, std::string id, std::string name, std::string arguments) {
  // Every tool_use needs an id (its tool_result refers to it).
  if (id.empty()) id = "toolu_weld_" + std::to_string(response.message.tool_calls.size() + 1);
  response.parts.push_back(Part{Part::Kind::ToolCall, {}, response.message.tool_calls.size(), {}});
  response.message.tool_calls.push_back(ToolCall{std::move(id), std::move(name), std::move(arguments)});
}

void add_other(Response& response, json::Value block) {
  response.parts.push_back(Part{Part::Kind::Other, {}, 0, std::move(block)});
}

}  // namespace

Status AnthropicStreamParser::feed(std::string_view bytes) {
  events_.clear();
  if (Status st = decoder_.feed(bytes, events_); !st) return st;
  for (const SseEvent& event : events_) {
    if (done_) break;
    auto parsed = json::parse(event.data);
    if (!parsed) {
      return Error{ErrorCode::Protocol,
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
    return Error{ErrorCode::Protocol, "stream event is not a JSON object: " + preview(json::serialize(event)), ""};
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
    return Error{transient && !content_seen_ ? ErrorCode::RetryableStream : ErrorCode::Http, text, ""};
  }
  if (type == "message_start") {
    const json::Value* message = event.find("message");
    if (const std::string* id = string_member(message, "id")) response_.id = *id;
    if (const std::string* model = string_member(message, "model")) response_.model = *model;
    if (message) read_usage(message->find("usage"), response_.usage);
    started_ = true;
    return Ok{};
  }
  if (!started_ && type != "message_stop")
    return Error{ErrorCode::Protocol, "stream event `" + type + "` before message_start", ""};
  if (type == "content_block_start") {
    auto index = integer_member(&event, "index").value_or(static_cast<std::int64_t>(blocks_.size()));
    const json::Value* block = fields::object_member(&event, "content_block");
    Block& state = blocks_[index];
    const std::string* block_type = string_member(block, "type");
    if (block_type && *block_type == "text") {
      state.kind = Block::Kind::Text;
      if (const std::string* text = string_member(block, "text")) {
        state.text += *text;
        if (!text->empty()) content_seen_ = true;
      }
    } else if (block_type && *block_type == "tool_use") {
      state.kind = Block::Kind::ToolUse;
      state.call_number = tool_uses_++;
      content_seen_ = true;
      if (const std::string* id = string_member(block, "id")) state.id = *id;
      if (const std::string* name = string_member(block, "name")) state.name = *name;
      if (const json::Value* input = block->find("input"); input && !input->is_null()) {
        if (input->is_string()) state.initial_input = input->as_string();
        else if (!(input->is_object() && input->size() == 0)) state.initial_input = json::serialize(*input);
      }
    } else if (block != nullptr) {
      state.kind = Block::Kind::Other;
      state.raw = *block;
    }
    return Ok{};
  }
  if (type == "content_block_delta") {
    auto index = integer_member(&event, "index").value_or(0);
    auto found = blocks_.find(index);
    if (found == blocks_.end())
      return Error{ErrorCode::Protocol,
                   "content_block_delta for block " + std::to_string(index) +
                       " without content_block_start",
                   ""};
    Block& state = found->second;
    const json::Value* delta = event.find("delta");
    const std::string* delta_type = string_member(delta, "type");
    if (!delta_type) return Ok{};
    if (*delta_type == "text_delta" && state.kind == Block::Kind::Text) {
      if (const std::string* text = string_member(delta, "text")) {
        state.text += *text;
        if (!text->empty()) content_seen_ = true;
        if (observer_ && observer_->on_text && !text->empty()) observer_->on_text(*text);
      }
    } else if (*delta_type == "input_json_delta" && state.kind == Block::Kind::ToolUse) {
      if (const std::string* part = string_member(delta, "partial_json")) {
        state.arguments += *part;
        state.got_delta = true;
        if (observer_ && observer_->on_tool_arguments && !part->empty())
          observer_->on_tool_arguments(state.call_number, state.name, *part);
      }
    } else if ((*delta_type == "thinking_delta" || *delta_type == "signature_delta") &&
               state.kind == Block::Kind::Other && state.raw.is_object()) {
      // The block is given back as the model wrote it: thinking joined, the
      // signature (sent whole) set.
      const bool thinking = *delta_type == "thinking_delta";
      const char* key = thinking ? "thinking" : "signature";
      if (const std::string* piece = string_member(delta, key)) {
        const std::string* before = string_member(&state.raw, key);
        state.raw.set(key, thinking && before ? *before + *piece : *piece);
      }
    }
    return Ok{};
  }
  if (type == "content_block_stop") return Ok{};
  if (type == "message_delta") {
    const json::Value* delta = event.find("delta");
    if (const std::string* reason = string_member(delta, "stop_reason")) response_.stop_reason = *reason;
    // Usage here is cumulative: it replaces what message_start said.
    read_usage(event.find("usage"), response_.usage);
    return Ok{};
  }
  if (type == "message_stop") {
    done_ = true;
    return Ok{};
  }
  return Ok{};  // unknown events are ignored, as the API's versioning policy asks
}

bool AnthropicStreamParser::ended() const { return done_; }

Result<Response> AnthropicStreamParser::finish() {
  // A last event whose lines are complete but that lacks its blank line is
  // dispatched by this one line end (a cut-off line stays cut off).
  if (Status st = feed("\n"); !st) return st.error();
  bool partial = decoder_.finish();
  if (!done_) {
    std::string message = "the response stream ended early: no `message_stop` event";
    if (!started_) message += " (not even `message_start`)";
    if (partial) message += "; the last event was cut off";
    return Error{.code = ErrorCode::Protocol, .message = message, .where = {}, .http_status = 0, .temporary = true};
  }
  Response response = std::move(response_);
  response.message.role = Role::Assistant;
  for (auto& [index, state] : blocks_) {
    switch (state.kind) {
      case Block::Kind::Text: add_text(response, std::move(state.text)); break;
      case Block::Kind::ToolUse:
        // A server that put the whole input in the start and sent no delta.
        add_tool_use(response, std::move(state.id), std::move(state.name),
                     state.got_delta ? std::move(state.arguments) : std::move(state.initial_input));
        break;
      case Block::Kind::Other:
        if (!state.raw.is_null()) add_other(response, std::move(state.raw));
        break;
    }
  }
  return response;
}

Result<Response> anthropic_response_from_json(const json::Value& body) {
  if (!body.is_object()) return Error{ErrorCode::Protocol, "the response body is not a JSON object", ""};
  const std::string* type = string_member(&body, "type");
  if (type && *type == "error") {
    const json::Value* error = body.find("error");
    const std::string* message = string_member(error, "message");
    return Error{ErrorCode::Http, "the server answered with an error: " + (message ? *message : json::serialize(body)), ""};
  }
  const json::Value* content = body.find("content");
  if (!content || !content->is_array()) return Error{ErrorCode::Protocol, "the response has no `content`", ""};
  Response response;
  response.message.role = Role::Assistant;
  if (const std::string* id = string_member(&body, "id")) response.id = *id;
  if (const std::string* model = string_member(&body, "model")) response.model = *model;
  if (const std::string* reason = string_member(&body, "stop_reason")) response.stop_reason = *reason;
  read_usage(body.find("usage"), response.usage);
  for (const json::Value& block : content->as_array()) {
    const std::string* block_type = string_member(&block, "type");
    if (!block_type) continue;
    if (*block_type == "text") {
      const std::string* text = string_member(&block, "text");
      add_text(response, text ? *text : std::string());
    } else if (*block_type == "tool_use") {
      const std::string* id = string_member(&block, "id");
      const std::string* name = string_member(&block, "name");
      add_tool_use(response, id ? *id : std::string(), name ? *name : std::string(),
                   fields::arguments_text(block.find("input")));
    } else {
      add_other(response, block);
    }
  }
  return response;
}

}  // namespace weld::provider
