// Picking the run's model (SPEC §4): flags, then WELD_*, then the provider's
// own variables. When nothing at all is configured, the built-in offline
// model (SPEC §5) answers, so the README's first command works out of the box.

#include <array>

#include "run_support.h"
#include "weld/agent/subprocess.h"
#include "weld/provider/config.h"
#include "weld/provider/list_models.h"
#include "offline_model.h"  // src/sample (target weld_offline)

namespace weld::cli {
namespace {

bool has_value(const provider::Environment& env, const char* name) {
  auto it = env.find(name);
  return it != env.end() && !it->second.empty();
}

// The model to use when none was named (issue 17): the hosted APIs' own
// default; for any other base URL, the one model the server lists — a
// self-hosted server (vLLM, llama.cpp) answers 404 to a hosted model's name.
Result<std::string> default_model(const provider::ProviderConfig& config) {
  if (config.base_url_defaulted) return config.model;
  const std::string url = provider::models_url(config);
  const std::string advice = " Pass --model (or set WELD_MODEL).";
  provider::CancelToken cancel;
  Result<std::vector<std::string>> ids = provider::list_models(config, cancel);
  if (!ids) {
    return Error{"config", "no model given, and the server's models list could not be read: " + ids.error().message +
                               "." + advice, "--model"};
  }
  if (ids->size() == 1) return ids->front();
  if (ids->empty()) return Error{"config", "no model given, and " + url + " lists no model." + advice, "--model"};
  std::string names;
  constexpr std::size_t kShown = 5;
  for (std::size_t i = 0; i < ids->size() && i < kShown; ++i) names += (i ? ", " : "") + (*ids)[i];
  if (ids->size() > kShown) names += ", …";
  return Error{"config",
               "no model given, and " + url + " lists " + std::to_string(ids->size()) + " models (" + names +
                   "): pass --model with one of them (or set WELD_MODEL).",
               "--model"};
}

}  // namespace

Result<ModelChoice> choose_model(const ModelFlags& flags) {
  provider::Environment env = provider::process_environment();
  constexpr std::array kConfiguring = {"WELD_PROVIDER",  "WELD_BASE_URL",     "WELD_API_KEY",
                                       "OPENAI_API_KEY", "OPENAI_BASE_URL",   "ANTHROPIC_API_KEY",
                                       "ANTHROPIC_BASE_URL"};
  bool configured = flags.provider.has_value() || flags.base_url.has_value();
  for (const char* name : kConfiguring) configured = configured || has_value(env, name);

  std::string provider_name = flags.provider.value_or(has_value(env, "WELD_PROVIDER") ? env["WELD_PROVIDER"] : "");
  if (!configured || provider_name == "offline") {
    // The offline model talks to no server, but a bad WELD_* setting is
    // still a mistake the user wants to hear about (issue 17:
    // `WELD_IDLE_TIMEOUT=soon weld -p hi` must not exit 0).
    provider::ProviderFlags offline_flags;
    offline_flags.provider = "offline";
    offline_flags.connect_timeout_seconds = flags.connect_timeout_seconds;
    offline_flags.idle_timeout_seconds = flags.idle_timeout_seconds;
    offline_flags.max_retries = flags.max_retries;
    Result<provider::ProviderConfig> checked = provider::resolve_provider_config(offline_flags, env);
    if (!checked) return checked.error();
    ModelChoice choice;
    choice.model = std::make_unique<sample::OfflineModel>(flags.seed);
    choice.model_name = flags.model.value_or("offline");
    choice.offline = true;
    choice.offline_by_default = !configured;
    choice.provider = "offline";
    choice.network = provider::network_settings(env);
    return choice;
  }

  provider::ProviderFlags provider_flags;
  provider_flags.provider = flags.provider;
  provider_flags.model = flags.model;
  provider_flags.base_url = flags.base_url;
  provider_flags.connect_timeout_seconds = flags.connect_timeout_seconds;
  provider_flags.idle_timeout_seconds = flags.idle_timeout_seconds;
  provider_flags.max_retries = flags.max_retries;
  Result<provider::ProviderConfig> config = provider::resolve_provider_config(provider_flags, env);
  if (!config) return config.error();
  // Whatever variable it came from, the key never reaches a child process
  // or a tool result (issue 13.3).
  agent::protect_secret(config->api_key);
  ModelChoice choice;
  if (config->provider_defaulted) {
    choice.notes.push_back("weld: no provider given; treating " + config->base_url +
                           " as an OpenAI-compatible server (--provider openai).");
  }
  if (config->model_defaulted) {
    Result<std::string> model_name = default_model(*config);
    if (!model_name) return model_name.error();
    if (config->base_url_defaulted) {
      choice.notes.push_back("weld: no model given; using the default \"" + *model_name +
                             "\" (pass --model or set WELD_MODEL).");
    } else {
      choice.notes.push_back("weld: no model given; using \"" + *model_name + "\", the only model " +
                             provider::models_url(*config) + " lists.");
    }
    config->model = *model_name;
  }
  Result<std::unique_ptr<provider::Model>> model = provider::make_model(*config);
  if (!model) return model.error();
  choice.model = std::move(*model);
  choice.model_name = config->model;
  choice.provider = config->provider;
  choice.base_url = config->base_url;
  choice.network = config->network;
  return choice;
}

}  // namespace weld::cli
