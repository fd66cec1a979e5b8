// The Gemini generateContent codec (docs/protocols.md, "Codecs"): beside the
// reader (gemini_stream.cc), every shape weld writes in this protocol —
// `functionDeclarations`, `toolConfig` forcing one, the JSON response
// format in `generationConfig`, the model turn and its functionResponse
// errors, the final answer whole and as `data:` chunks, errors in Google's
// shape. No partial answers: a client gets the whole answer at the end.

#include "../codec/writer.h"
#include "weld/json/serialize.h"
#include "weld/provider/codec.h"
#include "weld/provider/gemini.h"

namespace weld::provider {
namespace {

using namespace writer;

json::Value usage_object(const Usage& usage) {
  return json::Object{{"promptTokenCount", usage.input_tokens},
                      {"candidatesTokenCount", usage.output_tokens},
                      {"totalTokenCount", usage.total()}};
}

class GeminiCodec final : public Codec {
 public:
  Protocol protocol() const override { return Protocol::GeminiGenerateContent; }
  std::string_view vendor() const override { return "gcp.gemini"; }

  std::unique_ptr<StreamParser> reader(const StreamObserver* observer) const override {
    return std::make_unique<GeminiStreamParser>(observer);
  }
  Result<Response> read_whole(const json::Value& body) const override { return gemini_response_from_json(body); }
  json::Value request_body(const Request& request) const override { return gemini_request_body(request); }

  // One Tool object per function: {"functionDeclarations":[…]}.
  json::Value tool(const ToolSpec& spec) const override {
    json::Value declaration = json::Object{{"name", spec.name}};
    if (!spec.description.empty()) declaration.set("description", spec.description);
    declaration.set("parameters", object_root(spec.parameters));
    return json::Object{{"functionDeclarations", json::Array{std::move(declaration)}}};
  }

  std::string_view tool_name(const json::Value& tool) const override {
    const json::Array* declarations = array_member(tool, "functionDeclarations");
    if (declarations == nullptr || declarations->size() != 1) return {};
    const std::string* name = string_member((*declarations)[0], "name");
    return name != nullptr ? std::string_view(*name) : std::string_view();
  }

  json::Value forced_tool_choice(std::string_view name) const override {
    return json::Object{
        {"functionCallingConfig", json::Object{{"mode", "ANY"}, {"allowedFunctionNames", json::Array{name}}}}};
  }
  void force_tool(json::Value& body, std::string_view name) const override {
    body.set("toolConfig", forced_tool_choice(name));
  }
  void clear_tools(json::Value& body) const override {
    body.erase("tools");
    body.erase("toolConfig");
  }

  // `responseJsonSchema` (a JSON Schema, Gemini 2.5 and later) with the JSON
  // MIME type; other generationConfig members kept. No place for a name or
  // a description.
  void set_native_format(json::Value& body, const ResponseFormat& format) const override {
    json::Value& config = object_member(body, "generationConfig");
    config.erase("responseSchema");
    config.set("responseMimeType", "application/json");
    config.set("responseJsonSchema", object_root(format.schema));
  }

  void drop_forced_conflicts(json::Value& body) const override {
    json::Value* config = body.find("generationConfig");
    if (config == nullptr || !config->is_object()) return;
    config->erase("responseSchema");
    config->erase("responseJsonSchema");
    config->erase("responseMimeType");
    if (config->size() == 0) body.erase("generationConfig");
  }

  // Streaming is chosen by the URL (streamGenerateContent), not the body.
  void set_stream(json::Value& body, bool stream) const override {}

  json::Value assistant_turn(const Response& response) const override {
    json::Array parts;
    for (const Part& part : response.parts) {
      switch (part.kind) {
        case Part::Kind::Text: parts.push_back(json::Object{{"text", part.text}}); break;
        case Part::Kind::ToolCall: {
          const ToolCall& call = response.message.tool_calls[part.tool_call];
          parts.push_back(json::Object{
              {"functionCall", json::Object{{"id", call.id}, {"name", call.name}, {"args", object_or_empty(call.arguments)}}}});
          break;
        }
        case Part::Kind::Other: parts.push_back(part.raw); break;
      }
    }
    return json::Object{{"role", "model"}, {"parts", std::move(parts)}};
  }

