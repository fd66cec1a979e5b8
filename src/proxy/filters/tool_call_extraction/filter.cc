// tool_call_extraction (docs/proxy-weld.md, "How the answer is read"): the upstream's answer, read by
// the provider's reader of the API's protocol (the core fed it the stream or
// the whole body into the exchange's candidate), and the agent's call in it.

#include "filters/tool_call_extraction/filter.h"

namespace weld::proxy::filters {
namespace {

class ToolCallExtraction final : public Filter {
 public:
  FilterAction on_response_end(Exchange& ex) override {
    ex.candidate.agent_call = find_agent_call(ex.candidate.response, ex.agent->name);
    ex.usage += ex.candidate.response.usage;  // saturating: summed over attempts
    return FilterAction::Continue;
  }
};

}  // namespace

std::unique_ptr<Filter> make_tool_call_extraction() { return std::make_unique<ToolCallExtraction>(); }

}  // namespace weld::proxy::filters
