// Picking the run's model (SPEC §4): flags, then WELD_*, then the provider's
// own variables. When nothing at all is configured, the built-in offline
// model (SPEC §5) answers, so the README's first command works out of the box.

#include <CLI/CLI.hpp>
#include <array>
#include <cmath>
#include <cstdlib>

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
    return Error{ErrorCode::Config, "no model given, and the server's models list could not be read: " + ids.error().message +
                               "." + advice, "--model"};
  }
  if (ids->size() == 1) return ids->front();
  if (ids->empty()) return Error{ErrorCode::Config, "no model given, and " + url + " lists no model." + advice, "--model"};
  std::string names;
  constexpr std::size_t kShown = 5;
  for (std::size_t i = 0; i < ids->size() && i < kShown; ++i) names += (i ? ", " : "") + (*ids)[i];
  if (ids->size() > kShown) names += ", …";
  return Error{ErrorCode::Config,
               "no model given, and " + url + " lists " + std::to_string(ids->size()) + " models (" + names +
                   "): pass --model with one of them (or set WELD_MODEL).",
               "--model"};
}

// "--connect-timeout 2.5": seconds in (0, 86400]. nullopt with `error` set
// when the text is not such a number.
std::optional<double> parse_seconds(const std::string& flag, const std::string& text, std::string& error) {
  char* end = nullptr;
  double seconds = std::strtod(text.c_str(), &end);
  if (text.empty() || end == text.c_str() || *end != '\0' || !std::isfinite(seconds) || seconds <= 0 ||
      seconds > 86400) {
    error = flag + " must be a number of seconds greater than 0 and at most 86400 (got \"" + text + "\").";
    return std::nullopt;
  }
  return seconds;
}

}  // namespace

void add_model_flags(CLI::App& app, ModelFlags& flags, ModelFlagText& text) {
  app.add_option("--provider", flags.provider, "openai | openai-responses | anthropic | offline");
  app.add_option("-m,--model", flags.model, "Model name");
  app.add_option("--base-url", flags.base_url, "API base URL (OpenAI: up to /v1; Anthropic: the host)");
  app.add_option("--seed", flags.seed, "Seed of the offline model");
  app.add_option("--mechanism", text.mechanism,
                 "tool | native | auto: how the structured answer is obtained (default tool; also WELD_MECHANISM, "
                 "settings \"mechanism\")")
      ->type_name("MECHANISM");
  app.add_option("--connect-timeout", text.connect_timeout,
                 "Seconds to wait for a connection to the model server (default 10; also WELD_CONNECT_TIMEOUT)")
      ->type_name("SECONDS");
  app.add_option("--idle-timeout", text.idle_timeout,
                 "Seconds of silence inside a response before it is abandoned (default 120; also WELD_IDLE_TIMEOUT)")
      ->type_name("SECONDS");
  app.add_option("--max-retries", text.max_retries,
                 "Retries of a request after 429/5xx/connection errors (default 3; also WELD_MAX_RETRIES)")
      ->type_name("N");
  app.add_option("--max-response-bytes", text.max_response_bytes,
                 "Most body bytes of one model response, K/M/G allowed (default 64M; also WELD_MAX_RESPONSE_BYTES)")
      ->type_name("BYTES");
}

std::optional<std::string> check_model_flags(const ModelFlagText& text, ModelFlags& flags,
                                             std::optional<agent::Mechanism>& mechanism) {
  if (text.mechanism) {
    mechanism = agent::parse_mechanism(*text.mechanism);
    if (!mechanism) return "--mechanism must be one of tool, native, auto (got \"" + *text.mechanism + "\").";
  }
  std::string error;
  if (text.connect_timeout) {
    flags.connect_timeout_seconds = parse_seconds("--connect-timeout", *text.connect_timeout, error);
    if (!flags.connect_timeout_seconds) return error;
  }
  if (text.idle_timeout) {
    flags.idle_timeout_seconds = parse_seconds("--idle-timeout", *text.idle_timeout, error);
    if (!flags.idle_timeout_seconds) return error;
  }
  if (text.max_retries) {
    const std::string& value = *text.max_retries;
    bool digits = !value.empty() && value.size() <= 3 && value.find_first_not_of("0123456789") == std::string::npos;
    if (!digits || std::stoi(value) > 100)
      return "--max-retries must be a whole number from 0 to 100 (got \"" + value + "\").";
    flags.max_retries = std::stoi(value);
  }
  if (text.max_response_bytes) {
    flags.max_response_bytes = provider::parse_byte_size(*text.max_response_bytes);
    if (!flags.max_response_bytes)
      return "--max-response-bytes must be a number of bytes from 1024 to 1T, K, M and G allowed (got \"" +
             *text.max_response_bytes + "\").";
  }
  return std::nullopt;
}

