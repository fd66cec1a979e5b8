#pragma once
#include <memory>

#include "weld/proxy/filter.h"

namespace weld::proxy::filters {
/// "tool_call_extraction": reduces the upstream answer (SSE events or a whole
/// JSON body) to a `Candidate`, by the tool-call block, never by stop reason.
/// A stream that ends without its end event is an upstream error.
std::unique_ptr<Filter> make_tool_call_extraction();
}  // namespace weld::proxy::filters
