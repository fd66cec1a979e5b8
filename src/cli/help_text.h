#pragma once
// The end of `weld --help`: the subcommands, the exit codes and the
// environment variables, so a user sees the whole tool from one command
// (SPEC §1.4, §2.5; the README's tables say the same).

namespace weld::cli {

inline constexpr const char* kMainHelpFooter = R"(Subcommands (each has its own --help):
  weld schema check SCHEMA...           load and compile schemas, print ok or the error
  weld schema validate SCHEMA FILE...   validate JSON / JSON Lines files (- for stdin)
  weld sample SCHEMA [-n N] [--seed S]  print schema-valid example instances
  weld proxy [--agents FILE] ...        HTTP proxy welding per-agent schemas onto tagged requests
  weld agents check|export ...          check an agent registry, export Claude Code sub-agents
  weld --version                        print the version, the commit and the build type

Exit codes (the same in every subcommand):
  0    success (a run: stdout is the schema-valid payload)
  1    usage error (unknown flag, missing argument, conflicting flags); an invalid instance or
       schema for `weld schema`; a run's plain-text answer, exhausted retries, or a provider error
  41   the provider refused the credentials (401/403)
  52   schema or configuration error, or no provider configured (nothing was sent to the model)
  53   --max-session-turns reached
  55   --max-tool-calls or --max-wall-time exceeded
  75   temporary failure: the model server (or its models list) could not be reached, kept
       answering 408/429/500/502/503/504, or cut its answers short, after weld's retries; retry later
  130  interrupted (SIGINT or SIGTERM)

Environment:
  WELD_PROVIDER, WELD_MODEL, WELD_BASE_URL, WELD_API_KEY
                        provider, model, server and key when the flags do not give them;
                        with none of these, nor the provider's own variables, weld exits 52;
                        WELD_PROVIDER=offline (--provider offline) tries weld without a model
  OPENAI_API_KEY, OPENAI_BASE_URL, ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL
                        the provider's own variables, read after the WELD_ ones
  WELD_MECHANISM        tool, native or auto (like --mechanism)
  WELD_CONNECT_TIMEOUT, WELD_IDLE_TIMEOUT, WELD_MAX_RETRIES
                        defaults of --connect-timeout, --idle-timeout, --max-retries
  HTTPS_PROXY, HTTP_PROXY, ALL_PROXY, NO_PROXY (or lower case), SSL_CERT_FILE, CURL_CA_BUNDLE
                        network settings for the model server
  ANTHROPIC_MODEL       default of `weld agents export --base-model`
  HOME                  where ~ in paths and ~/.weld/settings.json are found
)";

}  // namespace weld::cli
