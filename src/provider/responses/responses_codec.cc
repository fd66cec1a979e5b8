// The OpenAI Responses codec (docs/protocols.md, "Codecs"): beside the
// reader (responses_stream.cc), every shape weld writes in this protocol —
// function tools in the API's flat shape, tool_choice, `text.format`, the
// output items given back as `input` with their function_call_output
// errors, the final `response` whole and as typed events, errors. The
// Responses API has no partial answers here: its clients get the whole
// answer at the end.

#include "../codec/writer.h"
#include "weld/json/parse.h"
#include "weld/json/serialize.h"
#include "weld/provider/codec.h"
#include "weld/provider/responses.h"

namespace weld::provider {
namespace {

using namespace writer;

json::Value usage_object(const Usage& usage) {
  return json::Object{{"input_tokens", usage.input_tokens},
                      {"input_tokens_details", json::Object{{"cached_tokens", usage.cache_read_input_tokens}}},
                      {"output_tokens", usage.output_tokens},
                      {"output_tokens_details", json::Object{{"reasoning_tokens", 0}}},
                      {"total_tokens", usage.total()}};
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
  sse_event(out, type, body);
}

class OpenAiResponsesCodec final : public Codec {
 public:
  Protocol protocol() const override { return Protocol::OpenAiResponses; }
  std::string_view vendor() const override { return "openai"; }

  std::unique_ptr<StreamParser> reader(const StreamObserver* observer) const override {
    return std::make_unique<ResponsesStreamParser>(observer);
  }
  Result<Response> read_whole(const json::Value& body) const override { return responses_response_from_json(body); }
  json::Value request_body(const Request& request) const override { return responses_request_body(request); }

  // `strict: false`: the API defaults a function to strict, which refuses
  // most schemas.
  json::Value tool(const ToolSpec& spec) const override {
    json::Value tool = json::Object{{"type", "function"}, {"name", spec.name}};
    if (!spec.description.empty()) tool.set("description", spec.description);
    tool.set("parameters", object_root(spec.parameters));
    tool.set("strict", false);
    return tool;
  }

  std::string_view tool_name(const json::Value& tool) const override {
    const std::string* name = string_member(tool, "name");
    return name != nullptr ? std::string_view(*name) : std::string_view();
  }

  json::Value forced_tool_choice(std::string_view name) const override {
    return json::Object{{"type", "function"}, {"name", name}};
  }

  // `text.format`, other text options kept.
  void set_native_format(json::Value& body, const ResponseFormat& format) const override {
    json::Value out = json::Object{{"type", "json_schema"}, {"name", format.name}};
    if (!format.description.empty()) out.set("description", format.description);
    out.set("schema", sent_schema(format.schema));
    out.set("strict", format.strict);
    object_member(body, "text").set("format", std::move(out));
  }

  void drop_forced_conflicts(json::Value& body) const override {
    body.erase("thinking");
    erase_nested(body, "text", "format");
  }

  void set_stream(json::Value& body, bool stream) const override { body.set("stream", stream); }

  // A `message` item per text part, a `function_call` item per call, other
  // items (reasoning…) verbatim.
  json::Value assistant_turn(const Response& response) const override {
    json::Array items;
    for (const Part& part : response.parts) {
      switch (part.kind) {
        case Part::Kind::Text:
          if (!part.text.empty())
            items.push_back(json::Object{
                {"type", "message"}, {"role", "assistant"}, {"content", json::Array{text_part(part.text)}}});
          break;
        case Part::Kind::ToolCall: {
          const ToolCall& call = response.message.tool_calls[part.tool_call];
          items.push_back(json::Object{{"type", "function_call"},
                                       {"call_id", call.id},
                                       {"name", call.name},
                                       {"arguments", call.arguments}});
          break;
        }
        case Part::Kind::Other: items.push_back(part.raw); break;
      }
    }
    return items;
  }

  // The items appended to `input` (a string input becomes a user message
  // first), then a `function_call_output` per call.
  void append_error_results(json::Value& body, const Response& answer, const ErrorResults& results) const override {
    json::Value* input = &input_items(body);
    json::Array outputs;
    json::Value turn = assistant_turn(answer);
    for (json::Value& item : turn.as_array()) {
      const std::string* type = string_member(item, "type");
      if (type != nullptr && *type == "function_call") {
        // The arguments of a past call must be JSON for the server.
        const std::string* args = string_member(item, "arguments");
        if (args == nullptr || !json::parse(*args)) item.set("arguments", "{}");
        const std::string* id = string_member(item, "call_id");
        std::string call_id = id != nullptr ? *id : std::string();
        const bool failed = results.failed_call && call_id == *results.failed_call;
        outputs.push_back(json::Object{{"type", "function_call_output"},
                                       {"call_id", std::move(call_id)},
                                       {"output", failed ? "Error: " + results.call_errors : std::string(kNotRun)}});
      }
      input->push_back(std::move(item));
    }
    for (json::Value& output : outputs) input->push_back(std::move(output));
    if (!results.failed_call) input->push_back(json::Object{{"role", "user"}, {"content", results.user_errors}});
  }

