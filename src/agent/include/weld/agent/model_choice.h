#pragma once
/// \file
/// Choosing the model of a run (docs/run.md, "Pointing weld at a model"):
/// the provider, model, base URL and key from what the caller gives, then
/// the WELD_* variables, then the provider's own; the model a self-hosted
/// server lists when none is named; the notes that say what weld chose. The
/// one place these rules live: `weld`, `weld batch` and the Python module's
/// weld.run and weld.batch all come here.
///
/// \code
///   weld::agent::ModelRequest request;  request.base_url = "http://127.0.0.1:8000/v1";
///   weld::provider::ModelHooks hooks;   hooks.offline = …;  // the offline model's factory, when offered
///   auto choice = weld::agent::choose_model(request, weld::provider::process_environment(), hooks);
///   if (!choice) return weld::agent::model_choice_exit_code(choice.error());  // 52, 41 or 75
///   for (const auto& note : choice->notes) std::cerr << note << "\n";
/// \endcode

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "weld/base/exit_code.h"
#include "weld/agent/mechanism.h"
#include "weld/agent/settings.h"
#include "weld/base/result.h"
#include "weld/provider/config.h"
#include "weld/provider/model.h"

namespace weld::agent {

/// What the caller says about the model (unset: not given): `weld`'s flags,
/// or the Python module's keywords.
struct ModelRequest {
  std::optional<std::string> provider;
  std::optional<std::string> model;
  std::optional<std::string> base_url;
  /// Never a flag (keys on a command line end up in shell history); the
  /// Python module's `api_key=`.
  std::optional<std::string> api_key;
  /// The offline model's seed.
  std::uint64_t seed = 0;
  std::optional<double> connect_timeout_seconds;
  std::optional<double> idle_timeout_seconds;
  std::optional<int> max_retries;
  /// Bytes, already parsed (provider::parse_byte_size).
  std::optional<std::uint64_t> max_response_bytes;
  /// How the messages and notes name `provider`, `model` and `base_url`
  /// (the CLI: its flags).
  SettingNames names;
};

/// The model a run talks to.
struct ModelChoice {
  std::unique_ptr<provider::Model> model;
  /// Model name for requests and the init message.
  std::string model_name;
  /// True for the built-in offline model (labelled on stderr); it answers
  /// only when chosen.
  bool offline = false;
  /// The provider and the base URL as messages show it (no query: the
  /// mechanism probe cache, a file, is keyed by them and the model).
  provider::Provider provider = provider::Provider::OpenAi;
  std::string base_url;
  /// Defaults weld chose for the user, one stderr line each: whenever a
  /// default is used, say it.
  std::vector<std::string> notes;
  /// Proxy and CA settings (also for HTTP hooks).
  provider::NetworkSettings network;
};

/// Picks the provider and builds its model (`hooks`: the offline model's
/// factory, a transport wrapper…), from `request` and the environment
/// `env`. The offline model answers only when chosen (provider "offline"):
/// with nothing configured the error says how to choose
/// (provider::no_provider_message). The key, wherever it came from, is
/// protected from children and tool results (protect_secret). Errors: see
/// `model_choice_exit_code`.
Result<ModelChoice> choose_model(const ModelRequest& request, const provider::Environment& env,
                                 const provider::ModelHooks& hooks = {});

/// The exit code of a failed `choose_model`: 52 for configuration (nothing
/// configured, a bad setting, a models list that names no model or several,
/// or is no models list), 41 when the server refused the key while weld
/// asked for its models list, 75 when that list could not be had
/// (unreachable, timeout, 5xx after the retries: a server still loading).
ExitCode model_choice_exit_code(const Error& error);

/// The mechanism: `given` (the flag or the caller's choice), else
/// WELD_MECHANISM from `env`, else the settings' "mechanism"; default tool.
/// A bad WELD_MECHANISM is a configuration error (exit 52).
Result<Mechanism> choose_mechanism(const std::optional<Mechanism>& given, const Settings& settings,
                                   const provider::Environment& env);

/// The stderr label of the offline model, with its line end.
std::string offline_notice(const ModelChoice& choice);

}  // namespace weld::agent
