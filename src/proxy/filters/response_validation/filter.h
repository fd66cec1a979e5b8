#pragma once
#include <memory>

#include "weld/proxy/filter.h"

namespace weld::proxy::filters {
/// "response_validation": checks the candidate (parse, repair, clamp,
/// validate); on failure retries with the error fed back, up to the agent's
/// max_retries, then answers 502 structured_output_error. Two-phase: hands
/// client-tool calls back, and forces the agent tool once after a text answer.
std::unique_ptr<Filter> make_response_validation();
}  // namespace weld::proxy::filters
