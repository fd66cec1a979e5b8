// `weld sample SCHEMA [-n N] [--seed S]` (docs/schema.md): N schema-valid
// example instances, one compact JSON document per line. The schema is read
// as `weld schema` reads it (inline JSON, a path, or @path; steps 1-3 and 5 of
// docs/schema.md, "Reading --json-schema VALUE" — any schema: `true`, `false`, any root type). Exit 0; 52 for a
// schema that cannot be loaded or compiled; 1 when an instance cannot be
// sampled, and for a usage error (usage.h).

#include <CLI/CLI.hpp>

#include <cstdint>
#include <iostream>
#include <memory>
#include <string>

#include "commands.h"
#include "schema_input.h"
#include "usage.h"
#include "weld/json/serialize.h"
#include "weld/sample/sample.h"
#include "weld/schema/load.h"

namespace weld::cli {
namespace {

constexpr int kExitSampleFailed = 1;
constexpr std::string_view kFlag = "schema";

}  // namespace

int sample_main(int argc, char** argv) {
  CLI::App app{"Print schema-valid example instances, sampled offline from the schema.", "weld sample"};
  std::string schema_arg;
  std::uint64_t count = 1;
  std::uint64_t seed = 0;
  bool no_strict = false;
  std::string dialect;
  app.add_option("SCHEMA", schema_arg, "A schema: path, @path or inline JSON")->required();
  app.add_option("-n,--count", count, "Number of instances (default 1)")->check(CLI::Range(std::uint64_t{0}, std::uint64_t{1000000}));
  app.add_option("--seed", seed, "Seed: the same seed prints the same instances (default 0)");
  add_dialect_flag(app, dialect);
  app.add_flag("--no-strict", no_strict, "Skip the strict (Ajv strictSchema) checks");
  if (std::optional<int> code = parse_command_line(app, argc, argv)) return *code;

  schema::CompileOptions options;
  options.strict = !no_strict;
  if (!dialect.empty()) options.default_dialect = schema::parse_dialect_name(dialect);
  Result<schema::LoadedSchema> loaded = schema::load_schema_document(schema_argument(schema_arg), options, kFlag);
  if (!loaded) {
    std::cerr << with_prefix("weld sample: ", loaded.error().message) << "\n";
    return kExitConfig;
  }
  for (const schema::Warning& warning : loaded->warnings) {
    std::cerr << "weld sample: warning: " << warning.message << (warning.pointer.empty() ? "" : " at " + warning.pointer) << "\n";
  }
  std::cerr << "weld: offline sampler (not a language model), seed " << seed << "\n";

  sample::Sampler sampler(std::make_shared<const schema::Schema>(std::move(loaded->schema)));
  std::string out;
  for (std::uint64_t index = 0; index < count; ++index) {
    Result<json::Value> instance = sampler.generate({.seed = seed, .index = index});
    if (!instance) {
      std::cout << out << std::flush;
      std::cerr << "weld: " << instance.error().message << "\n";
      return kExitSampleFailed;
    }
    json::serialize_to(out, *instance);
    out.push_back('\n');
    if (out.size() > (1 << 16)) {
      std::cout << out;
      out.clear();
    }
  }
  std::cout << out << std::flush;
  return 0;
}

}  // namespace weld::cli
