// The model flags of the run and `weld batch`, and the model they choose
// (weld::agent::choose_model has the rules; the CLI adds the offline model).

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdlib>

#include "run_support.h"
#include "weld/provider/config.h"
#include "offline_model.h"  // src/sample (target weld_offline)

namespace weld::cli {
namespace {

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
  app.add_option("--provider", flags.provider,
                 "openai | openai-responses | anthropic | offline (the built-in stand-in; answers only when chosen)");
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
                 "Retries of a request after a temporary failure: 408/429/500/502/503/504, a connection error, a "
                 "stream cut short (default 3; also WELD_MAX_RETRIES)")
      ->type_name("N");
  app.add_option("--max-response-bytes", text.max_response_bytes,
                 "Most body bytes of one model response, K/M/G allowed (default 64M; also WELD_MAX_RESPONSE_BYTES)")
      ->type_name("BYTES");
}

std::optional<std::string> check_model_flags(const ModelFlagText& text, ModelFlags& flags,
                                             std::optional<agent::Mechanism>& mechanism) {
  flags.names = kFlagNames;
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

void add_run_limit_flags(CLI::App& app, RunLimitFlags& flags, bool per_row) {
  // In a batch a limit ends the row (an errored line naming it), not the
  // process.
  const std::string turns = per_row ? "A row ends errored (error_max_turns) after N model turns (default: no limit)"
                                    : "End with exit 53 after N model turns (default: no limit)";
  const std::string calls = per_row ? "A row ends errored after N tool calls (structured_output excluded)"
                                    : "End with exit 55 after N tool calls (structured_output excluded)";
  const std::string wall = per_row ? "A row ends errored after SECONDS" : "End with exit 55 after SECONDS";
  app.add_option("--max-session-turns,--max-turns", flags.max_session_turns, turns);
  app.add_option("--max-tool-calls", flags.max_tool_calls, calls);
  app.add_option("--max-wall-time", flags.max_wall_time, wall);
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
  return agent::choose_mechanism(flag, settings, provider::process_environment());
}

Result<ModelChoice> choose_model(const ModelFlags& flags, const provider::ModelHooks& hooks) {
  provider::ModelHooks with_offline = hooks;
  with_offline.offline = sample::offline_model_factory(flags.seed);
  return agent::choose_model(flags, provider::process_environment(), with_offline);
}

}  // namespace weld::cli
