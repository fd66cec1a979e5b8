// Checking a candidate (docs/proxy-weld.md, "How the answer is read"): parse, repair, clamp,
// validate against the agent's full schema. Kept in its own file: it is the
// only part that needs the schema engine and the repair module.

#include "weld/json/serialize.h"
#include "weld/proxy/weld.h"

namespace weld::proxy {

Verdict check_candidate(Protocol api, const Candidate& candidate, const Agent& agent, bool allow_repair) {
  Verdict verdict;
  // `native` (docs/run.md, "Mechanisms"): the answer is the message text, not a tool call.
  const bool native = agent.mode == Mode::Forced && agent.mechanism == Mechanism::Native;
  const std::string& text = candidate.response.message.text;
  const provider::ToolCall* call = candidate.call();
  if (native && text.find_first_not_of(" \t\r\n") == std::string::npos) {
    verdict.errors = "the answer was empty: answer with only a JSON value that matches the schema";
    return verdict;
  }
  if (!native && call == nullptr) {
    // The server ignored the forced tool_choice (or, two-phase, the model
    // answered in text). The message goes back to the model as is.
    verdict.errors = "the answer did not call the tool '" + agent.name +
                     "': call it with arguments that match its input schema";
    return verdict;
  }
  if (agent.schema == nullptr) {
    // A registry always compiles its schemas; an agent built without one is
    // a caller bug, reported rather than crashing the request.
    verdict.errors = "params: agent '" + agent.name + "' has no compiled schema";
    return verdict;
  }
  repair::Options options;
  options.parse = allow_repair;
  options.coerce = allow_repair;
  // Clamping is the registry's explicit request (source: confidence into
  // [0,1]), so it follows the agent, not the repair switch.
  options.clamp = agent.clamp;
  // A native answer is in the lowered schema's shape: mapped back first (a
  // null only the lowering allowed goes back to absent, …), as in a run.
  std::shared_ptr<const schema::Lowering> lowering;
  if (native) {
    lowering = native_lowering(agent, api);
    options.lowering = lowering.get();
  }
  repair::Checked checked =
      repair::check_arguments(native ? text : call->arguments, *agent.schema, options);
  verdict.valid = checked.valid;
  verdict.repairs = std::move(checked.repairs);
  if (checked.valid) {
    verdict.text = json::serialize(checked.value);
    verdict.value = std::move(checked.value);
  } else {
    verdict.errors = schema::describe_for_model(checked.validation.violations, checked.value, "params");
    verdict.value = std::move(checked.value);
  }
  return verdict;
}

}  // namespace weld::proxy
