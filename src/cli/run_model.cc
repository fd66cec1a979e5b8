// Picking the run's model (SPEC §4): flags, then WELD_*, then the provider's
// own variables. When nothing at all is configured, the built-in offline
// model (SPEC §5) answers, so the README's first command works out of the box.

#include <array>

#include "run_support.h"
#include "weld/provider/config.h"
#include "offline_model.h"  // src/sample (target weld_offline)

namespace weld::cli {
namespace {

bool has_value(const provider::Environment& env, const char* name) {
  auto it = env.find(name);
  return it != env.end() && !it->second.empty();
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
    ModelChoice choice;
    choice.model = std::make_unique<sample::OfflineModel>(flags.seed);
    choice.model_name = flags.model.value_or("offline");
    choice.offline = true;
    choice.offline_by_default = !configured;
    choice.provider = "offline";
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
  Result<std::unique_ptr<provider::Model>> model = provider::make_model(*config);
  if (!model) return model.error();
  ModelChoice choice;
  choice.model = std::move(*model);
  choice.model_name = config->model;
  choice.provider = config->provider;
  choice.base_url = config->base_url;
  return choice;
}

}  // namespace weld::cli