  // The turn's items (whether it said anything or not), then the ask.
  void append_follow_up(json::Value& body, const Response& answer, std::string_view ask) const override {
    json::Value& input = input_items(body);
    json::Value turn = assistant_turn(answer);
    for (json::Value& item : turn.as_array()) input.push_back(std::move(item));
    input.push_back(json::Object{{"role", "user"}, {"content", ask}});
  }

  std::string answer_id(std::string_view seed) const override { return make_id("resp_weld_", seed); }

  std::string answer(const AnswerHead& head, std::string_view text, const Usage& usage) const override {
    AnswerHead with_id = head;
    if (with_id.id.empty()) with_id.id = answer_id(text);
    json::Array output;
    output.push_back(message_item(make_id("msg_weld_", text), "completed", json::Array{text_part(text)}));
    return json::serialize(response_object(with_id, "completed", std::move(output), &usage));
  }

  std::string answer_stream_start(const AnswerHead& head) const override {
    std::string out;
    std::int64_t sequence = 0;
    event(out, sequence, "response.created",
          json::Object{{"response", response_object(head, "in_progress", json::Array{}, nullptr)}});
    event(out, sequence, "response.in_progress",
          json::Object{{"response", response_object(head, "in_progress", json::Array{}, nullptr)}});
    return out;
  }

  std::string answer_stream_rest(const AnswerHead& head, std::string_view text, const Usage& usage) const override {
    std::string out;
    out.reserve(text.size() * 2 + 2048);
    std::int64_t sequence = 2;  // after answer_stream_start's two events
    const std::string item_id = make_id("msg_weld_", text);
    event(out, sequence, "response.output_item.added",
          json::Object{{"output_index", 0}, {"item", message_item(item_id, "in_progress", json::Array{})}});
    event(out, sequence, "response.content_part.added",
          json::Object{{"item_id", item_id}, {"output_index", 0}, {"content_index", 0}, {"part", text_part("")}});
    for (std::string_view piece : text_deltas(text)) {
      event(out, sequence, "response.output_text.delta",
            json::Object{{"item_id", item_id},
                         {"output_index", 0},
                         {"content_index", 0},
                         {"delta", piece},
                         {"logprobs", json::Array{}}});
    }
    event(out, sequence, "response.output_text.done",
          json::Object{{"item_id", item_id},
                       {"output_index", 0},
                       {"content_index", 0},
                       {"text", text},
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

  std::string keepalive_frame() const override { return ": keep-alive\n\n"; }

  json::Value pass_back(const AnswerHead& head, const Response& answer, const Usage& usage) const override {
    AnswerHead with_id = head;
    if (with_id.id.empty()) with_id.id = answer_id(answer.message.text);
    return response_object(with_id, "completed", assistant_turn(answer), &usage);
  }

  std::string pass_back_stream(const AnswerHead& head, const Response& answer, const Usage& usage) const override {
    AnswerHead with_id = head;
    if (with_id.id.empty()) with_id.id = answer_id(answer.message.text);
    std::string out = answer_stream_start(with_id);
    std::int64_t sequence = 2;
    std::int64_t index = 0;
    json::Value turn = assistant_turn(answer);
    for (const json::Value& item : turn.as_array()) {
      event(out, sequence, "response.output_item.added", json::Object{{"output_index", index}, {"item", item}});
      event(out, sequence, "response.output_item.done", json::Object{{"output_index", index}, {"item", item}});
      ++index;
    }
    event(out, sequence, "response.completed",
          json::Object{{"response", response_object(with_id, "completed", std::move(turn), &usage)}});
    return out;
  }

  json::Value error_body(std::string_view type, std::string_view message,
                         const json::Value* candidate) const override {
    return openai_error_body(type, message, candidate);
  }

  // An `error` event: the error's members at the top (the event's own shape:
  // code, message) and the body's `error` kept, which the SDK raises as an
  // APIError.
  std::string stream_error(std::string_view type, std::string_view message,
                           const json::Value* candidate) const override {
    const json::Value body = error_body(type, message, candidate);
    const json::Value& error = *body.find("error");
    json::Value data = json::Object{{"type", "error"}};
    data.set("code", *error.find("type"));
    data.set("message", *error.find("message"));
    data.set("param", nullptr);
    data.set("error", error);
    std::string out;
    sse_event(out, "error", data);
    return out;
  }

  std::string_view rate_limit_type() const override { return "rate_limit_exceeded"; }
  std::string_view upstream_error_type() const override { return "upstream_error"; }

 private:
  // The conversation: `input` as an array of items (a string input becomes
  // a user message first).
  static json::Value& input_items(json::Value& body) {
    if (!body.is_object()) body = json::Object{};
    json::Value* input = body.find("input");
    if (input != nullptr && input->is_array()) return *input;
    json::Array items;
    if (input != nullptr && input->is_string()) items.push_back(json::Object{{"role", "user"}, {"content", *input}});
    return body.set("input", std::move(items));
  }

  std::string response_id(const AnswerHead& head) const {
    return head.id.empty() ? answer_id(head.model + "\n" + std::to_string(head.created)) : head.id;
  }

  // A `response` object (status and output as given).
  json::Value response_object(const AnswerHead& head, std::string_view status, json::Value output,
                              const Usage* usage) const {
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
};

}  // namespace

const Codec& openai_responses_codec() {
  static const OpenAiResponsesCodec codec;
  return codec;
}

}  // namespace weld::provider
