#pragma once
/// \file
/// The hot-path tag check (docs/proxy.md, "Tagging a request"): decides without parsing JSON whether a
/// request body may carry a `model` ending in `__schema=<agent>`. Untagged
/// requests are then relayed byte-for-byte with no JSON parsing at all.

#include <string_view>

namespace weld::proxy {

/// True when some `"model"` key in `body` has a string value containing
/// `__schema=`. A cheap over-approximation (a nested "model" key also
/// counts): the caller parses the body to confirm the top-level `model`.
/// Never reads outside `body`.
///
/// \code
///   if (may_be_suffix_tagged(body) || has_agent_header) run_weld_chain(); else relay();
/// \endcode
bool may_be_suffix_tagged(std::string_view body);

}  // namespace weld::proxy
