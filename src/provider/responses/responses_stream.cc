// The OpenAI Responses API reader (docs/protocols.md), for streamed
// `response.*` events and whole `response` objects. The stream has no
// `[DONE]`: it ends with `response.completed` (or `response.incomplete`,
// a complete answer cut by a limit), and fails with `response.failed` or an
// `error` event. Items are keyed by `output_index`; deltas build them, an
// `output_item.done` replaces one with the item as sent, and the final
// response object's `output`, when a server fills it, is authoritative.
#include <string>

#include "../reader/fields.h"
#include "weld/json/parse.h"
#include "weld/json/serialize.h"
#include "weld/provider/responses.h"

namespace weld::provider {
namespace {

using fields::integer_member;
using fields::object_member;
using fields::preview;
using fields::string_member;

void read_usage(const json::Value* usage, Usage& out) {
  if (usage == nullptr || !usage->is_object()) return;
  out.input_tokens = integer_member(usage, "input_tokens").value_or(0);
  out.output_tokens = integer_member(usage, "output_tokens").value_or(0);
  out.cache_read_input_tokens =
      integer_member(object_member(usage, "input_tokens_details"), "cached_tokens").value_or(0);
}

// id, model, created_at, usage and the stop reason of a response object.
void read_head(const json::Value& object, Response& response) {
  if (const std::string* id = string_member(&object, "id")) response.id = *id;
  if (const std::string* model = string_member(&object, "model")) response.model = *model;
  if (auto created = integer_member(&object, "created_at")) response.created = *created;
  read_usage(object.find("usage"), response.usage);
  if (const std::string* status = string_member(&object, "status")) {
    response.stop_reason = *status;
    const std::string* reason = string_member(object_member(&object, "incomplete_details"), "reason");
    if (*status == "incomplete" && reason) response.stop_reason = *reason;
  }
}

bool transient(std::string_view code) {
  return code == "server_error" || code == "rate_limit_exceeded" || code == "overloaded" ||
         code == "service_unavailable";
}

// The message of an error object ({code, message}).
std::string error_text(const json::Value* error) {
  std::string message;
  if (const std::string* m = string_member(error, "message")) message = *m;
  if (message.empty() && error != nullptr) message = json::serialize(*error);
  if (const std::string* code = string_member(error, "code"); code && !code->empty()) message += " (" + *code + ")";
  return message;
}

struct Builder {
  Response& response;
  std::string text;

  void message(std::string item_text, std::string refusal) {
    text += item_text;
    response.refusal += refusal;
    response.parts.push_back(Part{Part::Kind::Text, std::move(item_text) + refusal, 0, {}});
  }
  void call(std::string call_id, std::string name, std::string arguments) {
    if (call_id.empty()) call_id = "call_weld_" + std::to_string(response.message.tool_calls.size() + 1);
    response.parts.push_back(Part{Part::Kind::ToolCall, {}, response.message.tool_calls.size(), {}});
    response.message.tool_calls.push_back(ToolCall{std::move(call_id), std::move(name), std::move(arguments)});
  }
  void other(json::Value raw) { response.parts.push_back(Part{Part::Kind::Other, {}, 0, std::move(raw)}); }
  void done() {
    response.message.role = Role::Assistant;
    response.message.text = std::move(text) + response.refusal;
  }

