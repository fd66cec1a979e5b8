// agent_route: finds the agent a request is tagged for (docs/proxy.md, "Tagging a request"): the
// `model` suffix `__schema=<agent>` first, then the `X-Agent-Name` header.
// Unknown agent → 400 listing the known ones, with no upstream call.

#include "filters/agent_route/filter.h"

#include "filters/reply.h"
#include "weld/json/parse.h"

namespace weld::proxy::filters {
namespace {

class AgentRoute final : public Filter {
 public:
  FilterAction on_request(Exchange& ex) override {
    Result<json::Value> body = json::parse(ex.raw_body);
    if (!body || !body->is_object()) {
      // Only reached for a request that looked tagged (suffix or header).
      std::string message = body ? "request body must be a JSON object"
                                 : "request body is not valid JSON: " + body.error().message + " at " +
                                       body.error().where;
      return reply_error(ex, Outcome::BadRequest, 400, "invalid_request_error", message);
    }
    ex.upstream_body = std::move(*body);
    const json::Value* stream = ex.upstream_body.find("stream");
    ex.client_stream = stream != nullptr && stream->is_bool() && stream->as_bool();
    const json::Value* options = ex.upstream_body.find("stream_options");
    const json::Value* include = options != nullptr ? options->find("include_usage") : nullptr;
    ex.client_usage_chunk = include != nullptr && include->is_bool() && include->as_bool();
    const json::Value* model = ex.upstream_body.find("model");
    if (model != nullptr && model->is_string()) ex.client_model = model->as_string();
    ex.base_model = ex.client_model;
    std::string agent_name;
    if (auto tag = parse_model_tag(ex.client_model)) {
      agent_name = tag->agent;
      ex.base_model = tag->base_model;
    } else if (!ex.agent_header.empty()) {
      agent_name = std::string(ex.agent_header);
    } else {
      return FilterAction::Passthrough;  // the cheap scan over-approximated
    }
    ex.agent = ex.registry ? ex.registry->find(agent_name) : nullptr;
    if (ex.agent == nullptr) {
      std::string known;
      if (ex.registry) {
        for (const std::string& name : ex.registry->names()) {
          if (!known.empty()) known += ", ";
          known += name;
        }
      }
      return reply_error(ex, Outcome::UnknownAgent, 400, "invalid_request_error",
                         "unknown agent \"" + agent_name + "\"; known agents: " + known);
    }
    // A side request the client makes with the same model (docs/proxy.md, "Side requests with the same tagged model"):
    // relayed as the client sent it, without the tag in `model`.
    if (std::optional<std::string> reason = passthrough_match(ex.agent->passthrough, ex.upstream_body)) {
      if (model != nullptr && model->is_string()) ex.upstream_body.set("model", ex.base_model);
      ex.passthrough_reason = std::move(*reason);
      ex.outcome = Outcome::Bypassed;
      return FilterAction::Passthrough;
    }
    return FilterAction::Continue;
  }
};

}  // namespace

std::unique_ptr<Filter> make_agent_route() { return std::make_unique<AgentRoute>(); }

}  // namespace weld::proxy::filters
