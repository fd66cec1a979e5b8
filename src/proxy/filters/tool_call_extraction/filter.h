#pragma once
#include <memory>

#include "weld/proxy/filter.h"

namespace weld::proxy::filters {
/// "tool_call_extraction": finds the agent's call in the upstream answer (read
/// by the core with the provider's reader, streamed or whole, into
/// `Exchange::candidate`) by its tool-call block, never by stop reason, and
/// adds the answer's usage to the exchange's.
std::unique_ptr<Filter> make_tool_call_extraction();
}  // namespace weld::proxy::filters
