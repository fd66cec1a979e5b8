#pragma once
#include <memory>

#include "weld/proxy/filter.h"

namespace weld::proxy::filters {
/// "tool_call_extraction": reduces the upstream answer (read by the core with
/// the provider's reader, streamed or whole) to a `Candidate`, by the
/// tool-call block, never by stop reason.
std::unique_ptr<Filter> make_tool_call_extraction();
}  // namespace weld::proxy::filters
