// The OpenAI Chat Completions codec (docs/protocols.md, "Codecs"): beside
// the reader (openai_stream.cc), every shape weld writes in this protocol —
// tools, tool_choice, response_format, the assistant turn and its error tool
// results, the final answer whole and as `chat.completion.chunk` frames,
// errors. Shapes are what the official SDKs parse.

#include "../codec/writer.h"
#include "weld/json/serialize.h"
#include "weld/provider/codec.h"
#include "weld/provider/openai.h"

namespace weld::provider {
namespace {

using namespace writer;

json::Value usage_object(const Usage& usage) {
  return json::Object{{"prompt_tokens", usage.input_tokens},
                      {"completion_tokens", usage.output_tokens},
                      {"total_tokens", usage.total()}};
}

class OpenAiChatCodec final : public Codec {
 public:
  Protocol protocol() const override { return Protocol::OpenAiChat; }
  std::string_view vendor() const override { return "openai"; }

  std::unique_ptr<StreamParser> reader(const StreamObserver* observer) const override {
    return std::make_unique<OpenAiStreamParser>(observer);
  }
  Result<Response> read_whole(const json::Value& body) const override { return openai_response_from_json(body); }
  json::Value request_body(const Request& request) const override { return openai_request_body(request); }

  json::Value tool(const ToolSpec& spec) const override {
    json::Value function = json::Object{{"name", spec.name}};
    if (!spec.description.empty()) function.set("description", spec.description);
    function.set("parameters", object_root(spec.parameters));
    return json::Object{{"type", "function"}, {"function", std::move(function)}};
  }

  std::string_view tool_name(const json::Value& tool) const override {
    const json::Value* function = tool.is_object() ? tool.find("function") : nullptr;
    const std::string* name = function != nullptr ? string_member(*function, "name") : nullptr;
    return name != nullptr ? std::string_view(*name) : std::string_view();
  }

  json::Value forced_tool_choice(std::string_view name) const override {
    return json::Object{{"type", "function"}, {"function", json::Object{{"name", name}}}};
  }

  void set_native_format(json::Value& body, const ResponseFormat& format) const override {
    json::Value json_schema = json::Object{{"name", format.name}};
    if (!format.description.empty()) json_schema.set("description", format.description);
    // The schema as given: a caller asking for strict mode gives one lowered
    // for it (weld/schema/lower.h, openai-strict).
    json_schema.set("schema", sent_schema(format.schema));
    json_schema.set("strict", format.strict);
    body.set("response_format", json::Object{{"type", "json_schema"}, {"json_schema", std::move(json_schema)}});
  }

  void drop_forced_conflicts(json::Value& body) const override {
    body.erase("thinking");
    body.erase("response_format");
    body.erase("reasoning_effort");
    body.erase("functions");
    body.erase("function_call");
  }

  void set_stream(json::Value& body, bool stream) const override {
    body.set("stream", stream);
    // OpenAI rejects stream_options unless stream is true; a stream asks for
    // the usage chunk (usage is summed over attempts whatever the client
    // asked).
    if (!stream) {
      body.erase("stream_options");
      return;
    }
    object_member(body, "stream_options").set("include_usage", true);
  }

  json::Value* template_kwargs(json::Value& body) const override {
    return &object_member(body, "chat_template_kwargs");
  }

  json::Value assistant_turn(const Response& response) const override {
    bool has_text = false;
    json::Array calls;
    for (const Part& part : response.parts) {
      if (part.kind == Part::Kind::Text) has_text = true;
      if (part.kind != Part::Kind::ToolCall) continue;
      const ToolCall& call = response.message.tool_calls[part.tool_call];
      calls.push_back(json::Object{{"id", call.id},
                                   {"type", "function"},
                                   {"function", json::Object{{"name", call.name}, {"arguments", call.arguments}}}});
    }
    json::Value message = json::Object{{"role", "assistant"}};
    message.set("content", has_text ? json::Value(response.message.text) : json::Value());
    if (!calls.empty()) message.set("tool_calls", std::move(calls));
    return message;
  }

