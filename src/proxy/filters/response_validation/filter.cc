// response_validation (docs/proxy-weld.md, "How the answer is read", "Retries").

#include "filters/response_validation/filter.h"

#include "filters/reply.h"
#include "weld/json/parse.h"

namespace weld::proxy::filters {
namespace {

// The last candidate as the client sees it in a 502: the parsed arguments
// when they are JSON, else the raw text.
json::Value candidate_value(const Candidate& candidate) {
  const provider::ToolCall* call = candidate.call();
  if (call == nullptr) return json::Value(candidate.response.message.text);
  Result<json::Value> parsed = json::parse(call->arguments);
  if (parsed) return std::move(*parsed);
  return json::Value(call->arguments);
}

// Two-phase (docs/proxy-weld.md): the model answered in text; ask once more with the
// agent tool forced, keeping its text as context. The request just sent is
// rewritten in place (build_upstream_request is idempotent on its output):
// the conversation so far, retry turns included, is not copied.
void prepare_forced_followup(Exchange& ex) {
  json::Value body = build_upstream_request(ex.api, std::move(ex.upstream_body), *ex.agent, ex.base_model,
                                            /*upstream_stream=*/true, /*force_agent_tool=*/true);
  const std::string ask = "Report your answer now by calling the " + ex.agent->name + " tool.";
  provider::codec_for(ex.api).append_follow_up(body, ex.candidate.response, ask);
  ex.upstream_body = std::move(body);
}

class ResponseValidation final : public Filter {
 public:
  FilterAction on_response_end(Exchange& ex) override {
    const Agent& agent = *ex.agent;
    if (agent.mode == Mode::TwoPhase && !ex.candidate.agent_call) {
      if (ex.candidate.has_other_tool_calls()) {
        ex.pass_back = true;  // the client runs its own tools, as usual
        return FilterAction::Continue;
      }
      if (!ex.forced_followup) {
        ex.forced_followup = true;
        prepare_forced_followup(ex);
        return FilterAction::Retry;
      }
    }
    ex.verdict = check_candidate(ex.api, ex.candidate, agent);
    if (ex.verdict.valid) {
      ex.repairs += static_cast<int>(ex.verdict.repairs.size());
      return FilterAction::Continue;
    }
    ++ex.validation_failures;
    ex.last_errors = ex.verdict.errors;
    if (ex.retries < agent.max_retries) {
      ++ex.retries;
      append_retry_turn(ex.api, ex.upstream_body, ex.candidate, ex.verdict.errors);
      return FilterAction::Retry;
    }
    json::Value last = candidate_value(ex.candidate);
    std::string message = "the model's answer does not match the schema of agent \"" + agent.name + "\" after " +
                          std::to_string(ex.attempts) + (ex.attempts == 1 ? " attempt: " : " attempts: ") +
                          ex.verdict.errors;
    return reply_error(ex, Outcome::Invalid, 502, "structured_output_error", message, &last);
  }
};

}  // namespace

std::unique_ptr<Filter> make_response_validation() { return std::make_unique<ResponseValidation>(); }

}  // namespace weld::proxy::filters
