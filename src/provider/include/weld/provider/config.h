#pragma once
/// \file
/// Provider configuration (docs/run.md, "Pointing weld at a model"): which API, model, base URL and key, the
/// timeouts and retries, resolved from flags, then `WELD_*` variables, then
/// the provider's own variables; and `make_model`, which builds the `Model`.

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "weld/base/result.h"
#include "weld/base/setting_names.h"
#include "weld/provider/http.h"
#include "weld/provider/model.h"
#include "weld/provider/protocol.h"

namespace weld::provider {

/// The providers weld talks to (docs/run.md, "Pointing weld at a model"):
/// one per wire protocol it sends, and the built-in offline model.
enum class Provider {
  OpenAi,           ///< "openai": Chat Completions (OpenAI and every compatible server)
  OpenAiResponses,  ///< "openai-responses": OpenAI's Responses API
  Anthropic,        ///< "anthropic": Messages
  Offline,          ///< "offline": the sampled answers of src/sample, no server
};

/// The name --provider and WELD_PROVIDER take: "openai", "openai-responses",
/// "anthropic", "offline".
std::string_view provider_name(Provider provider);
/// The provider a name (any case) names; nullopt for another name.
std::optional<Provider> parse_provider(std::string_view name);
/// The wire protocol a provider speaks; nullopt for the offline model.
std::optional<Protocol> provider_protocol(Provider provider);

/// Everything needed to talk to one provider.
struct ProviderConfig {
  Provider provider = Provider::OpenAi;
  std::string model;
  /// OpenAI: up to and including /v1 (`{base}/chat/completions` is posted).
  /// Anthropic: the host (`{base}/v1/messages`; a trailing /v1 is accepted).
  std::string base_url;
  /// May be empty (local servers need none). Never printed: see `redact`.
  std::string api_key;
  std::chrono::milliseconds connect_timeout{10'000};
  /// Longest silence inside a response before it is abandoned.
  std::chrono::milliseconds idle_timeout{120'000};
  /// Most body bytes of one response (WELD_MAX_RESPONSE_BYTES; docs/run.md, "Limits").
  std::uint64_t max_response_bytes = kDefaultMaxResponseBytes;
  RetryPolicy retry;
  NetworkSettings network;
  /// Sent as `anthropic-version`.
  std::string anthropic_version = "2023-06-01";
  /// True when nothing named the model and `model` is the provider's
  /// built-in default (gpt-4o-mini, claude-sonnet-4-5); the run then asks a
  /// self-hosted server's models list or says which default it used.
  bool model_defaulted = false;
  /// True when nothing named the base URL (the hosted API's is used).
  bool base_url_defaulted = false;
  /// True when nothing named the provider and a bare base URL made it
  /// "openai".
  bool provider_defaulted = false;
  /// Anthropic: the key goes as `Authorization: Bearer` (from
  /// ANTHROPIC_AUTH_TOKEN, as Claude Code sends it to gateways), not as
  /// `x-api-key`.
  bool bearer_auth = false;
  /// Why this provider, when the environment named more than one (keys for
  /// OpenAI and Anthropic both set): said on stderr. Empty otherwise.
  std::string provider_reason;
  /// How messages about this configuration name its settings (the
  /// ProviderFlags' names): the response cap, the offline model's answer.
  SettingNames names;
};

/// The error when nothing names a provider (no setting, no WELD_PROVIDER,
/// no provider variable, no base URL): how to choose one, and how to try
/// weld without a model, with the settings named as `names` says.
std::string no_provider_message(const SettingNames& names = {});

/// Values the caller gives (unset: not given): the CLI's flags, the Python
/// module's keywords.
struct ProviderFlags {
  std::optional<std::string> provider;
  std::optional<std::string> model;
  std::optional<std::string> base_url;
  std::optional<std::string> api_key;
  std::optional<double> connect_timeout_seconds;
  std::optional<double> idle_timeout_seconds;
  std::optional<int> max_retries;
  /// --max-response-bytes, already parsed by `parse_byte_size`.
  std::optional<std::uint64_t> max_response_bytes;
  /// How the messages name the settings (`provider`, `model`, `base_url`,
  /// the timeouts, `max_retries`, `max_response_bytes`).
  SettingNames names;
};

/// "64M", "1048576", "512K", "1G": bytes with an optional binary unit (K, M,
/// G; case-insensitive), from 1024 to 1 TiB. nullopt for anything else. The
/// one reading of `--max-response-bytes` and `WELD_MAX_RESPONSE_BYTES`.
std::optional<std::uint64_t> parse_byte_size(std::string_view text);

/// An environment, as a map (pass the process environment from the CLI, a
/// literal map in tests).
using Environment = std::map<std::string, std::string>;

/// The process environment as an `Environment` (for src/cli).
Environment process_environment();

/// Resolves the configuration, each setting from the first place that has
/// it: flags; `WELD_PROVIDER`, `WELD_MODEL`, `WELD_BASE_URL`, `WELD_API_KEY`;
/// the provider's own `OPENAI_API_KEY`/`OPENAI_BASE_URL`/`OPENAI_MODEL` or
/// `ANTHROPIC_API_KEY`/`ANTHROPIC_BASE_URL`/`ANTHROPIC_MODEL`; defaults
/// (https://api.openai.com/v1, https://api.anthropic.com). Without a provider
/// flag or `WELD_PROVIDER`, the provider whose variables are set is used
/// (OpenAI when both are). Also reads `WELD_CONNECT_TIMEOUT`,
/// `WELD_IDLE_TIMEOUT` (seconds), `WELD_MAX_RETRIES`,
/// `WELD_MAX_RESPONSE_BYTES` (see `parse_byte_size`), and the proxy
/// variables `HTTPS_PROXY`/`https_proxy`, `HTTP_PROXY`/`http_proxy`,
/// `ALL_PROXY`/`all_proxy`, `NO_PROXY`/`no_proxy`, and `SSL_CERT_FILE` /
/// `CURL_CA_BUNDLE`. Errors (code "config") name the setting: unknown
/// provider, no provider, no model, a bad number, a base URL that is not
/// http(s), a missing key for api.openai.com / api.anthropic.com.
///
/// \code
///   auto config = weld::provider::resolve_provider_config(flags, weld::provider::process_environment());
///   if (!config) return config.error();  // exit 52
///   auto model = weld::provider::make_model(*config);
/// \endcode
Result<ProviderConfig> resolve_provider_config(const ProviderFlags& flags, const Environment& env);

/// The proxy and CA settings of `env` (the variables listed above), for
/// every HTTP client of a run (the model's, HTTP hooks').
NetworkSettings network_settings(const Environment& env);

/// Builds models for providers implemented outside this library (the
/// offline model lives in src/agent or src/sample).
using ModelFactory = std::function<Result<std::unique_ptr<Model>>(const ProviderConfig&)>;

/// Hooks for `make_model`.
struct ModelHooks {
  /// Used for provider "offline"; without it "offline" is an error.
  ModelFactory offline;
  /// Transport to use instead of libcurl (tests); taken by the model.
  std::function<std::unique_ptr<Transport>()> transport;
  /// Wraps the transport the model gets (libcurl's or the one above), e.g.
  /// in `weld batch`'s request gate.
  std::function<std::unique_ptr<Transport>(std::unique_ptr<Transport>)> wrap_transport;
  /// Sleeper for retry delays (tests); default sleeps for real.
  Sleeper sleep;
};

/// The model for `config.provider` (an `HttpModel` speaking its protocol, or "offline" via
/// the hook). A request whose `model` is empty uses `config.model`.
Result<std::unique_ptr<Model>> make_model(const ProviderConfig& config, const ModelHooks& hooks = {});

}  // namespace weld::provider
