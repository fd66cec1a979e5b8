// Reducing an upstream answer to a candidate (docs/proxy-weld.md, "How the answer is read"): the agent's
// tool call is found by its block (Anthropic `tool_use`, OpenAI
// `tool_calls[]`), never by stop_reason / finish_reason, which servers fill
// differently. The answer itself was read by the provider's reader of the
// protocol and its assistant turn is written by the same codec
// (docs/protocols.md, "Codecs"); this only picks the call out.

#include "weld/proxy/weld.h"

namespace weld::proxy {

Candidate make_candidate(Protocol api, provider::Response response, std::string_view agent_tool) {
  Candidate c;
  c.api = api;
  c.assistant_message = provider::codec_for(api).assistant_turn(response);
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
