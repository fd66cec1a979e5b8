// Request building for the Anthropic Messages API: content blocks
// (text, tool_use, tool_result), tools with an input_schema whose root is
// "type":"object" (the API rejects anything else; validation still uses
// the original schema), a forced tool_choice, streaming.
#include <string>

#include "weld/json/parse.h"
#include "weld/provider/anthropic.h"
#include "../codec/writer.h"
#include "weld/provider/codec.h"
#include "weld/provider/http.h"
#include "weld/provider/sampling.h"

namespace weld::provider {

std::string anthropic_url(std::string_view base_url, std::string_view endpoint) {
  // The host, or the host with /v1 (as ANTHROPIC_BASE_URL is sometimes given).
  std::string_view path = base_url.substr(0, base_url.find_first_of("?#"));
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  const bool has_v1 = path.size() >= 3 && path.substr(path.size() - 3) == "/v1";
  return url_with_path(base_url, (has_v1 ? "" : "v1/") + std::string(endpoint));
}

std::string anthropic_messages_url(std::string_view base_url) { return anthropic_url(base_url, "messages"); }

json::Value anthropic_request_body(const Request& request) {
  json::Array messages;
  for (const Message& message : request.messages) {
    json::Array content;
    if (message.role == Role::Assistant) {
      // Empty text blocks are rejected by the API.
      if (!message.text.empty())
        content.push_back(json::Object{{"type", "text"}, {"text", message.text}});
      for (const ToolCall& call : message.tool_calls) {
        content.push_back(json::Object{{"type", "tool_use"},
                                       {"id", call.id},
                                       {"name", call.name},
                                       {"input", writer::object_or_empty(call.arguments)}});
      }
    } else {
      // tool_result blocks must come first in the user turn.
      for (const ToolResult& result : message.tool_results) {
        json::Value block = json::Object{{"type", "tool_result"},
                                         {"tool_use_id", result.tool_call_id},
                                         {"content", result.content}};
        if (result.is_error) block.set("is_error", true);
        content.push_back(std::move(block));
      }
      if (!message.text.empty())
        content.push_back(json::Object{{"type", "text"}, {"text", message.text}});
    }
    // A message with nothing to say is dropped (the API rejects empty
    // content; consecutive same-role turns are merged by the API).
    if (content.empty()) continue;
    messages.push_back(json::Object{{"role", message.role == Role::Assistant ? "assistant" : "user"},
                                    {"content", std::move(content)}});
  }

  json::Value body = json::Object{{"model", request.model}, {"max_tokens", request.max_tokens}};
  if (!request.system.empty()) body.set("system", request.system);
  body.set("messages", std::move(messages));
  writer::put_tools(codec_for(Protocol::AnthropicMessages), body, request);
  put_sampling(body, request.sampling, sampling_names(Protocol::AnthropicMessages));
  body.set("stream", true);
  return body;
}

}  // namespace weld::provider
