// schema_injection (docs/proxy-weld.md, "What the upstream receives"). The upstream is asked to
// stream even for non-streaming clients: a stall is then told apart from a
// long generation (no byte for --upstream-timeout), a truncated answer is
// detected by its missing end event, and the client's keep-alive frames need
// no other clock. OpenAI upstreams are asked for the usage chunk so usage
// can be summed.

#include "filters/schema_injection/filter.h"

namespace weld::proxy::filters {
namespace {

class SchemaInjection final : public Filter {
 public:
  FilterAction on_request(Exchange& ex) override {
    // Streaming upstream: build_upstream_request also asks an OpenAI
    // upstream for the usage chunk (stream_options.include_usage).
    bool force = ex.agent->mode == Mode::Forced;
    ex.upstream_body = build_upstream_request(ex.api, std::move(ex.upstream_body), *ex.agent, ex.base_model,
                                              /*upstream_stream=*/true, force);
    return FilterAction::Continue;
  }
};

}  // namespace

std::unique_ptr<Filter> make_schema_injection() { return std::make_unique<SchemaInjection>(); }

}  // namespace weld::proxy::filters
