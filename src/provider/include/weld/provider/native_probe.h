#pragma once
/// \file
/// The `auto` mechanism's probe (docs/run.md, "Mechanisms"): one small request whose format
/// requires an object with a constant string the prompt never mentions. Free
/// text — what a server that ignores the format answers — cannot satisfy it,
/// so an answer that is exactly that object shows the server enforces its
/// native format. One implementation for the run (agent/mechanism.h) and the
/// proxy (`mechanism: auto` agents).
///
/// \code
///   weld::provider::Request probe = weld::provider::native_probe_request("qwen3-8b");
///   bool native = weld::provider::native_probe_passed(model.complete(probe, ...).value());
/// \endcode

#include <string>

#include "weld/provider/model.h"

namespace weld::provider {

/// The probe: a one-message request whose response_format (strict) requires
/// {"weld_probe":"enforced-7c1e9a"}.
Request native_probe_request(const std::string& model);

/// True when the probe's answer text is exactly the constrained object
/// (whitespace aside) and no tool was called: the server enforced the schema.
bool native_probe_passed(const Response& response);

}  // namespace weld::provider