void add_run_limit_flags(CLI::App& app, RunLimitFlags& flags) {
  app.add_option("--max-session-turns", flags.max_session_turns, "End with exit 53 after N model turns (default: no limit)");
  app.add_option("--max-tool-calls", flags.max_tool_calls, "End with exit 55 after N tool calls (structured_output excluded)");
  app.add_option("--max-wall-time", flags.max_wall_time, "End with exit 55 after SECONDS");
  app.add_option("--max-structured-retries", flags.max_structured_retries,
                 "Retries allowed after an invalid structured_output call (default 5)")
      ->check(CLI::NonNegativeNumber);
  app.add_flag("--no-repair", flags.no_repair, "Turn off every repair of structured_output arguments");
  app.add_flag("--clamp", flags.clamp, "Clamp numbers into minimum/maximum");
  app.add_flag("--no-strict", flags.no_strict,
               "Compile --json-schema without the strict rules (unknown keywords and other likely mistakes allowed)");
  app.add_option("--max-tokens", flags.max_tokens, "Token limit of each model answer (default 8192)")->type_name("N");
  app.add_option("--temperature", flags.temperature, "Sampling temperature, 0 to 2 (default: the server's)")
      ->type_name("T");
}

std::optional<std::string> apply_run_limit_flags(const RunLimitFlags& flags, agent::RunOptions& options) {
  if (flags.no_repair && flags.clamp) return "--clamp cannot be used with --no-repair.";
  if (flags.max_wall_time < 0) return "--max-wall-time must not be negative.";
  options.max_session_turns = flags.max_session_turns;
  options.max_tool_calls = flags.max_tool_calls;
  options.max_wall_time_seconds = flags.max_wall_time;
  options.max_structured_retries = flags.max_structured_retries;
  if (flags.no_repair) options.repair = {false, false, false};
  options.repair.clamp = flags.clamp;
  if (flags.max_tokens) {
    const std::string& text = *flags.max_tokens;
    if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos ||
        std::stoll(text) < 1)
      return "--max-tokens must be a whole number from 1 to 999999999 (got \"" + text + "\").";
    options.max_tokens = std::stoll(text);
  }
  if (flags.temperature) {
    const std::string& text = *flags.temperature;
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (text.empty() || end == text.c_str() || *end != '\0' || !std::isfinite(value) || value < 0 || value > 2)
      return "--temperature must be a number from 0 to 2 (got \"" + text + "\").";
    options.sampling.temperature = value;
  }
  return std::nullopt;
}

Result<agent::Mechanism> choose_mechanism(const std::optional<agent::Mechanism>& flag, const agent::Settings& settings) {
  if (flag) return *flag;
  if (const char* env = std::getenv("WELD_MECHANISM"); env != nullptr && *env != '\0') {
    std::optional<agent::Mechanism> parsed = agent::parse_mechanism(env);
    if (!parsed)
      return Error{ErrorCode::Config, std::string("WELD_MECHANISM must be one of tool, native, auto (got \"") + env + "\").",
                   "WELD_MECHANISM"};
    return *parsed;
  }
  if (settings.mechanism) return *agent::parse_mechanism(*settings.mechanism);
  return agent::Mechanism::Tool;
}

std::string offline_notice(const ModelChoice& choice) {
  return choice.offline_by_default
             ? "weld: no model provider configured (no --provider, WELD_PROVIDER, API key or base URL); "
               "using the built-in offline model, which samples a schema-valid instance and is not a "
               "language model. See docs/run.md to point weld at a real model.\n"
             : "weld: using the built-in offline model (samples a schema-valid instance; not a language "
               "model).\n";
}

Result<ModelChoice> choose_model(const ModelFlags& flags, const provider::ModelHooks& hooks) {
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
  provider_flags.max_response_bytes = flags.max_response_bytes;
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
  Result<std::unique_ptr<provider::Model>> model = provider::make_model(*config, hooks);
  if (!model) return model.error();
  choice.model = std::move(*model);
  choice.model_name = config->model;
  choice.provider = config->provider;
  choice.base_url = config->base_url;
  choice.network = config->network;
  return choice;
}

}  // namespace weld::cli
