// Request building for Gemini generateContent (docs/protocols.md, "Codecs"):
// the conversation as `contents` ("user" / "model" turns of `parts`), the
// system prompt as `systemInstruction`, tools, tool forcing and the native
// format by the codec, and the limit and sampling in `generationConfig`.
#include <string>

#include "../codec/writer.h"
#include "weld/provider/codec.h"
#include "weld/provider/gemini.h"
#include "weld/provider/http.h"
#include "weld/provider/sampling.h"

namespace weld::provider {

std::string gemini_stream_url(std::string_view base_url, std::string_view model) {
  return url_with_path(base_url, "models/" + std::string(model) + ":streamGenerateContent?alt=sse");
}

json::Value gemini_request_body(const Request& request) {
  json::Array contents;
  for (const Message& message : request.messages) {
    json::Array parts;
    if (message.role == Role::Assistant) {
      if (!message.text.empty()) parts.push_back(json::Object{{"text", message.text}});
      for (const ToolCall& call : message.tool_calls) {
        json::Value function_call = json::Object{{"name", call.name}, {"args", writer::object_or_empty(call.arguments)}};
        if (!call.id.empty()) function_call.set("id", call.id);
        parts.push_back(json::Object{{"functionCall", std::move(function_call)}});
      }
    } else {
      // A function response names its call's function; the conversation
      // holds it in the assistant turn before.
      for (const ToolResult& result : message.tool_results) {
        std::string name;
        for (const Message& earlier : request.messages)
          for (const ToolCall& call : earlier.tool_calls)
            if (call.id == result.tool_call_id) name = call.name;
        json::Value response = json::Object{{result.is_error ? "error" : "output", result.content}};
        parts.push_back(json::Object{{"functionResponse", json::Object{{"id", result.tool_call_id},
                                                                      {"name", std::move(name)},
                                                                      {"response", std::move(response)}}}});
      }
      if (!message.text.empty()) parts.push_back(json::Object{{"text", message.text}});
    }
    if (parts.empty()) continue;  // the API refuses a turn without parts
    contents.push_back(json::Object{{"role", message.role == Role::Assistant ? "model" : "user"},
                                    {"parts", std::move(parts)}});
  }
  json::Value body = json::Object{{"contents", std::move(contents)}};
  if (!request.system.empty())
    body.set("systemInstruction", json::Object{{"parts", json::Array{json::Object{{"text", request.system}}}}});
  writer::put_tools(codec_for(Protocol::GeminiGenerateContent), body, request);
  json::Value& config = writer::object_member(body, "generationConfig");
  config.set("maxOutputTokens", request.max_tokens);
  put_sampling(config, request.sampling, sampling_names(Protocol::GeminiGenerateContent));
  return body;
}

}  // namespace weld::provider
