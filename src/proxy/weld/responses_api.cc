#include "responses_api.h"

#include <algorithm>
#include <vector>

#include "weld/json/parse.h"
#include "weld/json/serialize.h"
#include "wire.h"

namespace weld::proxy::responses_api {
namespace {

json::Value usage_object(const Usage& usage) {
  return json::Object{{"input_tokens", usage.input_tokens},
                      {"input_tokens_details", json::Object{{"cached_tokens", usage.cache_read_input_tokens}}},
                      {"output_tokens", usage.output_tokens},
                      {"output_tokens_details", json::Object{{"reasoning_tokens", 0}}},
                      {"total_tokens", usage.total()}};
}

std::string response_id(const StreamHead& head) {
  if (!head.id.empty()) return head.id;
  return wire::make_id("resp_weld_", head.model + "\n" + std::to_string(head.created));
}

// A `response` object (status and output as given).
json::Value response_object(const StreamHead& head, std::string_view status, json::Value output,
                            const Usage* usage) {
  return json::Object{{"id", response_id(head)},
                      {"object", "response"},
                      {"created_at", head.created},
                      {"status", status},
                      {"error", nullptr},
                      {"incomplete_details", nullptr},
                      {"model", head.model},
                      {"output", std::move(output)},
                      {"parallel_tool_calls", true},
                      {"tool_choice", "auto"},
                      {"tools", json::Array{}},
                      {"usage", usage != nullptr ? usage_object(*usage) : json::Value()}};
}

json::Value text_part(std::string_view text) {
  return json::Object{{"type", "output_text"}, {"text", text}, {"annotations", json::Array{}}};
}

json::Value message_item(std::string_view id, std::string_view status, json::Value content) {
  return json::Object{
      {"id", id}, {"type", "message"}, {"status", status}, {"role", "assistant"}, {"content", std::move(content)}};
}

// Events carry their place in the stream; SDKs do not require it, Codex
// logs it.
void event(std::string& out, std::int64_t& sequence, std::string_view type, json::Value data) {
  json::Value body = json::Object{{"type", type}};
  for (json::Member& member : data.as_object()) body.set(member.key, std::move(member.value));
  body.set("sequence_number", sequence++);
  out += "event: ";
  out += type;
  out += "\ndata: ";
  json::serialize_to(out, body);
  out += "\n\n";
}

StreamHead head_for(const Candidate& last, std::string_view text, std::string_view client_model) {
  StreamHead head;
  head.id = last.id.empty() ? wire::make_id("resp_weld_", text) : last.id;
  head.model = std::string(client_model);
  head.created = last.created;
  return head;
}

}  // namespace

json::Value output_items(const provider::Response& response) {
  json::Array items;
  for (const provider::Part& part : response.parts) {
    switch (part.kind) {
      case provider::Part::Kind::Text:
        if (!part.text.empty())
          items.push_back(json::Object{{"type", "message"},
                                       {"role", "assistant"},
                                       {"content", json::Array{text_part(part.text)}}});
        break;
      case provider::Part::Kind::ToolCall: {
        const provider::ToolCall& call = response.message.tool_calls[part.tool_call];
        items.push_back(json::Object{{"type", "function_call"},
                                     {"call_id", call.id},
                                     {"name", call.name},
                                     {"arguments", call.arguments}});
        break;
      }
      case provider::Part::Kind::Other: items.push_back(part.raw); break;
    }
  }
  return items;
}

void append_retry_turn(json::Value& body, const Candidate& candidate, std::string_view errors,
                       std::string_view not_run, std::string errors_for_call) {
  if (!body.is_object()) body = json::Object{};
  json::Value* input = body.find("input");
  if (input == nullptr || !input->is_array()) {
    json::Array items;
    if (input != nullptr && input->is_string()) items.push_back(json::Object{{"role", "user"}, {"content", *input}});
    input = &body.set("input", std::move(items));
  }
  json::Array outputs;
  if (candidate.assistant_message.is_array()) {
    for (const json::Value& item : candidate.assistant_message.as_array()) {
      json::Value copy = item;
      const std::string* type = copy.is_object() ? wire::find_string(copy, "type") : nullptr;
      if (type != nullptr && *type == "function_call") {
        // The arguments of a past call must be JSON for the server.
        const std::string* args = wire::find_string(copy, "arguments");
        if (args == nullptr || !json::parse(*args)) copy.set("arguments", "{}");
        const std::string* id = wire::find_string(copy, "call_id");
        std::string call_id = id != nullptr ? *id : std::string();
        const bool answer = candidate.found && call_id == candidate.tool_call_id;
        outputs.push_back(json::Object{{"type", "function_call_output"},
                                       {"call_id", std::move(call_id)},
                                       {"output", answer ? errors_for_call : std::string(not_run)}});
      }
      input->push_back(std::move(copy));
    }
  }
  for (json::Value& output : outputs) input->push_back(std::move(output));
  if (!candidate.found) input->push_back(json::Object{{"role", "user"}, {"content", errors}});
}

std::string render_response(const Candidate& last, std::string_view text, const Usage& usage,
                            std::string_view client_model) {
  StreamHead head = head_for(last, text, client_model);
  json::Array output;
  output.push_back(message_item(wire::make_id("msg_weld_", text), "completed", json::Array{text_part(text)}));
  return json::serialize(response_object(head, "completed", std::move(output), &usage));
}

std::string render_stream_start(const StreamHead& head) {
  std::string out;
  std::int64_t sequence = 0;
  event(out, sequence, "response.created", json::Object{{"response", response_object(head, "in_progress", json::Array{}, nullptr)}});
  event(out, sequence, "response.in_progress",
        json::Object{{"response", response_object(head, "in_progress", json::Array{}, nullptr)}});
  return out;
}

std::string render_stream_rest(const StreamHead& head, std::string_view text, const Usage& usage) {
  std::string out;
  out.reserve(text.size() * 2 + 2048);
  std::int64_t sequence = 2;  // after render_stream_start's two events
  const std::string item_id = wire::make_id("msg_weld_", text);
  event(out, sequence, "response.output_item.added",
        json::Object{{"output_index", 0}, {"item", message_item(item_id, "in_progress", json::Array{})}});
  event(out, sequence, "response.content_part.added",
        json::Object{{"item_id", item_id}, {"output_index", 0}, {"content_index", 0}, {"part", text_part("")}});
  for (std::string_view piece : wire::split_text(text)) {
    event(out, sequence, "response.output_text.delta",
          json::Object{{"item_id", item_id}, {"output_index", 0}, {"content_index", 0}, {"delta", piece},
                       {"logprobs", json::Array{}}});
  }
  event(out, sequence, "response.output_text.done",
        json::Object{{"item_id", item_id}, {"output_index", 0}, {"content_index", 0}, {"text", text},
                     {"logprobs", json::Array{}}});
  event(out, sequence, "response.content_part.done",
        json::Object{{"item_id", item_id}, {"output_index", 0}, {"content_index", 0}, {"part", text_part(text)}});
  json::Value item = message_item(item_id, "completed", json::Array{text_part(text)});
  event(out, sequence, "response.output_item.done", json::Object{{"output_index", 0}, {"item", item}});
  json::Array output;
  output.push_back(std::move(item));
  event(out, sequence, "response.completed",
        json::Object{{"response", response_object(head, "completed", std::move(output), &usage)}});
  return out;
}

std::string render_stream_error(const json::Value& error_body) {
  // The error body's members at the top (the event's own shape: code,
  // message) and the body's `error` kept, which the SDK raises as an APIError.
  json::Value data = json::Object{{"type", "error"}};
  if (const json::Value* error = error_body.find("error"); error != nullptr && error->is_object()) {
    if (const json::Value* type = error->find("type")) data.set("code", *type);
    if (const json::Value* message = error->find("message")) data.set("message", *message);
    data.set("param", nullptr);
    data.set("error", *error);
  }
  std::string out = "event: error\ndata: ";
  json::serialize_to(out, data);
  out += "\n\n";
  return out;
}

json::Value render_pass_back(const Candidate& candidate, const Usage& usage, std::string_view client_model) {
  StreamHead head = head_for(candidate, candidate.arguments, client_model);
  json::Value output = candidate.assistant_message.is_array() ? candidate.assistant_message : json::Value(json::Array{});
  return response_object(head, "completed", std::move(output), &usage);
}

std::string render_pass_back_stream(const Candidate& candidate, const Usage& usage, std::string_view client_model) {
  StreamHead head = head_for(candidate, candidate.arguments, client_model);
  std::string out = render_stream_start(head);
  std::int64_t sequence = 2;
  std::int64_t index = 0;
  if (candidate.assistant_message.is_array()) {
    for (const json::Value& item : candidate.assistant_message.as_array()) {
      event(out, sequence, "response.output_item.added", json::Object{{"output_index", index}, {"item", item}});
      event(out, sequence, "response.output_item.done", json::Object{{"output_index", index}, {"item", item}});
      ++index;
    }
  }
  event(out, sequence, "response.completed",
        json::Object{{"response", render_pass_back(candidate, usage, client_model)}});
  return out;
}

}  // namespace weld::proxy::responses_api
