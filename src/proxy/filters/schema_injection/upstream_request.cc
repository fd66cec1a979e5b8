// Rewriting a tagged client request for the upstream (docs/proxy.md). The
// client body is copied member by member in its own order; only the members
// the weld owns are replaced, added or dropped, each written by the codec of
// the client's protocol (docs/protocols.md, "Codecs").

#include "weld/proxy/weld.h"

namespace weld::proxy {
namespace {

provider::ToolSpec tool_spec(const Agent& agent) {
  return provider::ToolSpec{agent.name, agent.description, agent.input_schema};
}

json::Value agent_tool(const provider::Codec& codec, const Agent& agent) {
  const json::Value& cached = agent.tools[static_cast<std::size_t>(codec.protocol())];
  return cached.is_null() ? codec.tool(tool_spec(agent)) : cached;
}

// vLLM / SGLang / llama.cpp pass `chat_template_kwargs` to the chat template;
// Qwen3-style templates turn reasoning off with enable_thinking=false. Keeps
// any other kwargs the client sent.
// An agent's own kwargs (registry) replace that default and are sent even
// when the tool is not forced.
void set_template_kwargs(const provider::Codec& codec, json::Value& body, const Agent& agent, bool forced) {
  if (!agent.chat_template_kwargs) return;
  const bool own = agent.template_kwargs.is_object();
  if (!own && !forced) return;
  json::Value* kwargs = codec.template_kwargs(body);
  if (kwargs == nullptr) return;
  if (!own) {
    kwargs->set("enable_thinking", false);
    return;
  }
  for (const json::Member& member : agent.template_kwargs.as_object()) kwargs->set(member.key, member.value);
}

// Two-phase: the client's tools (moved out of `body`), with the agent's tool
// replacing a client tool of the same name or appended after them.
json::Value merged_tools(const provider::Codec& codec, json::Value& body, const Agent& agent) {
  json::Array tools;
  bool replaced = false;
  if (json::Value* client_tools = body.find("tools"); client_tools != nullptr && client_tools->is_array()) {
    for (json::Value& tool : client_tools->as_array()) {
      if (codec.tool_name(tool) == agent.name) {
        if (!replaced) tools.push_back(agent_tool(codec, agent));
        replaced = true;
        continue;
      }
      tools.push_back(std::move(tool));
    }
  }
  if (!replaced) tools.push_back(agent_tool(codec, agent));
  return tools;
}

// The provider's own constrained decoding of the agent's schema: lowered for
// the protocol's own structured output (weld/schema/lower.h: openai-strict
// for Chat and Responses, sent with strict: true; anthropic for Anthropic),
// as a run lowers it; weld maps the answer back and validates it against
// the full schema.
provider::ResponseFormat native_format(const Agent& agent, Protocol api) {
  provider::ResponseFormat format;
  format.name = agent.name;
  format.description = agent.description;
  format.schema = native_lowering(agent, api)->schema();
  format.strict = true;
  return format;
}

}  // namespace

void prepare_agent(Agent& agent) {
  for (std::size_t i = 0; i < provider::kProtocolCount; ++i) {
    agent.tools[i] = provider::codec_for(static_cast<Protocol>(i)).tool(tool_spec(agent));
  }
  agent.native_openai.reset();
  agent.native_anthropic.reset();
  if (agent.mechanism != Mechanism::Tool) {  // native or auto: lowered once, here
    agent.native_openai = native_lowering(agent, Protocol::OpenAiChat);
    agent.native_anthropic = native_lowering(agent, Protocol::AnthropicMessages);
  }
}

std::shared_ptr<const schema::Lowering> native_lowering(const Agent& agent, Protocol api) {
  const bool anthropic = api == Protocol::AnthropicMessages;
  if (const auto& prepared = anthropic ? agent.native_anthropic : agent.native_openai) return prepared;
  return std::make_shared<const schema::Lowering>(schema::Lowering::lower(
      provider::object_root(agent.input_schema), anthropic ? schema::Target::Anthropic : schema::Target::OpenAIStrict));
}

json::Value build_upstream_request(Protocol api, json::Value client_body, const Agent& agent,
                                   std::string_view base_model, bool upstream_stream,
                                   bool force_agent_tool) {
  const provider::Codec& codec = provider::codec_for(api);
  json::Value body = client_body.is_object() ? std::move(client_body) : json::Value(json::Object{});
  body.set("model", base_model);

  if (agent.mode == Mode::Forced && agent.mechanism == Mechanism::Native) {
    // The provider's own constrained decoding; the answer is the message
    // text, so no tool is offered at all.
    codec.clear_tools(body);
    codec.drop_forced_conflicts(body);
    codec.set_native_format(body, native_format(agent, api));
    set_template_kwargs(codec, body, agent, /*forced=*/true);
    codec.set_stream(body, upstream_stream);
    return body;
  }
  const bool forced = agent.mode == Mode::Forced || force_agent_tool;
  if (agent.mode == Mode::Forced) {
    // push_back, not json::Array{...}: an initializer list is copied from,
    // which would deep-copy the agent's schema a second time per request.
    json::Array tools;
    tools.push_back(agent_tool(codec, agent));
    body.set("tools", std::move(tools));
  } else {
    body.set("tools", merged_tools(codec, body, agent));
  }
  if (forced) {
    codec.force_tool(body, agent.name);
    codec.drop_forced_conflicts(body);
  }
  set_template_kwargs(codec, body, agent, forced);
  codec.set_stream(body, upstream_stream);
  return body;
}

}  // namespace weld::proxy
