// Reading a non-streaming upstream answer (SPEC §3.3 step 3): the agent's
// tool call is found by its block (Anthropic `tool_use` content block,
// OpenAI `message.tool_calls[]`), never by stop_reason / finish_reason,
// which servers fill differently.

#include "response_build.h"
#include "weld/json/serialize.h"
#include "weld/proxy/weld.h"
#include "wire.h"

namespace weld::proxy {
namespace {

Candidate read_anthropic(const json::Value& body, std::string_view agent_tool) {
  Candidate c;
  if (const std::string* id = wire::find_string(body, "id")) c.id = *id;
  if (const std::string* model = wire::find_string(body, "model")) c.model = *model;
  if (const json::Value* usage = wire::find_object(body, "usage")) {
    c.usage.input_tokens = wire::find_int(*usage, "input_tokens").value_or(0);
    c.usage.output_tokens = wire::find_int(*usage, "output_tokens").value_or(0);
  }
  AnthropicBuilder builder(agent_tool);
  if (const json::Array* content = wire::find_array(body, "content")) {
    for (const json::Value& block : *content) {
      if (!block.is_object()) continue;
      const std::string* type = wire::find_string(block, "type");
      if (type == nullptr) continue;
      if (*type == "text") {
        const std::string* text = wire::find_string(block, "text");
        builder.add_text(text != nullptr ? std::string_view(*text) : std::string_view());
      } else if (*type == "tool_use") {
        const std::string* id = wire::find_string(block, "id");
        const std::string* name = wire::find_string(block, "name");
        const json::Value* input = block.find("input");
        // The input object as the model wrote it, in its key order. A
        // server that sends the input as a string gets it taken as text.
        std::string arguments;
        if (input != nullptr && input->is_string()) {
          arguments = input->as_string();
        } else if (input != nullptr) {
          arguments = json::serialize(*input);
        }
        builder.add_tool_use(id != nullptr ? *id : std::string(), name != nullptr ? *name : std::string(),
                             std::move(arguments), input);
      } else {
        // thinking, redacted_thinking, server tool blocks…: kept verbatim in
        // the assistant message, not part of the answer.
        builder.add_other(block);
      }
    }
  }
  builder.finish(c);
  return c;
}

// OpenAI `message.content` is a string, null, or (some servers) an array of
// {type:"text", text} parts.
std::string content_text(const json::Value* content) {
  if (content == nullptr) return {};
  if (content->is_string()) return content->as_string();
  std::string out;
  if (content->is_array()) {
    for (const json::Value& part : content->as_array()) {
      if (const std::string* text = part.is_object() ? wire::find_string(part, "text") : nullptr) {
        out += *text;
      }
    }
  }
  return out;
}

Candidate read_openai(const json::Value& body, std::string_view agent_tool) {
  Candidate c;
  if (const std::string* id = wire::find_string(body, "id")) c.id = *id;
  if (const std::string* model = wire::find_string(body, "model")) c.model = *model;
  c.created = wire::find_int(body, "created").value_or(0);
  if (const json::Value* usage = wire::find_object(body, "usage")) {
    c.usage.input_tokens = wire::find_int(*usage, "prompt_tokens").value_or(0);
    c.usage.output_tokens = wire::find_int(*usage, "completion_tokens").value_or(0);
  }
  OpenAIBuilder builder(agent_tool);
  const json::Array* choices = wire::find_array(body, "choices");
  const json::Value* message = nullptr;
  if (choices != nullptr && !choices->empty() && choices->front().is_object()) {
    message = wire::find_object(choices->front(), "message");
  }
  if (message != nullptr) {
    const json::Value* content = message->find("content");
    if (content != nullptr && !content->is_null()) builder.add_text(content_text(content));
    if (const json::Array* calls = wire::find_array(*message, "tool_calls")) {
      for (const json::Value& call : *calls) {
        if (!call.is_object()) continue;
        const std::string* id = wire::find_string(call, "id");
        const json::Value* function = wire::find_object(call, "function");
        const std::string* name = function != nullptr ? wire::find_string(*function, "name") : nullptr;
        const json::Value* args = function != nullptr ? function->find("arguments") : nullptr;
        // Arguments are a JSON string per the API; Ollama-style servers send
        // an object, taken in its key order.
        std::string arguments;
        if (args != nullptr && args->is_string()) {
          arguments = args->as_string();
        } else if (args != nullptr && !args->is_null()) {
          arguments = json::serialize(*args);
        }
        builder.add_tool_call(id != nullptr ? *id : std::string(), name != nullptr ? *name : std::string(),
                              std::move(arguments));
      }
    }
  }
  builder.finish(c);
  return c;
}

}  // namespace

Candidate read_response(Api api, const json::Value& upstream_body, std::string_view agent_tool) {
  if (!upstream_body.is_object()) return {};
  return api == Api::Anthropic ? read_anthropic(upstream_body, agent_tool)
                               : read_openai(upstream_body, agent_tool);
}

}  // namespace weld::proxy