  // One item of an `output` array, as sent.
  void item(const json::Value& item) {
    const std::string* type = string_member(&item, "type");
    if (type == nullptr) return;
    if (*type == "message") {
      std::string item_text, refusal;
      if (const json::Value* content = item.find("content"); content && content->is_array()) {
        for (const json::Value& part : content->as_array()) {
          if (const std::string* t = string_member(&part, "text")) item_text += *t;
          if (const std::string* r = string_member(&part, "refusal")) refusal += *r;
        }
      }
      message(std::move(item_text), std::move(refusal));
    } else if (*type == "function_call") {
      const std::string* call_id = string_member(&item, "call_id");
      if (call_id == nullptr) call_id = string_member(&item, "id");
      const std::string* name = string_member(&item, "name");
      call(call_id ? *call_id : std::string(), name ? *name : std::string(),
           fields::arguments_text(item.find("arguments")));
    } else {
      other(item);  // reasoning and server tool items: given back as they came
    }
  }
};

}  // namespace

Result<Response> responses_response_from_json(const json::Value& body) {
  if (!body.is_object()) return Error{ErrorCode::Protocol, "the response body is not a JSON object", ""};
  const json::Value* error = body.find("error");
  if (error != nullptr && !error->is_null())
    return Error{ErrorCode::Http, "the server answered with an error: " + error_text(error), ""};
  const json::Value* output = body.find("output");
  if (output == nullptr || !output->is_array()) return Error{ErrorCode::Protocol, "the response has no `output`", ""};
  Response response;
  read_head(body, response);
  if (response.stop_reason == "failed")
    return Error{ErrorCode::Http, "the server answered with a failed response", ""};
  Builder builder{response, {}};
  for (const json::Value& item : output->as_array()) builder.item(item);
  builder.done();
  return response;
}

Status ResponsesStreamParser::feed(std::string_view bytes) {
  events_.clear();
  if (Status st = decoder_.feed(bytes, events_); !st) return st;
  for (const SseEvent& event : events_) {
    if (done_) break;
    ++events_seen_;
    auto parsed = json::parse(event.data);
    if (!parsed) {
      return Error{ErrorCode::Protocol,
                   "malformed JSON in stream event `" + event.type + "` (" + parsed.error().message + " at " +
                       parsed.error().where + "): " + json::quote(preview(event.data)),
                   ""};
    }
    if (observer_ && observer_->on_event) observer_->on_event(*parsed);
    if (Status st = apply(event.type, *parsed); !st) return st;
  }
  return Ok{};
}

ResponsesStreamParser::Item& ResponsesStreamParser::item_at(const json::Value& event) {
  return items_[integer_member(&event, "output_index").value_or(0)];
}

Status ResponsesStreamParser::apply(std::string_view sse_type, const json::Value& event) {
  if (!event.is_object())
    return Error{ErrorCode::Protocol, "stream event is not a JSON object: " + preview(json::serialize(event)), ""};
  std::string type(sse_type);
  if (const std::string* t = string_member(&event, "type")) type = *t;

  if (type == "error") {
    const json::Value* detail = object_member(&event, "error");
    if (detail == nullptr) detail = &event;
    const std::string* code = string_member(detail, "code");
    const bool retry = !content_seen_ && code != nullptr && transient(*code);
    return Error{retry ? ErrorCode::RetryableStream : ErrorCode::Http,
                 "the server sent an error in the stream: " + error_text(detail), ""};
  }
  if (type == "response.failed") {
    const json::Value* response = object_member(&event, "response");
    const json::Value* error = object_member(response, "error");
    return Error{ErrorCode::Http, "the server sent an error in the stream: " + (error ? error_text(error) : "the response failed"),
                 ""};
  }
  if (type == "response.created" || type == "response.in_progress") {
    if (const json::Value* response = object_member(&event, "response")) read_head(*response, response_);
    return Ok{};
  }
  if (type == "response.output_item.added" || type == "response.output_item.done") {
    const json::Value* item = object_member(&event, "item");
    const std::string* item_type = string_member(item, "type");
    if (item_type == nullptr) return Ok{};
    Item& state = item_at(event);
    const bool done = type == "response.output_item.done";
    if (*item_type == "message") {
      state.kind = Item::Kind::Message;
      if (done) {
        // The item as sent replaces what the deltas built.
        Response whole;
        Builder builder{whole, {}};
        builder.item(*item);
        state.text = std::move(builder.text);
        state.refusal = std::move(whole.refusal);
      }
    } else if (*item_type == "function_call") {
      state.kind = Item::Kind::FunctionCall;
      content_seen_ = true;
      const std::string* call_id = string_member(item, "call_id");
      if (call_id == nullptr) call_id = string_member(item, "id");
      if (call_id) state.call_id = *call_id;
      if (const std::string* name = string_member(item, "name")) state.name = *name;
      std::string arguments = fields::arguments_text(item->find("arguments"));
      if (done || state.arguments.empty()) state.arguments = std::move(arguments);
    } else {
      state.kind = Item::Kind::Other;
      state.raw = *item;
    }
    return Ok{};
  }
  if (type == "response.output_text.delta" || type == "response.refusal.delta" ||
      type == "response.function_call_arguments.delta") {
    const std::string* delta = string_member(&event, "delta");
    if (delta == nullptr) return Ok{};
    Item& state = item_at(event);
    if (!delta->empty()) content_seen_ = true;
    if (type == "response.function_call_arguments.delta") {
      state.kind = Item::Kind::FunctionCall;
      state.arguments += *delta;
    } else {
      state.kind = Item::Kind::Message;
      (type == "response.output_text.delta" ? state.text : state.refusal) += *delta;
    }
    return Ok{};
  }
  if (type == "response.function_call_arguments.done") {
    if (const std::string* arguments = string_member(&event, "arguments")) {
      Item& state = item_at(event);
      state.kind = Item::Kind::FunctionCall;
      state.arguments = *arguments;
    }
    return Ok{};
  }
  if (type == "response.completed" || type == "response.incomplete") {
    done_ = true;
    const json::Value* response = object_member(&event, "response");
    if (response == nullptr) return Ok{};
    read_head(*response, response_);
    // A server that fills the final output: it is the answer as sent.
    if (const json::Value* output = response->find("output"); output && output->is_array() && output->size() > 0) {
      Response whole;
      Builder builder{whole, {}};
      for (const json::Value& item : output->as_array()) builder.item(item);
      builder.done();
      final_ = std::move(whole);
    }
    return Ok{};
  }
  return Ok{};  // content_part.*, output_text.done, annotations, reasoning deltas…: nothing to keep
}

bool ResponsesStreamParser::ended() const { return done_; }

Result<Response> ResponsesStreamParser::finish() {
  // A last event whose lines are complete but that lacks its blank line is
  // dispatched by this one line end (a cut-off line stays cut off).
  if (Status st = feed("\n"); !st) return st.error();
  bool partial = decoder_.finish();
  if (!done_) {
    std::string message = "the response stream ended early: no `response.completed` event after " +
                          std::to_string(events_seen_) + " event" + (events_seen_ == 1 ? "" : "s");
    if (partial) message += " (the last event was cut off)";
    return Error{.code = ErrorCode::Protocol, .message = message, .where = {}, .http_status = 0, .temporary = true};
  }
  Response response = std::move(response_);
  if (final_) {
    response.message = std::move(final_->message);
    response.refusal = std::move(final_->refusal);
    response.parts = std::move(final_->parts);
    return response;
  }
  Builder builder{response, {}};
  for (auto& [index, item] : items_) {
    switch (item.kind) {
      case Item::Kind::Message: builder.message(std::move(item.text), std::move(item.refusal)); break;
      case Item::Kind::FunctionCall:
        builder.call(std::move(item.call_id), std::move(item.name), std::move(item.arguments));
        break;
      case Item::Kind::Other:
        if (!item.raw.is_null()) builder.other(std::move(item.raw));
        break;
    }
  }
  builder.done();
  return response;
}

}  // namespace weld::provider
