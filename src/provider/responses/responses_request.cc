// Request building for the OpenAI Responses API (docs/protocols.md): the
// conversation as `input` items, function tools in the API's flat shape, a
// forced tool_choice for the structured_output contract, `text.format`
// json_schema for the native mechanism, streaming, nothing stored.
#include <string>

#include "../reader/fields.h"
#include "weld/json/parse.h"
#include "weld/provider/http.h"
#include "weld/provider/responses.h"
#include "weld/provider/sampling.h"
#include "../codec/writer.h"
#include "weld/provider/codec.h"

namespace weld::provider {
using fields::arguments_to_send;

std::string responses_url(std::string_view base_url) { return url_with_path(base_url, "responses"); }

json::Value responses_request_body(const Request& request) {
  json::Array input;
  for (const Message& message : request.messages) {
    if (message.role == Role::Assistant) {
      if (!message.text.empty())
        input.push_back(json::Object{{"role", "assistant"}, {"content", message.text}});
      for (const ToolCall& call : message.tool_calls) {
        input.push_back(json::Object{{"type", "function_call"},
                                     {"call_id", call.id},
                                     {"name", call.name},
                                     {"arguments", arguments_to_send(call.arguments)}});
      }
      continue;
    }
    // Tool results first (each answers a function_call above), then text.
    for (const ToolResult& result : message.tool_results) {
      input.push_back(json::Object{
          {"type", "function_call_output"}, {"call_id", result.tool_call_id}, {"output", result.content}});
    }
    if (!message.text.empty() || message.tool_results.empty())
      input.push_back(json::Object{{"role", "user"}, {"content", message.text}});
  }

  json::Value body = json::Object{{"model", request.model}};
  if (!request.system.empty()) body.set("instructions", request.system);
  body.set("input", std::move(input));
  writer::put_tools(codec_for(Protocol::OpenAiResponses), body, request);
  body.set("max_output_tokens", request.max_tokens);
  put_sampling(body, request.sampling, sampling_names(Protocol::OpenAiResponses));
  body.set("stream", true);
  body.set("store", false);
  return body;
}

}  // namespace weld::provider
