#pragma once
// The end of `weld --help`: the subcommands, the exit codes and the
// environment variables, so a user sees the whole tool from one command
// (the README's tables say the same).

namespace weld::cli {

inline constexpr const char* kMainHelpFooter = R"(Subcommands (each has its own --help; also weld help COMMAND):
  weld batch --json-schema S IN [-o OUT] run every row of a JSON Lines file as a run (resumable, sharded)
  weld schema check SCHEMA...           load and compile schemas, print ok or the error
  weld schema validate SCHEMA FILE...   validate JSON / JSON Lines files (- for stdin)
  weld sample SCHEMA [-n N] [--seed S]  print schema-valid example instances
  weld proxy [--agents FILE] ...        HTTP proxy welding per-agent schemas onto tagged requests
  weld agents check|export ...          check an agent registry, export Claude Code sub-agents
  weld help [COMMAND]                   this help, or a subcommand's
  weld --version, weld -V               print the version, the commit and the build type

Claude Code's flag names work too: --max-turns, --allowedTools, --disallowedTools, --permission-mode,
--dangerously-skip-permissions, --mcp-config, --append-system-prompt, --settings, --verbose, --debug
(docs/run.md, "Coming from Claude Code, Qwen Code or Codex").

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
  OPENAI_API_KEY, OPENAI_BASE_URL, OPENAI_MODEL
  ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN, ANTHROPIC_BASE_URL, ANTHROPIC_MODEL
                        the providers' own variables, read after the WELD_ ones (OpenAI's first);
                        ANTHROPIC_AUTH_TOKEN goes as a Bearer token, as Claude Code sends it;
                        ANTHROPIC_MODEL is also the default of `weld agents export --base-model`
  WELD_MECHANISM        tool, native or auto (like --mechanism)
  WELD_CONNECT_TIMEOUT, WELD_IDLE_TIMEOUT, WELD_MAX_RETRIES, WELD_MAX_RESPONSE_BYTES
                        defaults of --connect-timeout, --idle-timeout, --max-retries, --max-response-bytes
  HTTPS_PROXY, HTTP_PROXY, ALL_PROXY, NO_PROXY (or lower case), SSL_CERT_FILE, CURL_CA_BUNDLE
                        network settings for the model server
  OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, OTEL_EXPORTER_OTLP_METRICS_ENDPOINT,
  OTEL_EXPORTER_OTLP_HEADERS, OTEL_EXPORTER_OTLP_PROTOCOL, OTEL_EXPORTER_OTLP_TIMEOUT, OTEL_SERVICE_NAME,
  OTEL_RESOURCE_ATTRIBUTES, OTEL_TRACES_EXPORTER, OTEL_SDK_DISABLED, OTEL_METRIC_EXPORT_INTERVAL,
  OTEL_BSP_SCHEDULE_DELAY, OTEL_BSP_MAX_QUEUE_SIZE, OTEL_BSP_MAX_EXPORT_BATCH_SIZE
                        OpenTelemetry export of traces and metrics (docs/telemetry.md); off without an endpoint
  TRACEPARENT           the W3C trace context a run's spans join
  JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_MIN, SLURM_ARRAY_TASK_COUNT, SLURM_ARRAY_TASK_STEP
                        `weld batch`: the shard of a Kubernetes Indexed Job or a Slurm array task
  HOME                  where ~ in paths and ~/.weld/settings.json are found
)";

}  // namespace weld::cli