  void append_error_results(json::Value& body, const Response& answer, const ErrorResults& results) const override {
    json::Value& contents = array_member(body, "contents");
    json::Array kept;
    json::Array responses;
    json::Value turn = assistant_turn(answer);
    if (json::Value* parts = turn.find("parts"); parts != nullptr && parts->is_array()) {
      for (json::Value& part : parts->as_array()) {
        const std::string* text = string_member(part, "text");
        if (text != nullptr && text->empty()) continue;  // an empty part is refused
        const json::Value* call = part.is_object() ? part.find("functionCall") : nullptr;
        if (call != nullptr && call->is_object()) {
          const std::string* id = string_member(*call, "id");
          const std::string* name = string_member(*call, "name");
          const bool failed = results.failed_call && id != nullptr && *id == *results.failed_call;
          responses.push_back(json::Object{
              {"functionResponse",
               json::Object{{"id", id != nullptr ? *id : std::string()},
                            {"name", name != nullptr ? *name : std::string()},
                            {"response", json::Object{{"error", failed ? results.call_errors : std::string(kNotRun)}}}}}});
        }
        kept.push_back(std::move(part));
      }
    }
    if (!results.failed_call) responses.push_back(json::Object{{"text", results.user_errors}});
    if (!kept.empty()) contents.push_back(json::Object{{"role", "model"}, {"parts", std::move(kept)}});
    contents.push_back(json::Object{{"role", "user"}, {"parts", std::move(responses)}});
  }

  void append_follow_up(json::Value& body, const Response& answer, std::string_view ask) const override {
    json::Value* contents = body.is_object() ? body.find("contents") : nullptr;
    if (contents == nullptr || !contents->is_array()) return;
    if (!answer.message.text.empty()) contents->push_back(assistant_turn(answer));
    contents->push_back(json::Object{{"role", "user"}, {"parts", json::Array{json::Object{{"text", ask}}}}});
  }

  std::string answer_id(std::string_view seed) const override { return make_id("weld-", seed); }

  std::string answer(const AnswerHead& head, std::string_view text, const Usage& usage) const override {
    return json::serialize(response_object(head, text_content(text), "STOP", usage, head.id.empty() ? answer_id(text) : head.id));
  }

  // No opening frame: every chunk is a whole GenerateContentResponse.
  std::string answer_stream_start(const AnswerHead& head) const override { return {}; }

  std::string answer_stream_rest(const AnswerHead& head, std::string_view text, const Usage& usage) const override {
    const std::string id = head.id.empty() ? answer_id(text) : head.id;
    std::string out;
    std::vector<std::string_view> pieces = text_deltas(text);
    if (pieces.empty()) pieces.emplace_back();
    for (std::size_t i = 0; i < pieces.size(); ++i) {
      const bool last = i + 1 == pieces.size();
      json::Value chunk = json::Object{
          {"candidates", json::Array{json::Object{{"content", text_content(pieces[i])}, {"index", 0}}}},
          {"modelVersion", head.model},
          {"responseId", id}};
      if (last) {
        chunk.find("candidates")->as_array()[0].set("finishReason", "STOP");
        chunk.set("usageMetadata", usage_object(usage));
      }
      sse_data(out, chunk);
    }
    return out;
  }

  std::string keepalive_frame() const override { return ": keep-alive\n\n"; }

  json::Value pass_back(const AnswerHead& head, const Response& answer, const Usage& usage) const override {
    return response_object(head, assistant_turn(answer), "STOP", usage,
                           head.id.empty() ? answer_id(answer.message.text) : head.id);
  }

  std::string pass_back_stream(const AnswerHead& head, const Response& answer, const Usage& usage) const override {
    std::string out;
    sse_data(out, pass_back(head, answer, usage));
    return out;
  }

  // Google's error shape: {"error":{"code","message","status"}}.
  json::Value error_body(std::string_view type, std::string_view message,
                         const json::Value* candidate) const override {
    json::Value error = json::Object{{"message", message}, {"status", type}};
    if (candidate != nullptr) error.set("candidate", *candidate);
    return json::Object{{"error", std::move(error)}};
  }

  std::string stream_error(std::string_view type, std::string_view message,
                           const json::Value* candidate) const override {
    std::string out;
    sse_data(out, error_body(type, message, candidate));
    return out;
  }

  std::string_view rate_limit_type() const override { return "RESOURCE_EXHAUSTED"; }
  std::string_view upstream_error_type() const override { return "UNAVAILABLE"; }

 private:
  static json::Value text_content(std::string_view text) {
    return json::Object{{"role", "model"}, {"parts", json::Array{json::Object{{"text", text}}}}};
  }

  static json::Value response_object(const AnswerHead& head, json::Value content, std::string_view finish,
                                     const Usage& usage, const std::string& id) {
    return json::Object{
        {"candidates",
         json::Array{json::Object{{"content", std::move(content)}, {"finishReason", finish}, {"index", 0}}}},
        {"usageMetadata", usage_object(usage)},
        {"modelVersion", head.model},
        {"responseId", id}};
  }
};

}  // namespace

const Codec& gemini_codec() {
  static const GeminiCodec codec;
  return codec;
}

}  // namespace weld::provider
