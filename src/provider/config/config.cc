// Resolving the provider configuration (docs/run.md, "Pointing weld at a model"): flags, then WELD_*, then
// the provider's own variables, then defaults. The environment is a
// parameter so that tests pass a literal map and nothing here reads global
// state behind the caller's back.
#include "weld/base/ascii.h"
#include "weld/provider/config.h"
#include "weld/provider/http.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <string>

extern char** environ;  // POSIX

namespace weld::provider {
namespace {

const std::string* lookup(const Environment& env, const char* name) {
  auto found = env.find(name);
  if (found == env.end() || found->second.empty()) return nullptr;
  return &found->second;
}

std::optional<std::string> first_of(const Environment& env, std::initializer_list<const char*> names,
                                    std::string* which = nullptr) {
  for (const char* name : names) {
    if (const std::string* v = lookup(env, name)) {
      if (which) *which = name;
      return *v;
    }
  }
  return std::nullopt;
}

Result<std::chrono::milliseconds> seconds_setting(std::optional<double> flag, const Environment& env,
                                                  const char* variable, std::string_view setting,
                                                  std::chrono::milliseconds fallback) {
  double seconds = 0;
  std::string where(setting);
  if (flag) {
    seconds = *flag;
  } else if (const std::string* text = lookup(env, variable)) {
    where = variable;
    char* end = nullptr;
    seconds = std::strtod(text->c_str(), &end);
    if (end == text->c_str() || *end != '\0')
      return Error{ErrorCode::Config, std::string(variable) + " must be a number of seconds, got \"" + *text + "\"",
                   variable};
  } else {
    return fallback;
  }
  if (!std::isfinite(seconds) || seconds <= 0 || seconds > 86400)
    return Error{ErrorCode::Config, where + " must be between 0 and 86400 seconds", where};
  return std::chrono::milliseconds(static_cast<std::int64_t>(std::llround(seconds * 1000)));
}

}  // namespace

Environment process_environment() {
  Environment env;
  for (char** entry = environ; entry && *entry; ++entry) {
    std::string_view text(*entry);
    std::size_t eq = text.find('=');
    if (eq == std::string_view::npos) continue;
    env.emplace(std::string(text.substr(0, eq)), std::string(text.substr(eq + 1)));
  }
  return env;
}

std::optional<std::uint64_t> parse_byte_size(std::string_view text) {
  std::uint64_t n = 0;
  std::size_t i = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    if (n > (std::uint64_t{1} << 40)) return std::nullopt;  // already too large; no overflow
    n = n * 10 + static_cast<std::uint64_t>(text[i] - '0');
  }
  if (i == 0) return std::nullopt;
  int shift = 0;
  if (i + 1 == text.size()) {
    char unit = static_cast<char>(std::toupper(static_cast<unsigned char>(text[i])));
    shift = unit == 'K' ? 10 : unit == 'M' ? 20 : unit == 'G' ? 30 : -1;
    if (shift < 0) return std::nullopt;
  } else if (i != text.size()) {
    return std::nullopt;
  }
  if (n == 0 || n > (std::uint64_t{1} << 40) >> shift || (n << shift) < 1024) return std::nullopt;
  return n << shift;
}

std::string_view provider_name(Provider provider) {
  switch (provider) {
    case Provider::OpenAi: return "openai";
    case Provider::OpenAiResponses: return "openai-responses";
    case Provider::Anthropic: return "anthropic";
    case Provider::Offline: return "offline";
  }
  return "openai";
}

std::optional<Provider> parse_provider(std::string_view name) {
  const std::string lower = ascii_lower(std::string(name));
  for (Provider p : {Provider::OpenAi, Provider::OpenAiResponses, Provider::Anthropic, Provider::Offline}) {
    if (lower == provider_name(p)) return p;
  }
  return std::nullopt;
}

std::optional<Protocol> provider_protocol(Provider provider) {
  switch (provider) {
    case Provider::OpenAi: return Protocol::OpenAiChat;
    case Provider::OpenAiResponses: return Protocol::OpenAiResponses;
    case Provider::Anthropic: return Protocol::AnthropicMessages;
    case Provider::Offline: return std::nullopt;
  }
  return std::nullopt;
}

