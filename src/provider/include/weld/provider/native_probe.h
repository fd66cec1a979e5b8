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

#include "weld/base/result.h"

#include "weld/provider/model.h"

namespace weld::provider {

/// The probe: a one-message request whose response_format (strict) requires
/// {"weld_probe":"enforced-7c1e9a"}.
Request native_probe_request(const std::string& model);

/// True when the probe's answer text is exactly the constrained object
/// (whitespace aside) and no tool was called: the server enforced the schema.
bool native_probe_passed(const Response& response);

/// What a probe says about a server: one verdict for the run and the proxy.
enum class ProbeVerdict {
  Native,     ///< it answered with exactly the constrained object: it enforces its format
  NotNative,  ///< it answered otherwise, or refused the field with a final 4xx (400, 404, 422…)
  Unknown,    ///< it said nothing: a network failure, a timeout, credentials refused, a
              ///< temporary status (408, 429, 5xx) or any other error. Never remembered.
};

/// Judges a probe's outcome: an answer by `native_probe_passed`; an "http"
/// error by its status (`judge_status`: a final 4xx is `NotNative`); any
/// other error is `Unknown`. Only `Native` and `NotNative` may be remembered
/// (the run's `~/.weld/mechanisms.json`, the proxy's per-model memory).
ProbeVerdict judge_probe(const Result<Response>& outcome);

}  // namespace weld::provider
