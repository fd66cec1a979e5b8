#pragma once
#include <memory>

#include "weld/proxy/filter.h"

namespace weld::proxy::filters {
/// "response_render": what the client receives — the validated JSON as plain
/// text (a whole body or a text stream), keep-alive frames while waiting,
/// upstream failures as errors in the client's API shape, and two-phase
/// pass-back of client-tool calls.
std::unique_ptr<Filter> make_response_render();
}  // namespace weld::proxy::filters
