// Request building for the Anthropic Messages API: content blocks
// (text, tool_use, tool_result), tools with an input_schema whose root is
// "type":"object" (the API rejects anything else; validation still uses
// the original schema), a forced tool_choice, streaming.
#include <string>

#include "weld/json/parse.h"
#include "weld/provider/anthropic.h"
#include "weld/provider/http.h"
#include "weld/provider/sampling.h"

namespace weld::provider {
namespace {

// tool_use.input must be an object. Arguments that are empty, invalid or
// not an object are sent as {} with the call id kept, so the tool_result in
// the next message still pairs with it.
json::Value input_to_send(const std::string& arguments) {
  if (arguments.empty()) return json::Object{};
  auto parsed = json::parse(arguments);
  if (!parsed || !parsed->is_object()) return json::Object{};
  return std::move(*parsed);
}

}  // namespace

std::string anthropic_url(std::string_view base_url, std::string_view endpoint) {
  // The host, or the host with /v1 (as ANTHROPIC_BASE_URL is sometimes given).
  std::string_view path = base_url.substr(0, base_url.find_first_of("?#"));
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  const bool has_v1 = path.size() >= 3 && path.substr(path.size() - 3) == "/v1";
  return url_with_path(base_url, (has_v1 ? "" : "v1/") + std::string(endpoint));
}

std::string anthropic_messages_url(std::string_view base_url) { return anthropic_url(base_url, "messages"); }

json::Value anthropic_input_schema(const json::Value& schema) {
  if (!schema.is_object()) return json::Object{{"type", "object"}};
  if (schema.find("type")) return schema;
  json::Object out;
  out.push_back({"type", "object"});
  for (const json::Member& member : schema.as_object()) out.push_back(member);
  return out;
}

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
                                       {"input", input_to_send(call.arguments)}});
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
  if (!request.tools.empty()) {
    json::Array tools;
    for (const ToolSpec& tool : request.tools) {
      json::Value entry = json::Object{{"name", tool.name}};
      if (!tool.description.empty()) entry.set("description", tool.description);
      entry.set("input_schema", anthropic_input_schema(tool.parameters));
      tools.push_back(std::move(entry));
    }
    body.set("tools", std::move(tools));
    if (request.forced_tool)
      body.set("tool_choice", json::Object{{"type", "tool"}, {"name", *request.forced_tool}});
  }
  if (request.response_format) {
    // Structured outputs (GA shape): output_config.format. The root must be
    // an object schema, as for tool input schemas.
    body.set("output_config",
             json::Object{{"format", json::Object{{"type", "json_schema"},
                                                  {"schema", anthropic_input_schema(request.response_format->schema)}}}});
  }
  put_sampling(body, request.sampling, sampling_names(Protocol::AnthropicMessages));
  body.set("stream", true);
  return body;
}

}  // namespace weld::provider
