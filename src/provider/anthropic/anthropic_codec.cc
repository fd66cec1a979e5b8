// The Anthropic Messages codec (docs/protocols.md, "Codecs"): beside the
// reader (anthropic_stream.cc), every shape weld writes in this protocol —
// tools with an object-rooted input_schema, tool_choice,
// output_config.format, the assistant turn and its tool_result errors, the
// final message whole and as Messages stream events, errors.

#include "../codec/writer.h"
#include "weld/json/serialize.h"
#include "weld/provider/anthropic.h"
#include "weld/provider/codec.h"

namespace weld::provider {
namespace {

using namespace writer;

class AnthropicMessagesCodec final : public Codec {
 public:
  Protocol protocol() const override { return Protocol::AnthropicMessages; }
  std::string_view vendor() const override { return "anthropic"; }

  std::unique_ptr<StreamParser> reader(const StreamObserver* observer) const override {
    return std::make_unique<AnthropicStreamParser>(observer);
  }
  Result<Response> read_whole(const json::Value& body) const override { return anthropic_response_from_json(body); }
  json::Value request_body(const Request& request) const override { return anthropic_request_body(request); }

  json::Value tool(const ToolSpec& spec) const override {
    json::Value tool = json::Object{{"name", spec.name}};
    if (!spec.description.empty()) tool.set("description", spec.description);
    tool.set("input_schema", object_root(spec.parameters));
    return tool;
  }

  std::string_view tool_name(const json::Value& tool) const override {
    const std::string* name = string_member(tool, "name");
    return name != nullptr ? std::string_view(*name) : std::string_view();
  }

  json::Value forced_tool_choice(std::string_view name) const override {
    return json::Object{{"type", "tool"}, {"name", name}};
  }

  // Structured outputs (GA shape): output_config.format, other members of
  // output_config kept. The root must be an object schema, as for tools;
  // the API has no place for a description.
  void set_native_format(json::Value& body, const ResponseFormat& format) const override {
    object_member(body, "output_config")
        .set("format", json::Object{{"type", "json_schema"}, {"schema", object_root(format.schema)}});
  }

  // Anthropic rejects `thinking` together with a forced tool_choice; a
  // structured-output format on the text would fight the tool's grammar.
  void drop_forced_conflicts(json::Value& body) const override {
    body.erase("thinking");
    body.erase("output_format");  // beta structured outputs
    erase_nested(body, "output_config", "format");
  }

  void set_stream(json::Value& body, bool stream) const override { body.set("stream", stream); }

  json::Value assistant_turn(const Response& response) const override {
    return json::Object{{"role", "assistant"}, {"content", content_blocks(response)}};
  }

  void append_error_results(json::Value& body, const Response& answer, const ErrorResults& results) const override {
    json::Value& messages = array_member(body, "messages");
    json::Array content;
    json::Array tool_results;
    for (json::Value& block : content_blocks(answer)) {
      const std::string* type = string_member(block, "type");
      if (type != nullptr && *type == "text") {
        // The API refuses empty text blocks in a request.
        const std::string* text = string_member(block, "text");
        if (text == nullptr || text->empty()) continue;
      }
      if (type != nullptr && *type == "tool_use") {
        const std::string* id = string_member(block, "id");
        std::string tool_use_id = id != nullptr ? *id : std::string();
        const bool failed = results.failed_call && tool_use_id == *results.failed_call;
        tool_results.push_back(json::Object{{"type", "tool_result"},
                                            {"tool_use_id", std::move(tool_use_id)},
                                            {"content", failed ? results.call_errors : std::string(kNotRun)},
                                            {"is_error", true}});
      }
      content.push_back(std::move(block));
    }
    // No call to answer: the errors go back as the user's next turn.
    if (!results.failed_call) tool_results.push_back(json::Object{{"type", "text"}, {"text", results.user_errors}});
    if (!content.empty()) messages.push_back(json::Object{{"role", "assistant"}, {"content", std::move(content)}});
    messages.push_back(json::Object{{"role", "user"}, {"content", std::move(tool_results)}});
  }