  void append_error_results(json::Value& body, const Response& answer, const ErrorResults& results) const override {
    json::Value& messages = array_member(body, "messages");
    json::Value assistant = assistant_turn(answer);
    json::Array tool_messages;
    if (json::Value* calls = assistant.find("tool_calls"); calls != nullptr && calls->is_array()) {
      for (json::Value& call : calls->as_array()) {
        if (!call.is_object()) continue;
        const std::string* id = string_member(call, "id");
        std::string call_id = id != nullptr ? *id : std::string();
        // vLLM json-decodes the arguments of past calls before templating and
        // templates expect an object: send the best object we have.
        if (json::Value* function = call.find("function"); function != nullptr && function->is_object()) {
          const std::string* args = string_member(*function, "arguments");
          if (args == nullptr || !is_object_text(*args)) function->set("arguments", "{}");
        }
        const bool failed = results.failed_call && call_id == *results.failed_call;
        std::string text = failed ? "Error: " + results.call_errors : std::string(kNotRun);
        tool_messages.push_back(
            json::Object{{"role", "tool"}, {"tool_call_id", std::move(call_id)}, {"content", std::move(text)}});
      }
    }
    const json::Value* content = assistant.find("content");
    const bool has_content = content != nullptr && content->is_string() && !content->as_string().empty();
    if (has_content || !tool_messages.empty()) messages.push_back(std::move(assistant));
    for (json::Value& m : tool_messages) messages.push_back(std::move(m));
    if (!results.failed_call) messages.push_back(json::Object{{"role", "user"}, {"content", results.user_errors}});
  }

  std::string answer_id(std::string_view seed) const override { return make_id("chatcmpl-weld", seed); }

  // Written directly (it is on every welded request's path).
  std::string answer(const AnswerHead& head, std::string_view text, const Usage& usage) const override {
    std::string out;
    out.reserve(text.size() + head.model.size() + head.id.size() + 256);
    out += R"({"id":)";
    json::write_string(out, head.id.empty() ? answer_id(text) : head.id);
    out += R"(,"object":"chat.completion","created":)";
    out += std::to_string(head.created);
    out += R"(,"model":)";
    json::write_string(out, head.model);
    out += R"(,"choices":[{"index":0,"message":{"role":"assistant","content":)";
    json::write_string(out, text);
    out += R"(},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":)";
    out += std::to_string(usage.input_tokens);
    out += R"(,"completion_tokens":)";
    out += std::to_string(usage.output_tokens);
    out += R"(,"total_tokens":)";
    out += std::to_string(usage.total());
    out += "}}";
    return out;
  }

  std::string answer_stream_start(const AnswerHead& head) const override {
    std::string out;
    sse_data(out, chunk(head, choice(json::Object{{"role", "assistant"}, {"content", ""}}, nullptr)));
    return out;
  }

  std::string answer_stream_rest(const AnswerHead& head, std::string_view text, const Usage& usage) const override {
    return one_block(*this, head, text, usage);
  }

  // An SSE comment, which every SSE parser skips.
  std::string keepalive_frame() const override { return ": keep-alive\n\n"; }

  json::Value pass_back(const AnswerHead& head, const Response& answer, const Usage& usage) const override {
    return json::Object{{"id", head.id.empty() ? answer_id(answer.message.text) : head.id},
                        {"object", "chat.completion"},
                        {"created", head.created},
                        {"model", head.model},
                        {"choices", json::Array{json::Object{{"index", 0},
                                                             {"message", assistant_turn(answer)},
                                                             {"logprobs", nullptr},
                                                             {"finish_reason", "tool_calls"}}}},
                        {"usage", usage_object(usage)}};
  }

  std::string pass_back_stream(const AnswerHead& head, const Response& answer, const Usage& usage) const override {
    std::string out;
    const std::string id = head.id.empty() ? answer_id(answer.message.text) : head.id;
    const std::int64_t created = head.created;
    auto pass_chunk = [&](json::Value delta, json::Value finish) {
      return json::Object{{"id", id},
                          {"object", "chat.completion.chunk"},
                          {"created", created},
                          {"model", head.model},
                          {"choices", json::Array{json::Object{{"index", 0},
                                                               {"delta", std::move(delta)},
                                                               {"logprobs", nullptr},
                                                               {"finish_reason", std::move(finish)}}}}};
    };
    json::Value message = assistant_turn(answer);
    json::Value first = json::Object{{"role", "assistant"}};
    const json::Value* content = message.find("content");
    first.set("content", content != nullptr && content->is_string() ? *content : json::Value(""));
    sse_data(out, pass_chunk(std::move(first), nullptr));
    if (const json::Value* calls = message.find("tool_calls"); calls != nullptr && calls->is_array()) {
      json::Array indexed;
      std::int64_t index = 0;
      for (const json::Value& call : calls->as_array()) {
        json::Value c = call;
        c.set("index", index++);
        indexed.push_back(std::move(c));
      }
      sse_data(out, pass_chunk(json::Object{{"tool_calls", std::move(indexed)}}, nullptr));
    }
    sse_data(out, pass_chunk(json::Object{}, "tool_calls"));
    if (head.include_usage) {
      sse_data(out, json::Object{{"id", id},
                                 {"object", "chat.completion.chunk"},
                                 {"created", created},
                                 {"model", head.model},
                                 {"choices", json::Array{}},
                                 {"usage", usage_object(usage)}});
    }
    out += "data: [DONE]\n\n";
    return out;
  }

