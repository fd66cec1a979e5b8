// Finding the agent's call in an upstream answer (docs/proxy-weld.md, "How the answer is read"): by
// its block (Anthropic `tool_use`, OpenAI `tool_calls[]`, Responses
// `function_call`), never by stop_reason / finish_reason, which servers fill
// differently. The answer itself was read by the provider's reader of the
// protocol and stays whole; its assistant turn is written by the same codec
// when one is needed (docs/protocols.md, "Codecs").

#include <algorithm>

#include "weld/proxy/weld.h"

namespace weld::proxy {

std::optional<std::size_t> find_agent_call(const provider::Response& response, std::string_view agent_tool) {
  const std::vector<provider::ToolCall>& calls = response.message.tool_calls;
  for (std::size_t i = 0; i < calls.size(); ++i) {
    if (calls[i].name == agent_tool) return i;
  }
  return std::nullopt;
}

Candidate make_candidate(provider::Response response, std::string_view agent_tool) {
  std::optional<std::size_t> agent_call = find_agent_call(response, agent_tool);
  return Candidate{std::move(response), agent_call};
}

bool Candidate::has_other_tool_calls() const {
  const std::vector<provider::ToolCall>& calls = response.message.tool_calls;
  if (!agent_call) return !calls.empty();
  const std::string& agent_tool = calls[*agent_call].name;
  return std::any_of(calls.begin(), calls.end(),
                     [&](const provider::ToolCall& call) { return call.name != agent_tool; });
}

}  // namespace weld::proxy
