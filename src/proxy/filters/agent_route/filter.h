#pragma once
#include <memory>

#include "weld/proxy/filter.h"

namespace weld::proxy::filters {
/// "agent_route": resolves the agent from the model suffix or X-Agent-Name.
std::unique_ptr<Filter> make_agent_route();
}  // namespace weld::proxy::filters
