#pragma once
#include <memory>

#include "weld/proxy/filter.h"

namespace weld::proxy::filters {
/// "schema_injection": rewrites the request for the upstream (one forced
/// tool, thinking off, suffix stripped; two-phase: the agent tool beside the
/// client's). The upstream is always asked to stream (docs/proxy.md, "What a tagged request goes through").
std::unique_ptr<Filter> make_schema_injection();
}  // namespace weld::proxy::filters