  std::string answer_id(std::string_view seed) const override { return make_id("msg_weld_", seed); }

  // Written directly (it is on every welded request's path).
  std::string answer(const AnswerHead& head, std::string_view text, const Usage& usage) const override {
    std::string out;
    out.reserve(text.size() + head.model.size() + head.id.size() + 256);
    out += R"({"id":)";
    json::write_string(out, head.id.empty() ? answer_id(text) : head.id);
    out += R"(,"type":"message","role":"assistant","model":)";
    json::write_string(out, head.model);
    out += R"(,"content":[{"type":"text","text":)";
    json::write_string(out, text);
    out += R"(}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":)";
    out += std::to_string(usage.input_tokens);
    out += R"(,"output_tokens":)";
    out += std::to_string(usage.output_tokens);
    out += "}}";
    return out;
  }

  std::string answer_stream_start(const AnswerHead& head) const override {
    std::string out;
    sse_event(out, "message_start", message_start(stream_id(head), head.model, head.input_tokens));
    return out;
  }

  std::string answer_stream_rest(const AnswerHead& head, std::string_view text, const Usage& usage) const override {
    return one_block(*this, head, text, usage);
  }

  // Anthropic's own keep-alive event, byte for byte.
  std::string keepalive_frame() const override { return "event: ping\ndata: {\"type\": \"ping\"}\n\n"; }

  json::Value pass_back(const AnswerHead& head, const Response& answer, const Usage& usage) const override {
    return json::Object{{"id", head.id.empty() ? answer_id(answer.message.text) : head.id},
                        {"type", "message"},
                        {"role", "assistant"},
                        {"model", head.model},
                        {"content", content_blocks(answer)},
                        {"stop_reason", "tool_use"},
                        {"stop_sequence", nullptr},
                        {"usage", json::Object{{"input_tokens", usage.input_tokens},
                                               {"output_tokens", usage.output_tokens}}}};
  }

  std::string pass_back_stream(const AnswerHead& head, const Response& answer, const Usage& usage) const override {
    std::string out;
    const std::string id = head.id.empty() ? answer_id(answer.message.text) : head.id;
    sse_event(out, "message_start", message_start(id, head.model, usage.input_tokens));
    std::int64_t index = 0;
    for (const json::Value& block : content_blocks(answer)) {
      const std::string* type = string_member(block, "type");
      const bool is_tool = type != nullptr && *type == "tool_use";
      json::Value start = block;
      json::Value delta;
      if (is_tool) {
        const json::Value* input = block.find("input");
        start.set("input", json::Object{});
        delta = json::Object{{"type", "input_json_delta"},
                             {"partial_json", input != nullptr ? json::serialize(*input) : std::string("{}")}};
      } else {
        const std::string* block_text = string_member(block, "text");
        start.set("text", "");
        delta = json::Object{{"type", "text_delta"}, {"text", block_text != nullptr ? *block_text : std::string()}};
      }
      sse_event(out, "content_block_start",
                json::Object{{"type", "content_block_start"}, {"index", index}, {"content_block", start}});
      sse_event(out, "content_block_delta",
                json::Object{{"type", "content_block_delta"}, {"index", index}, {"delta", delta}});
      sse_event(out, "content_block_stop", json::Object{{"type", "content_block_stop"}, {"index", index}});
      ++index;
    }
    sse_event(out, "message_delta",
              json::Object{{"type", "message_delta"},
                           {"delta", json::Object{{"stop_reason", "tool_use"}, {"stop_sequence", nullptr}}},
                           {"usage", json::Object{{"output_tokens", usage.output_tokens}}}});
    sse_event(out, "message_stop", json::Object{{"type", "message_stop"}});
    return out;
  }

  bool streams_partial() const override { return true; }

  std::string block_start(const AnswerHead& head, int index) const override {
    std::string out;
    sse_event(out, "content_block_start",
              json::Object{{"type", "content_block_start"},
                           {"index", index},
                           {"content_block", json::Object{{"type", "text"}, {"text", ""}}}});
    return out;
  }

