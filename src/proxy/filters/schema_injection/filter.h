#pragma once
#include <memory>

#include "weld/proxy/filter.h"

namespace weld::proxy::filters {
/// "schema_injection": rewrites the request for the upstream (one forced
/// tool, thinking off, suffix stripped; two-phase: the agent tool beside the
/// client's). The upstream is always asked to stream (SPEC §3.3, §4).
std::unique_ptr<Filter> make_schema_injection();
}  // namespace weld::proxy::filters