std::string no_provider_message(const SettingNames& names) {
  return "no model provider configured. Choose one: " + names.with_value(names.provider, "openai") +
         ", openai-responses or anthropic (or WELD_PROVIDER), with " + std::string(names.base_url) +
         " (or WELD_BASE_URL) for a server of your own such as vLLM, llama.cpp or Ollama; or set OPENAI_API_KEY, "
         "OPENAI_BASE_URL, ANTHROPIC_API_KEY or ANTHROPIC_BASE_URL. To try weld without a model, pass " +
         names.with_value(names.provider, "offline") +
         " (or WELD_PROVIDER=offline): it answers with a sampled schema-valid instance, not a language model's "
         "answer. See docs/run.md, \"Pointing weld at a model\".";
}

Result<ProviderConfig> resolve_provider_config(const ProviderFlags& flags, const Environment& env) {
  ProviderConfig config;
  config.names = flags.names;
  const SettingNames& names = flags.names;

  // Which provider.
  std::string provider_where(names.provider);
  std::optional<std::string> named;
  if (flags.provider) {
    named = *flags.provider;
  } else if (const std::string* p = lookup(env, "WELD_PROVIDER")) {
    named = *p;
    provider_where = "WELD_PROVIDER";
  } else if (first_of(env, {"OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL"})) {
    config.provider = Provider::OpenAi;
    if (first_of(env, {"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"})) {
      config.provider_reason = "OPENAI_* and ANTHROPIC_* variables are both set; using openai (OpenAI's are read "
                               "first). Pass " + std::string(names.provider) + " (or set WELD_PROVIDER) to choose.";
    }
  } else if (first_of(env, {"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "ANTHROPIC_MODEL"})) {
    config.provider = Provider::Anthropic;
  } else if (flags.base_url || lookup(env, "WELD_BASE_URL")) {
    config.provider = Provider::OpenAi;  // a bare base URL is most often an OpenAI-compatible server
    config.provider_defaulted = true;
  } else {
    return Error{ErrorCode::Config, no_provider_message(names), std::string(names.provider)};
  }
  if (named) {
    std::optional<Provider> provider = parse_provider(*named);
    if (!provider)
      return Error{ErrorCode::Config,
                   provider_where + ": unknown provider \"" + ascii_lower(*named) +
                       "\" (expected openai, openai-responses, anthropic or offline)",
                   provider_where};
    config.provider = *provider;
  }

  // The Responses API is OpenAI's: same variables, URL and key.
  const bool openai = config.provider == Provider::OpenAi || config.provider == Provider::OpenAiResponses;
  const bool anthropic = config.provider == Provider::Anthropic;

  // Model, base URL, key: flag, WELD_*, the provider's own variables.
  if (flags.model) config.model = *flags.model;
  else if (auto v = first_of(env, {"WELD_MODEL"})) config.model = *v;
  else if (auto v = openai ? first_of(env, {"OPENAI_MODEL"})
                           : anthropic ? first_of(env, {"ANTHROPIC_MODEL"}) : std::nullopt)
    config.model = *v;
  else {
    config.model = openai ? "gpt-4o-mini" : anthropic ? "claude-sonnet-4-5" : "offline";
    config.model_defaulted = true;
  }
  if (flags.model && flags.model->empty())
    return Error{ErrorCode::Config, std::string(names.model) + " must not be empty", std::string(names.model)};

  std::string base_where(names.base_url);
  if (flags.base_url) {
    config.base_url = *flags.base_url;
  } else if (auto v = first_of(env, {"WELD_BASE_URL"}, &base_where)) {
    config.base_url = *v;
  } else if (auto v = openai ? first_of(env, {"OPENAI_BASE_URL"}, &base_where)
                             : anthropic ? first_of(env, {"ANTHROPIC_BASE_URL"}, &base_where)
                                         : std::nullopt) {
    config.base_url = *v;
  } else {
    config.base_url = openai ? "https://api.openai.com/v1" : anthropic ? "https://api.anthropic.com" : "";
    config.base_url_defaulted = true;
  }
  while (!config.base_url.empty() && config.base_url.back() == '/') config.base_url.pop_back();
  if (url_has_credentials(config.base_url)) {
    // Never echoed: the URL holds a password.
    return Error{ErrorCode::Config,
                 base_where + " must not carry credentials (user:password@) in the URL; give the key with "
                              "WELD_API_KEY or the provider's key variable",
                 base_where};
  }
  if (config.provider != Provider::Offline) {
    std::string lower = ascii_lower(config.base_url);
    if (lower.rfind("http://", 0) != 0 && lower.rfind("https://", 0) != 0)
      return Error{ErrorCode::Config,
                   base_where + " must be an http:// or https:// URL, got \"" + url_for_messages(config.base_url) + "\"",
                   base_where};
  }

  if (flags.api_key) config.api_key = *flags.api_key;
  else if (auto v = first_of(env, {"WELD_API_KEY"})) config.api_key = *v;
  else if (auto v = openai ? first_of(env, {"OPENAI_API_KEY"})
                           : anthropic ? first_of(env, {"ANTHROPIC_API_KEY"}) : std::nullopt)
    config.api_key = *v;
  else if (auto token = anthropic ? first_of(env, {"ANTHROPIC_AUTH_TOKEN"}) : std::nullopt) {
    // Claude Code's gateway token: sent as a Bearer token.
    config.api_key = *token;
    config.bearer_auth = true;
  }
  if (config.api_key.empty()) {
    // The hosted APIs always need a key; saying so here beats a 401 later.
    if (openai && ascii_lower(config.base_url).rfind("https://api.openai.com", 0) == 0)
      return Error{ErrorCode::Config, "no API key for https://api.openai.com: set WELD_API_KEY or OPENAI_API_KEY",
                   "OPENAI_API_KEY"};
    if (anthropic && ascii_lower(config.base_url).rfind("https://api.anthropic.com", 0) == 0)
      return Error{ErrorCode::Config,
                   "no API key for https://api.anthropic.com: set WELD_API_KEY, ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN",
                   "ANTHROPIC_API_KEY"};
  }

  // Timeouts and retries.
  auto connect = seconds_setting(flags.connect_timeout_seconds, env, "WELD_CONNECT_TIMEOUT", names.connect_timeout,
                                 config.connect_timeout);
  if (!connect) return connect.error();
  config.connect_timeout = *connect;
  auto idle = seconds_setting(flags.idle_timeout_seconds, env, "WELD_IDLE_TIMEOUT", names.idle_timeout,
                              config.idle_timeout);
  if (!idle) return idle.error();
  config.idle_timeout = *idle;
  if (flags.max_retries) {
    config.retry.max_retries = *flags.max_retries;
  } else if (const std::string* text = lookup(env, "WELD_MAX_RETRIES")) {
    char* end = nullptr;
    long n = std::strtol(text->c_str(), &end, 10);
    if (end == text->c_str() || *end != '\0')
      return Error{ErrorCode::Config, "WELD_MAX_RETRIES must be a whole number, got \"" + *text + "\"",
                   "WELD_MAX_RETRIES"};
    config.retry.max_retries = static_cast<int>(std::clamp(n, -1L, 1000L));
  }
  if (config.retry.max_retries < 0 || config.retry.max_retries > 100)
    return Error{ErrorCode::Config, "the number of retries must be between 0 and 100", std::string(names.max_retries)};

  if (flags.max_response_bytes) {
    config.max_response_bytes = *flags.max_response_bytes;
  } else if (const std::string* text = lookup(env, "WELD_MAX_RESPONSE_BYTES")) {
    std::optional<std::uint64_t> bytes = parse_byte_size(*text);
    if (!bytes) {
      return Error{ErrorCode::Config,
                   "WELD_MAX_RESPONSE_BYTES must be a number of bytes from 1024 to 1T (K, M, G allowed), got \"" +
                       *text + "\"",
                   "WELD_MAX_RESPONSE_BYTES"};
    }
    config.max_response_bytes = *bytes;
  }

  config.network = network_settings(env);
  return config;
}

NetworkSettings network_settings(const Environment& env) {
  // Proxies and CA bundle. libcurl only reads lowercase http_proxy (a CGI
  // precaution); weld is not a CGI program, so both spellings count.
  NetworkSettings network;
  if (auto v = first_of(env, {"https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"})) network.https_proxy = *v;
  if (auto v = first_of(env, {"http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"})) network.http_proxy = *v;
  if (auto v = first_of(env, {"no_proxy", "NO_PROXY"})) network.no_proxy = *v;
  if (auto v = first_of(env, {"SSL_CERT_FILE", "CURL_CA_BUNDLE"})) network.ca_bundle = *v;
  return network;
}

}  // namespace weld::provider