  bool streams_partial() const override { return true; }

  std::string block_start(const AnswerHead& head, int index) const override {
    // Choice 0 got its role in the opening chunk.
    if (index == 0) return {};
    std::string out;
    sse_data(out, chunk(head, choice(json::Object{{"role", "assistant"}, {"content", ""}}, nullptr, index)));
    return out;
  }

  // Written directly, not through json::Value: one delta per token of a
  // partially streamed answer (the same bytes as `chunk` gives).
  std::string block_text(const AnswerHead& head, int index, std::string_view text) const override {
    std::string out;
    out.reserve(text.size() + head.id.size() + head.model.size() + 160);
    out += R"(data: {"id":)";
    json::write_string(out, stream_id(head));
    out += R"(,"object":"chat.completion.chunk","created":)";
    out += std::to_string(head.created);
    out += R"(,"model":)";
    json::write_string(out, head.model);
    out += R"(,"choices":[{"index":)";
    out += std::to_string(index);
    out += R"(,"delta":{"content":)";
    json::write_string(out, text);
    out += R"(},"finish_reason":null}])";
    out += head.include_usage ? ",\"usage\":null}\n\n" : "}\n\n";
    return out;
  }

  std::string block_stop(const AnswerHead& head, int index) const override {
    std::string out;
    sse_data(out, chunk(head, choice(json::Object{}, "stop", index)));
    return out;
  }

  std::string message_end(const AnswerHead& head, const Usage& usage) const override {
    std::string out;
    if (head.include_usage) {
      json::Value last = chunk(head, json::Array{});
      last.set("usage", usage_object(usage));
      sse_data(out, last);
    }
    out += "data: [DONE]\n\n";
    return out;
  }

  std::string discard(const AnswerHead& head, int index, std::string_view marker,
                      const json::Value& event) const override {
    // One chunk: the SDKs' accumulators keep unknown choice fields, so the
    // discarded choice carries `weld_discard` into the final completion.
    json::Value choices = choice(json::Object{{"content", marker}}, "weld_discarded", index);
    choices.as_array()[0].set("weld_discard", event);
    std::string out;
    sse_data(out, chunk(head, std::move(choices)));
    return out;
  }

  json::Value error_body(std::string_view type, std::string_view message,
                         const json::Value* candidate) const override {
    return openai_error_body(type, message, candidate);
  }

  // A `data:` chunk holding the `{"error":…}` body: what the SDKs' stream
  // readers raise on.
  std::string stream_error(std::string_view type, std::string_view message,
                           const json::Value* candidate) const override {
    std::string out;
    sse_data(out, error_body(type, message, candidate));
    return out;
  }

  std::string_view rate_limit_type() const override { return "rate_limit_exceeded"; }
  std::string_view upstream_error_type() const override { return "upstream_error"; }

 private:
  std::string stream_id(const AnswerHead& head) const {
    return head.id.empty() ? answer_id(head.model + "\n" + std::to_string(head.created)) : head.id;
  }

  // A chunk with the given choices; with include_usage, OpenAI sends
  // "usage": null on every chunk but the last.
  json::Value chunk(const AnswerHead& head, json::Value choices) const {
    json::Value out = json::Object{{"id", stream_id(head)},
                                   {"object", "chat.completion.chunk"},
                                   {"created", head.created},
                                   {"model", head.model},
                                   {"choices", std::move(choices)}};
    if (head.include_usage) out.set("usage", nullptr);
    return out;
  }

  static json::Value choice(json::Value delta, json::Value finish_reason, int index = 0) {
    return json::Array{
        json::Object{{"index", index}, {"delta", std::move(delta)}, {"finish_reason", std::move(finish_reason)}}};
  }
};

}  // namespace

const Codec& openai_chat_codec() {
  static const OpenAiChatCodec codec;
  return codec;
}

}  // namespace weld::provider
