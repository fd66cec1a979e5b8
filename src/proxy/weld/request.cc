// Rewriting a tagged client request for the upstream (SPEC §3.3 steps 1-2,
// §3.4). The client body is copied member by member in its own order; only
// the members the weld owns are replaced, added or dropped.

#include "weld/provider/strict_schema.h"
#include "weld/proxy/weld.h"
#include "wire.h"

namespace weld::proxy {
namespace {

// Drops what conflicts with a forced tool call. Anthropic rejects `thinking`
// together with a forced tool_choice; a structured-output format on the text
// would fight the tool's grammar on servers that enforce both.
void drop_conflicts(Api api, json::Value& body) {
  body.erase("thinking");
  if (api == Api::Anthropic) {
    body.erase("output_format");  // beta structured outputs
    if (json::Value* config = body.find("output_config"); config != nullptr && config->is_object()) {
      config->erase("format");
      if (config->size() == 0) body.erase("output_config");
    }
    return;
  }
  if (api == Api::Responses) {
    // Structured outputs on the text (`text.format`), other text options kept.
    if (json::Value* text = body.find("text"); text != nullptr && text->is_object()) {
      text->erase("format");
      if (text->size() == 0) body.erase("text");
    }
    return;
  }
  body.erase("response_format");
  body.erase("reasoning_effort");
  body.erase("functions");
  body.erase("function_call");
}

// vLLM / SGLang / llama.cpp pass `chat_template_kwargs` to the chat template;
// Qwen3-style templates turn reasoning off with enable_thinking=false. Keeps
// any other kwargs the client sent.
// An agent's own kwargs (registry) replace that default and are sent even
// when the tool is not forced.
void set_template_kwargs(Api api, json::Value& body, const Agent& agent, bool forced) {
  if (api != Api::OpenAI || !agent.chat_template_kwargs) return;
  const bool own = agent.template_kwargs.is_object();
  if (!own && !forced) return;
  json::Value* kwargs = body.find("chat_template_kwargs");
  if (kwargs == nullptr || !kwargs->is_object()) {
    body.set("chat_template_kwargs", json::Object{});
    kwargs = body.find("chat_template_kwargs");
  }
  if (!own) {
    kwargs->set("enable_thinking", false);
    return;
  }
  for (const json::Member& member : agent.template_kwargs.as_object()) kwargs->set(member.key, member.value);
}

// The tool's name in either API's tool shape; "" when it has none.
std::string_view tool_name(Api api, const json::Value& tool) {
  if (api != Api::OpenAI) {  // Anthropic and Responses: a flat `name`
    const std::string* name = tool.is_object() ? wire::find_string(tool, "name") : nullptr;
    return name != nullptr ? std::string_view(*name) : std::string_view();
  }
  const json::Value* function = wire::find_object(tool, "function");
  if (function == nullptr) return {};
  const std::string* name = wire::find_string(*function, "name");
  return name != nullptr ? std::string_view(*name) : std::string_view();
}

// Two-phase: the client's tools (moved out of `body`), with the agent's tool
// replacing a client tool of the same name or appended after them.
json::Value merged_tools(Api api, json::Value& body, const Agent& agent) {
  json::Array tools;
  bool replaced = false;
  if (json::Value* client_tools = body.find("tools"); client_tools != nullptr && client_tools->is_array()) {
    for (json::Value& tool : client_tools->as_array()) {
      if (tool_name(api, tool) == agent.name) {
        if (!replaced) tools.push_back(wire::agent_tool(api, agent));
        replaced = true;
        continue;
      }
      tools.push_back(std::move(tool));
    }
  }
  if (!replaced) tools.push_back(wire::agent_tool(api, agent));
  return tools;
}

void set_stream(Api api, json::Value& body, bool upstream_stream) {
  body.set("stream", upstream_stream);
  if (api != Api::OpenAI) return;
  if (!upstream_stream) {
    // OpenAI rejects stream_options unless stream is true.
    body.erase("stream_options");
    return;
  }
  // The proxy sums usage over attempts, so it needs the final usage chunk
  // whatever the client asked for (the client's own choice is rendered from
  // its original body).
  json::Value* options = body.find("stream_options");
  if (options == nullptr || !options->is_object()) {
    body.set("stream_options", json::Object{{"include_usage", true}});
  } else {
    options->set("include_usage", true);
  }
}

// Anthropic `output_config.format` (other output_config members kept);
// OpenAI `response_format` json_schema (vLLM, SGLang, llama.cpp and Ollama
// read it too) and Responses `text.format`: strict, with the schema
// rewritten into OpenAI's strict subset when it can be, as a run decides
// (provider/strict_schema.h); weld validates locally against the full schema.
void set_native_format(Api api, json::Value& body, const Agent& agent) {
  json::Value schema = wire::tool_schema(agent.input_schema);
  if (api == Api::Anthropic) {
    json::Value format = json::Object{{"type", "json_schema"}, {"schema", std::move(schema)}};
    json::Value* config = body.find("output_config");
    if (config == nullptr || !config->is_object()) {
      body.set("output_config", json::Object{{"format", std::move(format)}});
    } else {
      config->set("format", std::move(format));
    }
    return;
  }
  if (api == Api::Responses) {
    provider::SentFormat sent = provider::openai_sent_format(schema, /*want_strict=*/true);
    json::Value format = json::Object{{"type", "json_schema"}, {"name", agent.name}};
    if (!agent.description.empty()) format.set("description", agent.description);
    format.set("schema", std::move(sent.schema));
    format.set("strict", sent.strict);
    json::Value* text = body.find("text");
    if (text == nullptr || !text->is_object()) {
      body.set("text", json::Object{{"format", std::move(format)}});
    } else {
      text->set("format", std::move(format));
    }
    return;
  }
  provider::SentFormat sent = provider::openai_sent_format(schema, /*want_strict=*/true);
  json::Value json_schema = json::Object{{"name", agent.name}};
  if (!agent.description.empty()) json_schema.set("description", agent.description);
  json_schema.set("schema", std::move(sent.schema));
  json_schema.set("strict", sent.strict);
  body.set("response_format", json::Object{{"type", "json_schema"}, {"json_schema", std::move(json_schema)}});
}

}  // namespace

json::Value build_upstream_request(Api api, json::Value client_body, const Agent& agent,
                                   std::string_view base_model, bool upstream_stream,
                                   bool force_agent_tool) {
  json::Value body = client_body.is_object() ? std::move(client_body) : json::Value(json::Object{});
  body.set("model", base_model);

  if (agent.mode == Mode::Forced && agent.mechanism == Mechanism::Native) {
    // SPEC §4 `native`: the provider's own constrained decoding; the answer
    // is the message text, so no tool is offered at all.
    body.erase("tools");
    body.erase("tool_choice");
    drop_conflicts(api, body);
    set_native_format(api, body, agent);
    set_template_kwargs(api, body, agent, /*forced=*/true);
    set_stream(api, body, upstream_stream);
    return body;
  }
  const bool forced = agent.mode == Mode::Forced || force_agent_tool;
  if (agent.mode == Mode::Forced) {
    // push_back, not json::Array{...}: an initializer list is copied from,
    // which would deep-copy the agent's schema a second time per request.
    json::Array tools;
    tools.push_back(wire::agent_tool(api, agent));
    body.set("tools", std::move(tools));
  } else {
    body.set("tools", merged_tools(api, body, agent));
  }
  if (forced) {
    body.set("tool_choice", wire::forced_tool_choice(api, agent.name));
    drop_conflicts(api, body);
  }
  set_template_kwargs(api, body, agent, forced);
  set_stream(api, body, upstream_stream);
  return body;
}

}  // namespace weld::proxy
