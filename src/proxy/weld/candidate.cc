// Reducing an upstream answer to a candidate (SPEC §3.3 step 3): the agent's
// tool call is found by its block (Anthropic `tool_use`, OpenAI
// `tool_calls[]`), never by stop_reason / finish_reason, which servers fill
// differently. The answer itself was read by the provider's reader of the
// protocol (one reader per wire protocol, docs/protocols.md); this only
// picks the call out and gives the message back in the API's own shape.

#include "responses_api.h"
#include "weld/proxy/weld.h"
#include "wire.h"

namespace weld::proxy {
namespace {

json::Value anthropic_message(const provider::Response& response) {
  json::Array content;
  content.reserve(response.parts.size());
  for (const provider::Part& part : response.parts) {
    switch (part.kind) {
      case provider::Part::Kind::Text:
        content.push_back(json::Object{{"type", "text"}, {"text", part.text}});
        break;
      case provider::Part::Kind::ToolCall: {
        const provider::ToolCall& call = response.message.tool_calls[part.tool_call];
        // A call whose arguments are not an object goes back with {} (its
        // id kept, so the error tool_result still pairs with it).
        content.push_back(json::Object{{"type", "tool_use"},
                                       {"id", call.id},
                                       {"name", call.name},
                                       {"input", wire::parse_object(call.arguments).value_or(json::Object{})}});
        break;
      }
      case provider::Part::Kind::Other: content.push_back(part.raw); break;
    }
  }
  return json::Object{{"role", "assistant"}, {"content", std::move(content)}};
}

json::Value openai_message(const provider::Response& response) {
  bool has_text = false;
  json::Array calls;
  for (const provider::Part& part : response.parts) {
    if (part.kind == provider::Part::Kind::Text) has_text = true;
    if (part.kind != provider::Part::Kind::ToolCall) continue;
    const provider::ToolCall& call = response.message.tool_calls[part.tool_call];
    calls.push_back(json::Object{
        {"id", call.id},
        {"type", "function"},
        {"function", json::Object{{"name", call.name}, {"arguments", call.arguments}}}});
  }
  json::Value message = json::Object{{"role", "assistant"}};
  message.set("content", has_text ? json::Value(response.message.text) : json::Value());
  if (!calls.empty()) message.set("tool_calls", std::move(calls));
  return message;
}

}  // namespace

provider::Protocol protocol_of(Api api) {
  switch (api) {
    case Api::Anthropic: return provider::Protocol::AnthropicMessages;
    case Api::Responses: return provider::Protocol::OpenAiResponses;
    case Api::OpenAI: break;
  }
  return provider::Protocol::OpenAiChat;
}

Candidate make_candidate(Api api, provider::Response response, std::string_view agent_tool) {
  Candidate c;
  switch (api) {
    case Api::Anthropic: c.assistant_message = anthropic_message(response); break;
    case Api::Responses: c.assistant_message = responses_api::output_items(response); break;
    case Api::OpenAI: c.assistant_message = openai_message(response); break;
  }
  for (provider::ToolCall& call : response.message.tool_calls) {
    if (call.name != agent_tool) {
      c.has_other_tool_calls = true;
    } else if (!c.found) {
      c.found = true;
      c.tool_call_id = call.id;
      c.arguments = std::move(call.arguments);
    }
  }
  c.text = std::move(response.message.text);
  c.usage = response.usage;
  c.id = std::move(response.id);
  c.model = std::move(response.model);
  c.created = response.created;
  return c;
}

}  // namespace weld::proxy
