// Request building for OpenAI Chat Completions: the conversation
// in the API's own shape, tools as {type:"function",function:{…}}, a forced
// tool_choice for the structured_output contract, streaming with usage.
#include <cctype>
#include <string>

#include "../reader/fields.h"
#include "weld/base/ascii.h"
#include "weld/json/parse.h"
#include "weld/provider/http.h"
#include "weld/provider/openai.h"
#include "weld/provider/sampling.h"
#include "../codec/writer.h"
#include "weld/provider/codec.h"

namespace weld::provider {
using fields::arguments_to_send;

std::string openai_chat_url(std::string_view base_url) { return url_with_path(base_url, "chat/completions"); }

OpenAiDialect openai_dialect_for(std::string_view base_url) {
  OpenAiDialect dialect;
  const std::string lower = ascii_lower(std::string(base_url));
  dialect.max_completion_tokens = lower.rfind("https://api.openai.com/", 0) == 0 || lower == "https://api.openai.com";
  dialect.top_k = !dialect.max_completion_tokens;
  return dialect;
}

json::Value openai_request_body(const Request& request, const OpenAiDialect& dialect) {
  json::Array messages;
  if (!request.system.empty())
    messages.push_back(json::Object{{"role", "system"}, {"content", request.system}});
  for (const Message& message : request.messages) {
    if (message.role == Role::Assistant) {
      json::Value out = json::Object{{"role", "assistant"}};
      if (message.text.empty() && !message.tool_calls.empty()) {
        out.set("content", nullptr);
      } else {
        out.set("content", message.text);
      }
      if (!message.tool_calls.empty()) {
        json::Array calls;
        for (const ToolCall& call : message.tool_calls) {
          calls.push_back(json::Object{
              {"id", call.id},
              {"type", "function"},
              {"function",
               json::Object{{"name", call.name}, {"arguments", arguments_to_send(call.arguments)}}}});
        }
        out.set("tool_calls", std::move(calls));
      }
      messages.push_back(std::move(out));
      continue;
    }
    // A user turn: tool results first (each must follow the assistant
    // message that made the call), then the user's text, if any.
    for (const ToolResult& result : message.tool_results) {
      messages.push_back(json::Object{
          {"role", "tool"}, {"tool_call_id", result.tool_call_id}, {"content", result.content}});
    }
    if (!message.text.empty() || message.tool_results.empty())
      messages.push_back(json::Object{{"role", "user"}, {"content", message.text}});
  }

  json::Value body = json::Object{{"model", request.model}, {"messages", std::move(messages)}};
  writer::put_tools(codec_for(Protocol::OpenAiChat), body, request);
  body.set(dialect.max_completion_tokens ? "max_completion_tokens" : "max_tokens", request.max_tokens);
  put_sampling(body, request.sampling, sampling_names(Protocol::OpenAiChat, dialect.top_k));
  body.set("stream", true);
  body.set("stream_options", json::Object{{"include_usage", true}});
  return body;
}

}  // namespace weld::provider