  // Written directly: one delta per token of a partially streamed answer.
  std::string block_text(const AnswerHead& head, int index, std::string_view text) const override {
    std::string out;
    out.reserve(text.size() + 96);
    out += R"(event: content_block_delta
data: {"type":"content_block_delta","index":)";
    out += std::to_string(index);
    out += R"(,"delta":{"type":"text_delta","text":)";
    json::write_string(out, text);
    out += "}}\n\n";
    return out;
  }

  std::string block_stop(const AnswerHead& head, int index) const override {
    std::string out;
    sse_event(out, "content_block_stop", json::Object{{"type", "content_block_stop"}, {"index", index}});
    return out;
  }

  std::string message_end(const AnswerHead& head, const Usage& usage) const override {
    std::string out;
    sse_event(out, "message_delta",
              json::Object{{"type", "message_delta"},
                           {"delta", json::Object{{"stop_reason", "end_turn"}, {"stop_sequence", nullptr}}},
                           {"usage", json::Object{{"input_tokens", usage.input_tokens},
                                                  {"output_tokens", usage.output_tokens}}}});
    sse_event(out, "message_stop", json::Object{{"type", "message_stop"}});
    return out;
  }

  std::string discard(const AnswerHead& head, int index, std::string_view marker,
                      const json::Value& event) const override {
    std::string out = block_text(head, index, marker);
    out += block_stop(head, index);
    sse_event(out, "weld.discard", event);
    return out;
  }

  json::Value error_body(std::string_view type, std::string_view message,
                         const json::Value* candidate) const override {
    json::Value error = json::Object{{"type", type}, {"message", message}};
    if (candidate != nullptr) error.set("candidate", *candidate);
    return json::Object{{"type", "error"}, {"error", std::move(error)}};
  }

  std::string stream_error(std::string_view type, std::string_view message,
                           const json::Value* candidate) const override {
    std::string out;
    sse_event(out, "error", error_body(type, message, candidate));
    return out;
  }

  std::string_view rate_limit_type() const override { return "rate_limit_error"; }
  std::string_view upstream_error_type() const override { return "api_error"; }

 private:
  // The answer's content blocks in the order the server sent them.
  static json::Array content_blocks(const Response& response) {
    json::Array content;
    content.reserve(response.parts.size());
    for (const Part& part : response.parts) {
      switch (part.kind) {
        case Part::Kind::Text: content.push_back(json::Object{{"type", "text"}, {"text", part.text}}); break;
        case Part::Kind::ToolCall: {
          const ToolCall& call = response.message.tool_calls[part.tool_call];
          // A call whose arguments are not an object goes back with {} (its
          // id kept, so the error tool_result still pairs with it).
          content.push_back(json::Object{{"type", "tool_use"},
                                         {"id", call.id},
                                         {"name", call.name},
                                         {"input", object_or_empty(call.arguments)}});
          break;
        }
        case Part::Kind::Other: content.push_back(part.raw); break;
      }
    }
    return content;
  }

  std::string stream_id(const AnswerHead& head) const {
    return head.id.empty() ? answer_id(head.model + "\n" + std::to_string(head.created)) : head.id;
  }

  // The opening event's message; usage zero until the end but the input
  // tokens when known.
  static json::Value message_start(const std::string& id, const std::string& model, std::int64_t input_tokens) {
    return json::Object{{"type", "message_start"},
                        {"message", json::Object{{"id", id},
                                                 {"type", "message"},
                                                 {"role", "assistant"},
                                                 {"model", model},
                                                 {"content", json::Array{}},
                                                 {"stop_reason", nullptr},
                                                 {"stop_sequence", nullptr},
                                                 {"usage", json::Object{{"input_tokens", input_tokens},
                                                                        {"output_tokens", 0}}}}}};
  }
};

}  // namespace

const Codec& anthropic_messages_codec() {
  static const AnthropicMessagesCodec codec;
  return codec;
}

}  // namespace weld::provider
