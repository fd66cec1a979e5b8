// What the client receives (SPEC §3.3 step 4-5): the validated JSON as plain
// assistant text in the client's API shape, or an error in that API's error
// shape. Shapes are exactly what the official SDKs parse.

#include "weld/json/serialize.h"
#include "weld/proxy/weld.h"
#include "wire.h"

namespace weld::proxy {

json::Value render_response(Api api, const Candidate& last, std::string_view text, const Usage& usage,
                            std::string_view client_model) {
  if (api == Api::Anthropic) {
    std::string id = last.id.empty() ? wire::make_id("msg_weld_", text) : last.id;
    return json::Object{
        {"id", std::move(id)},
        {"type", "message"},
        {"role", "assistant"},
        {"model", client_model},
        {"content", json::Array{json::Object{{"type", "text"}, {"text", text}}}},
        {"stop_reason", "end_turn"},
        {"stop_sequence", nullptr},
        {"usage", json::Object{{"input_tokens", usage.input_tokens}, {"output_tokens", usage.output_tokens}}}};
  }
  std::string id = last.id.empty() ? wire::make_id("chatcmpl-weld", text) : last.id;
  return json::Object{
      {"id", std::move(id)},
      {"object", "chat.completion"},
      {"created", last.created},
      {"model", client_model},
      {"choices", json::Array{json::Object{
                      {"index", 0},
                      {"message", json::Object{{"role", "assistant"}, {"content", text}}},
                      {"finish_reason", "stop"}}}},
      {"usage", json::Object{{"prompt_tokens", usage.input_tokens},
                             {"completion_tokens", usage.output_tokens},
                             {"total_tokens", usage.total()}}}};
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
  std::string out = api == Api::Anthropic ? "event: error\ndata: " : "data: ";
  json::serialize_to(out, render_error(api, type, message, candidate));
  out += "\n\n";
  return out;
}

}  // namespace weld::proxy
