// What the client receives (SPEC §3.3 step 4-5): the validated JSON as plain
// assistant text in the client's API shape, or an error in that API's error
// shape. Shapes are exactly what the official SDKs parse.

#include "responses_api.h"
#include "weld/json/serialize.h"
#include "weld/proxy/weld.h"
#include "wire.h"

namespace weld::proxy {

std::string render_response(Api api, const Candidate& last, std::string_view text, const Usage& usage,
                            std::string_view client_model) {
  if (api == Api::Responses) return responses_api::render_response(last, text, usage, client_model);
  std::string out;
  out.reserve(text.size() + client_model.size() + last.id.size() + 256);
  if (api == Api::Anthropic) {
    out += R"({"id":)";
    json::write_string(out, last.id.empty() ? wire::make_id("msg_weld_", text) : last.id);
    out += R"(,"type":"message","role":"assistant","model":)";
    json::write_string(out, client_model);
    out += R"(,"content":[{"type":"text","text":)";
    json::write_string(out, text);
    out += R"(}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":)";
    out += std::to_string(usage.input_tokens);
    out += R"(,"output_tokens":)";
    out += std::to_string(usage.output_tokens);
    out += "}}";
    return out;
  }
  out += R"({"id":)";
  json::write_string(out, last.id.empty() ? wire::make_id("chatcmpl-weld", text) : last.id);
  out += R"(,"object":"chat.completion","created":)";
  out += std::to_string(last.created);
  out += R"(,"model":)";
  json::write_string(out, client_model);
  out += R"(,"choices":[{"index":0,"message":{"role":"assistant","content":)";
  json::write_string(out, text);
  out += R"(},"finish_reason":"stop"}],"usage":{"prompt_tokens":)";
  out += std::to_string(usage.input_tokens);
  out += R"(,"completion_tokens":)";
  out += std::to_string(usage.output_tokens);
  out += R"(,"total_tokens":)";
  out += std::to_string(usage.total());
  out += "}}";
  return out;
}

std::string keepalive_frame(Api api) {
  // Anthropic's own keep-alive event, byte for byte; for OpenAI an SSE
  // comment, which every SSE parser skips.
  if (api == Api::Anthropic) return "event: ping\ndata: {\"type\": \"ping\"}\n\n";
  return ": keep-alive\n\n";
}

json::Value render_error(Api api, std::string_view type, std::string_view message,
                         const json::Value* candidate) {
  json::Value error;
  if (api == Api::Anthropic) {
    error = json::Object{{"type", type}, {"message", message}};
  } else {
    error = json::Object{{"message", message}, {"type", type}, {"param", nullptr}, {"code", nullptr}};
  }
  if (candidate != nullptr) error.set("candidate", *candidate);
  if (api == Api::Anthropic) return json::Object{{"type", "error"}, {"error", std::move(error)}};
  return json::Object{{"error", std::move(error)}};
}

std::string render_stream_error(Api api, std::string_view type, std::string_view message,
                                const json::Value* candidate) {
  if (api == Api::Responses) return responses_api::render_stream_error(render_error(api, type, message, candidate));
  std::string out = api == Api::Anthropic ? "event: error\ndata: " : "data: ";
  json::serialize_to(out, render_error(api, type, message, candidate));
  out += "\n\n";
  return out;
}

}  // namespace weld::proxy
