// Choosing the run's model (model_choice.h; docs/run.md, "Pointing weld at
// a model"): flags, then WELD_*, then the provider's own variables. The
// built-in offline model answers only when chosen (--provider offline,
// WELD_PROVIDER=offline): a CI job whose key is missing must fail (52), not
// go green on sampled data.

#include "weld/agent/model_choice.h"

#include "weld/agent/subprocess.h"
#include "weld/base/ascii.h"
#include "weld/provider/list_models.h"

namespace weld::agent {
namespace {

bool has_value(const provider::Environment& env, const char* name) {
  auto it = env.find(name);
  return it != env.end() && !it->second.empty();
}

// The model to use when none was named: the hosted APIs' own default; for
// any other base URL, the one model the server lists — a self-hosted server
// (vLLM, llama.cpp) answers 404 to a hosted model's name.
Result<std::string> default_model(const provider::ProviderConfig& config, const SettingNames& names) {
  if (config.base_url_defaulted) return config.model;
  const std::string url = provider::url_for_messages(provider::models_url(config));
  const std::string model(names.model);
  const std::string advice = " Pass " + model + " (or set WELD_MODEL).";
  provider::CancelToken cancel;
  Result<std::vector<std::string>> ids = provider::list_models(config, cancel);
  if (!ids) {
    const Error& failed = ids.error();
    // The server is not there yet (a vLLM still loading its weights) or
    // kept failing: retried like any request, then a temporary failure
    // (75), which the same command may well get past later. A refused key
    // is the key's problem (41). Only an answer that is not a models list
    // is a configuration matter (52).
    if (failed.code == ErrorCode::Auth || failed.temporary) {
      Error error = failed;
      error.message = "no model given, and the server's models list could not be read: " + failed.message + "." +
                      (failed.temporary ? " Retry later, or pass " + model + " (or set WELD_MODEL)." : "");
      return error;
    }
    return Error{ErrorCode::Config, "no model given, and the server's models list could not be read: " + failed.message +
                               "." + advice, model};
  }
  if (ids->size() == 1) return ids->front();
  if (ids->empty()) return Error{ErrorCode::Config, "no model given, and " + url + " lists no model." + advice, model};
  std::string listed;
  constexpr std::size_t kShown = 5;
  for (std::size_t i = 0; i < ids->size() && i < kShown; ++i) listed += (i ? ", " : "") + (*ids)[i];
  if (ids->size() > kShown) listed += ", …";
  return Error{ErrorCode::Config,
               "no model given, and " + url + " lists " + std::to_string(ids->size()) + " models (" + listed +
                   "): pass " + model + " with one of them (or set WELD_MODEL).",
               model};
}

}  // namespace

Result<Mechanism> choose_mechanism(const std::optional<Mechanism>& given, const Settings& settings,
                                   const provider::Environment& env) {
  if (given) return *given;
  if (has_value(env, "WELD_MECHANISM")) {
    const std::string& text = env.at("WELD_MECHANISM");
    std::optional<Mechanism> parsed = parse_mechanism(text);
    if (!parsed) {
      return Error{ErrorCode::Config, "WELD_MECHANISM must be one of tool, native, auto (got \"" + text + "\").",
                   "WELD_MECHANISM"};
    }
    return *parsed;
  }
  if (settings.mechanism) return *parse_mechanism(*settings.mechanism);
  return Mechanism::Tool;
}

std::string offline_notice(const ModelChoice&) {
  return "weld: using the built-in offline model (samples a schema-valid instance; not a language model).\n";
}

ExitCode model_choice_exit_code(const Error& error) {
  if (error.code == ErrorCode::Auth) return ExitCode::Auth;
  if (error.code == ErrorCode::Cancelled) return ExitCode::Cancelled;
  return error.temporary ? ExitCode::Temporary : ExitCode::Config;
}

Result<ModelChoice> choose_model(const ModelRequest& request, const provider::Environment& env,
                                 const provider::ModelHooks& hooks) {
  std::string provider_name =
      request.provider.value_or(has_value(env, "WELD_PROVIDER") ? env.at("WELD_PROVIDER") : "");
  if (provider::parse_provider(provider_name) == provider::Provider::Offline) {
    // Chosen, never a default: with nothing configured
    // resolve_provider_config below ends with 52 and says how to choose.
    // The offline model talks to no server, but a bad WELD_* setting is
    // still a mistake the user wants to hear about
    // (`WELD_IDLE_TIMEOUT=soon weld -p hi` must not exit 0).
    provider::ProviderFlags offline_flags;
    offline_flags.provider = "offline";
    offline_flags.connect_timeout_seconds = request.connect_timeout_seconds;
    offline_flags.idle_timeout_seconds = request.idle_timeout_seconds;
    offline_flags.max_retries = request.max_retries;
    offline_flags.names = request.names;
    Result<provider::ProviderConfig> checked = provider::resolve_provider_config(offline_flags, env);
    if (!checked) return checked.error();
    Result<std::unique_ptr<provider::Model>> model = provider::make_model(*checked, hooks);
    if (!model) return model.error();
    ModelChoice choice;
    choice.model = std::move(*model);
    choice.model_name = request.model.value_or("offline");
    choice.offline = true;
    choice.provider = provider::Provider::Offline;
    choice.network = provider::network_settings(env);
    return choice;
  }

  provider::ProviderFlags provider_flags;
  provider_flags.provider = request.provider;
  provider_flags.model = request.model;
  provider_flags.base_url = request.base_url;
  provider_flags.api_key = request.api_key;
  provider_flags.connect_timeout_seconds = request.connect_timeout_seconds;
  provider_flags.idle_timeout_seconds = request.idle_timeout_seconds;
  provider_flags.max_retries = request.max_retries;
  provider_flags.max_response_bytes = request.max_response_bytes;
  provider_flags.names = request.names;
  Result<provider::ProviderConfig> config = provider::resolve_provider_config(provider_flags, env);
  if (!config) return config.error();
  // Whatever it came from, the key never reaches a child process or a tool
  // result.
  protect_secret(config->api_key);
  ModelChoice choice;
  if (!config->provider_reason.empty()) choice.notes.push_back("weld: " + config->provider_reason);
  if (config->provider_defaulted) {
    choice.notes.push_back("weld: no provider given; treating " + provider::url_for_messages(config->base_url) +
                           " as an OpenAI-compatible server (" +
                           request.names.with_value(request.names.provider, "openai") + ").");
  }
  if (config->model_defaulted) {
    Result<std::string> model_name = default_model(*config, request.names);
    if (!model_name) return model_name.error();
    if (config->base_url_defaulted) {
      choice.notes.push_back("weld: no model given; using the default \"" + *model_name +
                             "\" (pass " + std::string(request.names.model) + " or set WELD_MODEL).");
    } else {
      choice.notes.push_back("weld: no model given; using \"" + *model_name + "\", the only model " +
                             provider::url_for_messages(provider::models_url(*config)) + " lists.");
    }
    config->model = *model_name;
  }
  Result<std::unique_ptr<provider::Model>> model = provider::make_model(*config, hooks);
  if (!model) return model.error();
  choice.model = std::move(*model);
  choice.model_name = config->model;
  choice.provider = config->provider;
  // Keys the mechanism cache (a file in ~/.weld): never a query's key.
  choice.base_url = provider::url_for_messages(config->base_url);
  choice.network = config->network;
  return choice;
}

}  // namespace weld::agent
