// Example for docs/library.md: the structured-output loop from code. Asks a
// model server (OpenAI or Anthropic API, configured like the weld command:
// WELD_PROVIDER, WELD_BASE_URL, WELD_MODEL, WELD_API_KEY or the provider's
// own variables) for an answer that validates against SCHEMA, and prints
// the validated payload. Exit codes are weld's (0, 1, 41, 52, 75, ...).
//
//   WELD_BASE_URL=http://127.0.0.1:8000/v1 ./structured_run "Assess this change" '{"type":"object",...}'

#include <iostream>

#include "weld/agent/run_loop.h"
#include "weld/json/serialize.h"
#include "weld/provider/config.h"
#include "weld/schema/load.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: structured_run PROMPT SCHEMA\n";
    return 1;
  }
  // The schema, loaded with every rule of `weld --json-schema` (inline or @file).
  weld::Result<weld::schema::LoadedSchema> loaded = weld::schema::load_json_schema(argv[2]);
  if (!loaded) {
    std::cerr << loaded.error().message << "\n";
    return 52;
  }
  // The model: flags (none here), then the environment.
  weld::provider::ProviderFlags flags;
  weld::Result<weld::provider::ProviderConfig> config =
      weld::provider::resolve_provider_config(flags, weld::provider::process_environment());
  if (!config) {
    std::cerr << config.error().message << "\n";
    return 52;
  }
  weld::Result<std::unique_ptr<weld::provider::Model>> model = weld::provider::make_model(*config);
  if (!model) {
    std::cerr << model.error().message << "\n";
    return 52;
  }

  weld::agent::RunOptions options;
  options.model = config->model;
  options.prompt = argv[1];
  options.schema = &loaded->schema;
  options.schema_source = loaded->source;
  options.max_session_turns = 5;
  weld::provider::CancelToken cancel;  // set cancel.cancelled from a signal handler to stop
  weld::agent::RunOutcome outcome = weld::agent::run(**model, /*tools=*/{}, options, /*observers=*/{}, cancel);

  if (outcome.exit_code != 0) {
    std::cerr << outcome.error_message << "\n";
    return outcome.exit_code;
  }
  std::cout << weld::json::serialize(*outcome.structured) << "\n";
  std::cerr << outcome.attempts << " attempt(s), " << outcome.repairs.size() << " repair(s), "
            << outcome.usage.input_tokens << "+" << outcome.usage.output_tokens << " tokens\n";
  return 0;
}
