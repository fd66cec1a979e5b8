#pragma once
/// \file
/// How a run gets structured output from the model (docs/run.md, "Mechanisms"):
/// the synthetic `structured_output` tool, the provider's own constrained
/// decoding (`native`), or `auto` — probe the upstream once with a request
/// that free text cannot satisfy, and remember per provider, base URL and
/// model whether it really enforced the schema. Whatever the mechanism, the
/// answer is validated locally.
///
/// \code
///   auto mechanism = weld::agent::parse_mechanism("auto");   // flag / WELD_MECHANISM / settings
///   options.mechanism = *mechanism;
///   options.mechanism_cache_path = weld::agent::mechanism_cache_path(home);
///   options.mechanism_cache_key = weld::agent::mechanism_cache_key(weld::provider::Provider::OpenAi, base_url, model);
/// \endcode

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "weld/provider/config.h"

#include "weld/base/result.h"
#include "weld/provider/model.h"
#include "weld/provider/native_probe.h"

namespace weld::agent {

/// `--mechanism`.
enum class Mechanism { Tool, Native, Auto };

/// Parses "tool", "native", "auto"; nullopt otherwise.
std::optional<Mechanism> parse_mechanism(std::string_view text);
/// "tool", "native", "auto".
std::string_view mechanism_name(Mechanism mechanism);

/// The probe and its verdict, one implementation with the proxy's
/// (weld/provider/native_probe.h).
using provider::native_probe_passed;
using provider::native_probe_request;

/// `<home>/.weld/mechanisms.json`.
std::string mechanism_cache_path(const std::string& home);
/// The cache key: "<provider> <base_url> <model>" (no key, no secret).
std::string mechanism_cache_key(provider::Provider provider, std::string_view base_url, std::string_view model);

/// How long a probe result is trusted (servers get upgraded).
inline constexpr std::int64_t kMechanismCacheMaxAgeSeconds = 7 * 24 * 3600;

/// The remembered probe result for `key`: true = native enforced, false =
/// not; nullopt when absent, older than the max age, or the file is missing
/// or unreadable (a damaged cache is only a miss).
std::optional<bool> read_mechanism_cache(const std::string& path, const std::string& key, std::int64_t now_seconds);

/// Records a probe result (read, update, write to a temporary file, rename).
/// An Error says why the file could not be written; the run goes on.
Status write_mechanism_cache(const std::string& path, const std::string& key, bool native, std::int64_t now_seconds);

}  // namespace weld::agent
