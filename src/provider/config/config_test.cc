#include "weld/provider/config.h"
#include "weld/provider/http.h"

#include <gtest/gtest.h>

namespace weld::provider {
namespace {

using namespace std::chrono_literals;

ProviderConfig resolve_ok(const ProviderFlags& flags, const Environment& env) {
  auto config = resolve_provider_config(flags, env);
  EXPECT_TRUE(config) << config.error().message;
  return config ? *config : ProviderConfig{};
}

Error resolve_error(const ProviderFlags& flags, const Environment& env) {
  auto config = resolve_provider_config(flags, env);
  EXPECT_FALSE(config);
  return config ? Error{} : config.error();
}

TEST(ResolveProviderConfig, FlagsBeatWeldVariablesBeatProviderVariables) {
  Environment env = {{"WELD_PROVIDER", "anthropic"},  {"WELD_MODEL", "weld-model"},
                     {"WELD_BASE_URL", "http://weld:1"}, {"WELD_API_KEY", "weld-key"},
                     {"OPENAI_API_KEY", "openai-key"}, {"OPENAI_MODEL", "openai-model"},
                     {"ANTHROPIC_API_KEY", "anthropic-key"}, {"ANTHROPIC_MODEL", "anthropic-model"},
                     {"ANTHROPIC_BASE_URL", "http://anthropic:2"}};
  ProviderFlags flags;
  flags.provider = "openai";
  flags.model = "flag-model";
  flags.base_url = "http://flag:3/v1/";
  flags.api_key = "flag-key";
  ProviderConfig c = resolve_ok(flags, env);
  EXPECT_EQ(c.provider, Provider::OpenAi);
  EXPECT_EQ(c.model, "flag-model");
  EXPECT_EQ(c.base_url, "http://flag:3/v1");  // trailing slash removed
  EXPECT_EQ(c.api_key, "flag-key");

  c = resolve_ok({}, env);
  EXPECT_EQ(c.provider, Provider::Anthropic);
  EXPECT_EQ(c.model, "weld-model");
  EXPECT_EQ(c.base_url, "http://weld:1");
  EXPECT_EQ(c.api_key, "weld-key");

  env.erase("WELD_MODEL");
  env.erase("WELD_BASE_URL");
  env.erase("WELD_API_KEY");
  c = resolve_ok({}, env);
  EXPECT_EQ(c.model, "anthropic-model");
  EXPECT_EQ(c.base_url, "http://anthropic:2");
  EXPECT_EQ(c.api_key, "anthropic-key");  // the chosen provider's own variables only
}

TEST(ResolveProviderConfig, ProviderInferredFromItsVariables) {
  ProviderConfig c = resolve_ok({}, {{"OPENAI_BASE_URL", "http://127.0.0.1:8000/v1"}, {"OPENAI_MODEL", "qwen"}});
  EXPECT_EQ(c.provider, Provider::OpenAi);
  EXPECT_EQ(c.base_url, "http://127.0.0.1:8000/v1");
  EXPECT_EQ(c.model, "qwen");
  EXPECT_EQ(c.api_key, "");
  c = resolve_ok({}, {{"ANTHROPIC_API_KEY", "k-anthropic"}});
  EXPECT_EQ(c.provider, Provider::Anthropic);
  EXPECT_EQ(c.base_url, "https://api.anthropic.com");
  EXPECT_EQ(c.model, "claude-sonnet-4-5");
  c = resolve_ok({}, {{"OPENAI_API_KEY", "k-openai"}});
  EXPECT_EQ(c.base_url, "https://api.openai.com/v1");
  EXPECT_EQ(c.model, "gpt-4o-mini");
}

TEST(ResolveProviderConfig, EmptyVariablesCountAsUnset) {
  ProviderConfig c = resolve_ok({}, {{"WELD_PROVIDER", ""}, {"WELD_MODEL", ""}, {"OPENAI_BASE_URL", "http://x/v1"},
                                     {"OPENAI_MODEL", "m"}});
  EXPECT_EQ(c.provider, Provider::OpenAi);
  EXPECT_EQ(c.model, "m");
}

TEST(ResolveProviderConfig, Errors) {
  Error e = resolve_error({}, {});
  EXPECT_EQ(e.code, ErrorCode::Config);
  // The library and the command say the same: how to choose, and how to
  // try weld without a model; each names the settings in its own terms.
  EXPECT_EQ(e.message,
            "no model provider configured. Choose one: provider=openai, openai-responses or anthropic (or "
            "WELD_PROVIDER), with base_url (or WELD_BASE_URL) for a server of your own such as vLLM, llama.cpp or "
            "Ollama; or set OPENAI_API_KEY, OPENAI_BASE_URL, ANTHROPIC_API_KEY or ANTHROPIC_BASE_URL. To try weld "
            "without a model, pass provider=offline (or WELD_PROVIDER=offline): it answers with a sampled "
            "schema-valid instance, not a language model's answer. See docs/run.md, \"Pointing weld at a model\".");
  EXPECT_EQ(e.where, "provider");
  ProviderFlags as_flags;
  as_flags.names.provider = "--provider";
  as_flags.names.model = "--model";
  as_flags.names.base_url = "--base-url";
  as_flags.names.assign = " ";
  Error flagged = resolve_error(as_flags, {});
  EXPECT_EQ(flagged.message,
            "no model provider configured. Choose one: --provider openai, openai-responses or anthropic (or "
            "WELD_PROVIDER), with --base-url (or WELD_BASE_URL) for a server of your own such as vLLM, llama.cpp or "
            "Ollama; or set OPENAI_API_KEY, OPENAI_BASE_URL, ANTHROPIC_API_KEY or ANTHROPIC_BASE_URL. To try weld "
            "without a model, pass --provider offline (or WELD_PROVIDER=offline): it answers with a sampled "
            "schema-valid instance, not a language model's answer. See docs/run.md, \"Pointing weld at a model\".");
  EXPECT_EQ(flagged.where, "--provider");
  as_flags.provider = "gemini";
  EXPECT_EQ(resolve_error(as_flags, {}).message,
            "--provider: unknown provider \"gemini\" (expected openai, openai-responses, anthropic or offline)");
  as_flags.provider = "openai";
  as_flags.model = "";
  EXPECT_EQ(resolve_error(as_flags, {}).message, "--model must not be empty");
  ProviderFlags empty_model;
  empty_model.provider = "openai";
  empty_model.model = "";
  EXPECT_EQ(resolve_error(empty_model, {}).message, "model must not be empty");
  // A key alone names no provider.
  EXPECT_EQ(resolve_error({}, {{"WELD_API_KEY", "sk-x"}}).message, e.message);
  e = resolve_error({}, {{"WELD_PROVIDER", "gemini"}});
  EXPECT_EQ(e.message, "WELD_PROVIDER: unknown provider \"gemini\" (expected openai, openai-responses, anthropic or offline)");
  EXPECT_EQ(e.where, "WELD_PROVIDER");
  e = resolve_error({}, {{"WELD_PROVIDER", "openai"}, {"WELD_BASE_URL", "localhost:8000"}});
  EXPECT_EQ(e.message, "WELD_BASE_URL must be an http:// or https:// URL, got \"localhost:8000\"");
  e = resolve_error({}, {{"WELD_PROVIDER", "openai"}});
  EXPECT_EQ(e.message, "no API key for https://api.openai.com: set WELD_API_KEY or OPENAI_API_KEY");
  e = resolve_error({}, {{"WELD_PROVIDER", "anthropic"}});
  EXPECT_EQ(e.message, "no API key for https://api.anthropic.com: set WELD_API_KEY, ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN");
  e = resolve_error({}, {{"OPENAI_BASE_URL", "http://x/v1"}, {"WELD_IDLE_TIMEOUT", "ten"}});
  EXPECT_EQ(e.message, "WELD_IDLE_TIMEOUT must be a number of seconds, got \"ten\"");
  e = resolve_error({}, {{"OPENAI_BASE_URL", "http://x/v1"}, {"WELD_CONNECT_TIMEOUT", "-1"}});
  EXPECT_EQ(e.message, "WELD_CONNECT_TIMEOUT must be between 0 and 86400 seconds");
  e = resolve_error({}, {{"OPENAI_BASE_URL", "http://x/v1"}, {"WELD_MAX_RETRIES", "3x"}});
  EXPECT_EQ(e.message, "WELD_MAX_RETRIES must be a whole number, got \"3x\"");
}

TEST(ResolveProviderConfig, credentials_in_the_base_url_are_refused_never_echoed) {
  ProviderFlags flags;
  flags.provider = "openai";
  flags.base_url = "http://user:PASS-1234@gateway:8080/v1";
  Error error = resolve_error(flags, {{"WELD_API_KEY", "k"}});
  EXPECT_EQ(error.message,
            "base_url must not carry credentials (user:password@) in the URL; give the key with WELD_API_KEY or the "
            "provider's key variable");
  EXPECT_EQ(error.message.find("PASS"), std::string::npos);
  error = resolve_error({}, {{"WELD_PROVIDER", "anthropic"}, {"ANTHROPIC_BASE_URL", "https://tok@host"},
                             {"ANTHROPIC_API_KEY", "k"}});
  EXPECT_EQ(error.where, "ANTHROPIC_BASE_URL");
  EXPECT_TRUE(url_has_credentials("ftp://a@b"));
  EXPECT_FALSE(url_has_credentials("http://host/v1/users/@me"));  // an '@' in the path is not userinfo
  EXPECT_FALSE(url_has_credentials("http://host:80?x=a@b"));
}

TEST(ResolveProviderConfig, MaxResponseBytesFromTheEnvironment) {
  Environment env = {{"WELD_PROVIDER", "openai"}, {"WELD_API_KEY", "k"}};
  EXPECT_EQ(resolve_ok({}, env).max_response_bytes, 64u << 20);
  env["WELD_MAX_RESPONSE_BYTES"] = "2M";
  EXPECT_EQ(resolve_ok({}, env).max_response_bytes, 2u << 20);
  env["WELD_MAX_RESPONSE_BYTES"] = "5000";
  EXPECT_EQ(resolve_ok({}, env).max_response_bytes, 5000u);
  for (const char* bad : {"0", "12", "-5", "3X", "1MB", "2000G"}) {
    env["WELD_MAX_RESPONSE_BYTES"] = bad;
    EXPECT_EQ(resolve_error({}, env).where, "WELD_MAX_RESPONSE_BYTES") << bad;
  }
  // The flag wins over the variable (even a bad one).
  ProviderFlags flags;
  flags.max_response_bytes = 4096;
  EXPECT_EQ(resolve_ok(flags, env).max_response_bytes, 4096u);
}

TEST(ParseByteSize, UnitsBoundsAndGarbage) {
  EXPECT_EQ(parse_byte_size("1024"), 1024u);
  EXPECT_EQ(parse_byte_size("64M"), 64u << 20);
  EXPECT_EQ(parse_byte_size("64m"), 64u << 20);
  EXPECT_EQ(parse_byte_size("1k"), 1024u);
  EXPECT_EQ(parse_byte_size("1024G"), 1ull << 40);
  for (const char* bad : {"", "0", "1023", "1025G", "-1", "+5", " 5", "5 ", "1MB", "M", "99999999999999999999999"}) {
    EXPECT_FALSE(parse_byte_size(bad)) << bad;
  }
}

TEST(ResolveProviderConfig, OfflineNeedsNothing) {
  ProviderFlags flags;
  flags.provider = "Offline";
  ProviderConfig c = resolve_ok(flags, {});
  EXPECT_EQ(c.provider, Provider::Offline);
  EXPECT_EQ(c.model, "offline");
}

TEST(ResolveProviderConfig, TimeoutsRetriesProxiesAndCaBundle) {
  Environment env = {{"OPENAI_BASE_URL", "http://x/v1"},
                     {"WELD_CONNECT_TIMEOUT", "2.5"},
                     {"WELD_IDLE_TIMEOUT", "30"},
                     {"WELD_MAX_RETRIES", "1"},
                     {"HTTPS_PROXY", "http://proxy:3128"},
                     {"http_proxy", "http://plain:3128"},
                     {"HTTP_PROXY", "http://ignored:1"},
                     {"NO_PROXY", "localhost,.internal"},
                     {"SSL_CERT_FILE", "/etc/corp-ca.pem"}};
  ProviderConfig c = resolve_ok({}, env);
  EXPECT_EQ(c.connect_timeout, 2500ms);
  EXPECT_EQ(c.idle_timeout, 30000ms);
  EXPECT_EQ(c.retry.max_retries, 1);
  EXPECT_EQ(c.network.https_proxy, "http://proxy:3128");
  EXPECT_EQ(c.network.http_proxy, "http://plain:3128");  // lowercase first, as curl does
  EXPECT_EQ(c.network.no_proxy, "localhost,.internal");
  EXPECT_EQ(c.network.ca_bundle, "/etc/corp-ca.pem");

  ProviderFlags flags;
  flags.idle_timeout_seconds = 0.25;
  flags.max_retries = 0;
  c = resolve_ok(flags, {{"OPENAI_BASE_URL", "http://x/v1"}, {"ALL_PROXY", "socks5://s:1080"}});
  EXPECT_EQ(c.idle_timeout, 250ms);
  EXPECT_EQ(c.retry.max_retries, 0);
  EXPECT_EQ(c.network.https_proxy, "socks5://s:1080");
  EXPECT_EQ(c.network.http_proxy, "socks5://s:1080");
}

// A bad timeout or retry count names the setting in the caller's terms: the
// library's (Python's keywords) by default, the CLI's flags when it fills them.
TEST(ResolveProviderConfig, BadTimeoutsAndRetriesNameTheSettingAsTheCallerSays) {
  const Environment env = {{"OPENAI_BASE_URL", "http://x/v1"}};
  ProviderFlags flags;
  flags.connect_timeout_seconds = 0;
  Error e = resolve_error(flags, env);
  EXPECT_EQ(e.message, "connect_timeout must be between 0 and 86400 seconds");
  EXPECT_EQ(e.where, "connect_timeout");
  flags.connect_timeout_seconds.reset();
  flags.idle_timeout_seconds = 86401;
  EXPECT_EQ(resolve_error(flags, env).message, "idle_timeout must be between 0 and 86400 seconds");
  flags.idle_timeout_seconds.reset();
  flags.max_retries = 101;
  EXPECT_EQ(resolve_error(flags, env).where, "max_retries");
  EXPECT_EQ(resolve_ok({}, env).names.max_response_bytes, "max_response_bytes");

  flags.names.connect_timeout = "--connect-timeout";
  flags.names.idle_timeout = "--idle-timeout";
  flags.names.max_retries = "--max-retries";
  flags.names.max_response_bytes = "--max-response-bytes";
  EXPECT_EQ(resolve_error(flags, env).where, "--max-retries");
  flags.max_retries.reset();
  flags.idle_timeout_seconds = -1;
  EXPECT_EQ(resolve_error(flags, env).message, "--idle-timeout must be between 0 and 86400 seconds");
  flags.idle_timeout_seconds.reset();
  flags.connect_timeout_seconds = 1e9;
  EXPECT_EQ(resolve_error(flags, env).message, "--connect-timeout must be between 0 and 86400 seconds");
  flags.connect_timeout_seconds.reset();
  // The resolved configuration carries the names to the model's messages.
  EXPECT_EQ(resolve_ok(flags, env).names.max_response_bytes, "--max-response-bytes");
}

TEST(MakeModel, ProvidersAndTheOfflineHook) {
  ProviderConfig config;
  config.provider = Provider::OpenAi;
  config.base_url = "http://127.0.0.1:1/v1";
  auto model = make_model(config);
  ASSERT_TRUE(model);
  EXPECT_EQ((*model)->provider_name(), "openai");
  config.provider = Provider::Anthropic;
  model = make_model(config);
  ASSERT_TRUE(model);
  EXPECT_EQ((*model)->provider_name(), "anthropic");

  config.provider = Provider::Offline;
  model = make_model(config);
  ASSERT_FALSE(model);
  EXPECT_EQ(model.error().message, "the offline model is not available in this build");

  struct Offline : Model {
    Result<Response> complete(const Request&, const StreamObserver&, CancelToken&) override {
      return Response{};
    }
    std::string provider_name() const override { return "offline"; }
  };
  ModelHooks hooks;
  hooks.offline = [](const ProviderConfig&) -> Result<std::unique_ptr<Model>> {
    return std::unique_ptr<Model>(std::make_unique<Offline>());
  };
  model = make_model(config, hooks);
  ASSERT_TRUE(model);
  EXPECT_EQ((*model)->provider_name(), "offline");

  // A provider is a closed set: every one names its protocol or the offline model.
  for (Provider p : {Provider::OpenAi, Provider::OpenAiResponses, Provider::Anthropic, Provider::Offline}) {
    EXPECT_EQ(parse_provider(provider_name(p)), p);
    EXPECT_EQ(provider_protocol(p).has_value(), p != Provider::Offline);
  }
  EXPECT_EQ(parse_provider("OpenAI"), Provider::OpenAi);
  EXPECT_EQ(parse_provider("gemini"), std::nullopt);
}

}  // namespace
}  // namespace weld::provider
