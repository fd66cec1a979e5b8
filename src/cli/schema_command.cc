// `weld schema check SCHEMA…` and `weld schema validate SCHEMA FILE…`
// (docs/schema.md): a general JSON Schema tool. Loading follows steps 1-3
// and 5 of docs/schema.md, "Reading --json-schema VALUE": `true`, `false` and any root are schemas here;
// the must-be-an-object and root-accepts-object rules belong to
// --json-schema and the registry.

#include <unistd.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "commands.h"
#include "schema_input.h"
#include "usage.h"
#include "weld/base/read_file.h"
#include "weld/json/parse.h"
#include "weld/json/serialize.h"
#include "weld/schema/directory_resolver.h"
#include "weld/schema/load.h"
#include "weld/schema/lower.h"
#include "weld/schema/schema.h"

namespace weld::cli {
namespace {

constexpr int kExitInvalid = 1;
// Messages name the argument the way the user gave it: "schema …".
constexpr std::string_view kFlag = "schema";

struct SchemaFlags {
  std::string dialect;
  bool no_strict = false;
  std::string format = "assert";
  std::vector<std::string> resolve;
  bool json = false;
};

void add_common_flags(CLI::App& command, SchemaFlags& flags) {
  add_dialect_flag(command, flags.dialect);
  command.add_flag("--no-strict", flags.no_strict, "Skip the strict (Ajv strictSchema) checks");
  command.add_option("--format", flags.format,
                     "assert: `format` is checked (default); annotate: it never fails (each dialect's own "
                     "default, as the official test suite expects)")
      ->check(CLI::IsMember({"assert", "annotate"}));
  command.add_option("--resolve", flags.resolve, "PREFIX=DIR: documents under DIR answer for URIs under PREFIX")
      ->allow_extra_args(false)  // one value per --resolve; repeat the flag for more
      ->check([](const std::string& spec) {
        Result<schema::DirectoryMapping> mapping = schema::parse_directory_mapping(spec);
        return mapping ? std::string() : mapping.error().message;
      });
  command.add_flag("--json", flags.json, "Print JSON, one object per line");
}

// CompileOptions from flags CLI11 has already checked.
schema::CompileOptions compile_options(const SchemaFlags& flags) {
  schema::CompileOptions options;
  options.strict = !flags.no_strict;
  options.assert_formats = flags.format == "assert";
  if (!flags.dialect.empty()) options.default_dialect = schema::parse_dialect_name(flags.dialect);
  std::vector<schema::DirectoryMapping> mappings;
  for (const std::string& spec : flags.resolve) mappings.push_back(*schema::parse_directory_mapping(spec));
  options.resolver = schema::directory_resolver(std::move(mappings));
  return options;
}

// One line of text for a violation: "/age must be >= 0", or the message
// alone at the root. No `params` prefix: that name means something only in
// a tool call.
std::string violation_text(const schema::Violation& violation) {
  return violation.instance_path.empty() ? violation.message : violation.instance_path + " " + violation.message;
}

// The start of a --json line for an instance: which file, and which line
// of a JSON Lines input.
json::Object instance_origin(const Instance& instance) {
  json::Object origin{{"file", instance.file}};
  if (instance.line > 0) origin.emplace_back("line", static_cast<std::int64_t>(instance.line));
  return origin;
}

// A stderr line of `weld schema <command>` (docs/run.md, "Messages": every stderr line names weld).
void say(std::string_view command, std::string_view text) {
  write_stderr_lines("weld schema " + std::string(command) + ": ", std::string(text) + "\n");
}

void print_warnings(std::string_view command, const std::vector<schema::Warning>& warnings, const std::string& prefix) {
  for (const schema::Warning& warning : warnings) {
    say(command, "warning: " + prefix + warning.message + (warning.pointer.empty() ? "" : " at " + warning.pointer));
  }
}

json::Value warnings_json(const std::vector<schema::Warning>& warnings) {
  json::Array out;
  for (const schema::Warning& warning : warnings) {
    out.push_back(json::Object{{"pointer", warning.pointer}, {"message", warning.message}});
  }
  return out;
}

int run_check(const std::vector<std::string>& schemas, const SchemaFlags& flags) {
  schema::CompileOptions options = compile_options(flags);
  bool all_ok = true;
  bool several = schemas.size() > 1;
  for (const std::string& arg : schemas) {
    Result<schema::LoadedSchema> loaded = schema::load_schema_document(schema_argument(arg), options, kFlag);
    std::string prefix = several ? arg + ": " : "";
    if (flags.json) {
      json::Value line = json::Object{{"schema", arg}, {"valid", loaded.ok()}};
      if (loaded) {
        line.set("warnings", warnings_json(loaded->warnings));
      } else {
        line.set("error", json::Object{{"message", loaded.error().message}, {"pointer", loaded.error().where}});
      }
      std::cout << json::serialize(line) << "\n";
    } else if (loaded) {
      print_warnings("check", loaded->warnings, prefix);
      std::cout << prefix << "ok\n";
    } else {
      std::cout << prefix << loaded.error().message << "\n";
    }
    all_ok = all_ok && loaded.ok();
  }
  return all_ok ? 0 : kExitInvalid;
}

struct ValidateFlags {
  bool jsonl = false;
  std::int64_t benchmark = 0;
};

// Mean nanoseconds per `is_valid`, measured as `jsonschema validate
// --benchmark --loop N` (Blaze) measures (docs/bench-schema.md, "How each
// engine is timed"): per instance, the mean cost of an empty clock pair
// over `iterations` pairs; then `iterations` validations, each timed by its
// own clock pair, that cost subtracted and clamped at zero; the result is
// the mean over instances of each instance's mean.
double benchmark_mean_ns(const schema::Schema& compiled, const std::vector<const json::Value*>& values,
                         std::int64_t iterations) {
  using Clock = std::chrono::steady_clock;
  auto ns = [](Clock::duration d) { return std::chrono::duration<double, std::nano>(d).count(); };
  std::size_t valid = 0;
  // One warm-up pass, not timed.
  for (const json::Value* value : values) valid += compiled.is_valid(*value) ? 1 : 0;
  double sum_of_means = 0;
  for (const json::Value* value : values) {
    double empty = 0;
    for (std::int64_t iteration = 0; iteration < iterations; ++iteration) {
      auto start = Clock::now();
      empty += ns(Clock::now() - start);
    }
    empty /= static_cast<double>(iterations);
    double total = 0;
    for (std::int64_t iteration = 0; iteration < iterations; ++iteration) {
      auto start = Clock::now();
      valid += compiled.is_valid(*value) ? 1 : 0;
      total += std::max(0.0, ns(Clock::now() - start) - empty);
    }
    sum_of_means += total / static_cast<double>(iterations);
  }
  volatile std::size_t sink = valid;  // keeps the validations observable
  (void)sink;
  return values.empty() ? 0.0 : sum_of_means / static_cast<double>(values.size());
}

// Mean nanoseconds per `is_valid` with one clock pair around the whole
// loop (each instance `iterations` times in a row): printed beside the
// per-validation figure so the two measures can be compared.
double loop_mean_ns(const schema::Schema& compiled, const std::vector<const json::Value*>& values,
                    std::int64_t iterations) {
  std::size_t valid = 0;
  auto start = std::chrono::steady_clock::now();
  for (const json::Value* value : values) {
    for (std::int64_t iteration = 0; iteration < iterations; ++iteration) valid += compiled.is_valid(*value) ? 1 : 0;
  }
  auto elapsed = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
  volatile std::size_t sink = valid;  // keeps the loop observable
  (void)sink;
  double validations = static_cast<double>(values.size()) * static_cast<double>(iterations);
  return validations > 0 ? elapsed / validations : 0.0;
}

int run_validate(const std::string& schema_arg, const std::vector<std::string>& files, const SchemaFlags& flags,
                 const ValidateFlags& validate_flags) {
  schema::CompileOptions options = compile_options(flags);
  Result<json::Value> document = schema::read_json_argument(schema_argument(schema_arg), kFlag);
  if (!document) {
    say("validate", document.error().message);
    return kExitConfig;
  }
  auto compile_start = std::chrono::steady_clock::now();
  Result<schema::LoadedSchema> loaded = schema::compile_schema_document(std::move(*document), options, kFlag);
  auto compile_ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - compile_start).count();
  if (!loaded) {
    say("validate", loaded.error().message);
    return kExitConfig;
  }
  print_warnings("validate", loaded->warnings, "");
  bool all_valid = true;
  // --benchmark times every instance again after the verdicts: only then
  // are the instances kept (otherwise one is in memory at a time).
  std::vector<json::Value> kept;
  read_instances(files, validate_flags.jsonl, STDIN_FILENO, [&](Instance& instance) {
    if (!instance.value) {
      all_valid = false;
      if (flags.json) {
        json::Object line = instance_origin(instance);
        line.emplace_back("valid", false);
        line.emplace_back("errors", json::Array{});
        line.emplace_back("error", instance.value.error().message);
        std::cout << json::serialize(json::Value(std::move(line))) << "\n";
      } else {
        std::cout << instance.value.error().message << "\n";
      }
      return;
    }
    schema::ValidationResult result = loaded->schema.validate(*instance.value, schema::Collect::All);
    all_valid = all_valid && result.valid;
    if (flags.json) {
      json::Array errors;
      for (const schema::Violation& violation : result.violations) errors.push_back(schema::to_json(violation));
      json::Object line = instance_origin(instance);
      line.emplace_back("valid", result.valid);
      line.emplace_back("errors", std::move(errors));
      std::cout << json::serialize(json::Value(std::move(line))) << "\n";
    } else {
      for (const schema::Violation& violation : result.violations) {
        std::cout << instance.label << ": " << violation_text(violation) << "\n";
      }
    }
    if (validate_flags.benchmark > 0) kept.push_back(std::move(*instance.value));
  });
  std::vector<const json::Value*> values;
  for (const json::Value& value : kept) values.push_back(&value);
  if (validate_flags.benchmark > 0) {
    double mean = benchmark_mean_ns(loaded->schema, values, validate_flags.benchmark);
    double loop_mean = loop_mean_ns(loaded->schema, values, validate_flags.benchmark);
    json::Value line = json::Object{{"instances", static_cast<std::int64_t>(values.size())},
                                    {"iterations", validate_flags.benchmark},
                                    {"mean_ns", mean},
                                    {"loop_mean_ns", loop_mean},
                                    {"compile_ns", static_cast<std::int64_t>(compile_ns)}};
    std::cout << json::serialize(line) << "\n";
  }
  std::cout.flush();
  return all_valid ? 0 : kExitInvalid;
}

struct LowerFlags {
  std::string target;
  bool keep_open = false;
  std::string map_back;
};

// `weld schema lower --for TARGET SCHEMA` (docs/library.md, "Lowering"):
// the lowered schema on stdout and what changed on stderr (both on stdout
// with --json); with --map-back ANSWER, the answer in the original's shape,
// validated against the original.
int run_lower(const std::string& schema_arg, const SchemaFlags& flags, const LowerFlags& lower) {
  schema::CompileOptions options = compile_options(flags);
  Result<schema::LoadedSchema> loaded = schema::load_schema_document(schema_argument(schema_arg), options, kFlag);
  if (!loaded) {
    say("lower", loaded.error().message);
    return kExitConfig;
  }
  schema::LowerOptions lower_options;
  lower_options.keep_open = lower.keep_open;
  std::optional<schema::Lowering> lowered;
  try {
    lowered.emplace(schema::Lowering::lower(loaded->source, *schema::parse_target(lower.target), lower_options));
  } catch (const schema::SchemaError& error) {
    say("lower", std::string("schema could not be lowered: ") + error.what());
    return kExitConfig;
  }
  if (!lower.map_back.empty()) {
    const bool from_stdin = lower.map_back == "-";
    const std::string label = from_stdin ? std::string("standard input") : lower.map_back;
    Result<std::string> text = from_stdin ? read_stream(STDIN_FILENO, kMaxInstanceBytes, "standard input")
                                          : read_regular_file(lower.map_back, kMaxInstanceBytes);
    if (!text) {
      say("lower", label + ": could not read: " + text.error().message);
      return kExitInvalid;
    }
    Result<json::Value> answer = json::parse(*text);
    if (!answer) {
      say("lower", label + ": not valid JSON: " + answer.error().message + " at " + answer.error().where);
      return kExitInvalid;
    }
    json::Value back = lowered->map_back(std::move(*answer));
    schema::ValidationResult result = loaded->schema.validate(back, schema::Collect::All);
    if (flags.json) {
      json::Array errors;
      for (const schema::Violation& violation : result.violations) errors.push_back(schema::to_json(violation));
      json::Value line = json::Object{{"answer", back}, {"valid", result.valid}, {"errors", std::move(errors)}};
      std::cout << json::serialize(line) << "\n";
    } else if (result.valid) {
      std::cout << json::serialize(back) << "\n";
    } else {
      for (const schema::Violation& violation : result.violations) {
        std::cout << lower.map_back << ": " << violation_text(violation) << "\n";
      }
    }
    return result.valid ? 0 : kExitInvalid;
  }
  if (flags.json) {
    json::Array changes;
    for (const schema::Change& change : lowered->changes()) changes.push_back(schema::to_json(change));
    json::Value out = json::Object{{"target", lower.target}, {"schema", lowered->schema()}, {"changes", std::move(changes)}};
    std::cout << json::serialize(out) << "\n";
    return 0;
  }
  std::cout << json::serialize(lowered->schema()) << "\n";
  for (const schema::Change& change : lowered->changes()) {
    say("lower", (change.pointer.empty() ? "(root)" : change.pointer) + ": " + change.change + " (" + change.reason + ")");
  }
  return 0;
}

}  // namespace

int schema_main(int argc, char** argv) {
  CLI::App app{"Check JSON Schemas and validate JSON documents against them: a general JSON Schema tool "
               "(draft-04 to 2020-12 and v1; boolean schemas and any root type). Exit codes: 0 all valid, 1 something "
               "invalid or a usage error, 52 the schema of `validate` or `lower` could not be loaded.",
               "weld schema"};
  app.require_subcommand(1, 1);

  SchemaFlags check_flags;
  std::vector<std::string> check_schemas;
  CLI::App* check = app.add_subcommand("check", "Load and compile each SCHEMA; print ok or the error");
  check->add_option("SCHEMA", check_schemas, "A schema: path, @path or inline JSON")->required();
  add_common_flags(*check, check_flags);

  SchemaFlags validate_flags;
  ValidateFlags validate_only;
  std::string validate_schema;
  std::vector<std::string> validate_files;
  CLI::App* validate = app.add_subcommand("validate", "Validate JSON files (.jsonl: one per line; -: stdin)");
  validate->add_option("SCHEMA", validate_schema, "A schema: path, @path or inline JSON")->required();
  validate->add_option("FILE", validate_files, "Instance files; - for stdin")->required();
  add_common_flags(*validate, validate_flags);
  validate->add_flag("--jsonl", validate_only.jsonl, "Read stdin (and every FILE) as JSON Lines");
  validate->add_option("--benchmark", validate_only.benchmark,
                       "Validate every instance N times and print the mean ns per validation as the last line")
      ->check(CLI::PositiveNumber);

  SchemaFlags lower_flags;
  LowerFlags lower_only;
  std::string lower_schema;
  CLI::App* lower = app.add_subcommand(
      "lower", "Print the strongest schema TARGET's own structured output accepts; what changed goes to stderr");
  lower->add_option("SCHEMA", lower_schema, "A schema: path, @path or inline JSON")->required();
  lower->add_option("--for", lower_only.target, "openai-strict, anthropic, gemini, vllm or tool")
      ->required()
      ->check(CLI::IsMember({"openai-strict", "anthropic", "gemini", "vllm", "tool"}));
  lower->add_flag("--keep-open", lower_only.keep_open,
                  "Give properties beyond `properties` a member of their own instead of closing objects");
  lower->add_option("--map-back", lower_only.map_back,
                    "FILE (or -): an answer to the lowered schema, printed in the original's shape and validated "
                    "against it");
  add_common_flags(*lower, lower_flags);

  if (std::optional<int> code = parse_command_line(app, argc, argv)) return *code;
  if (check->parsed()) return run_check(check_schemas, check_flags);
  if (lower->parsed()) return run_lower(lower_schema, lower_flags, lower_only);
  return run_validate(validate_schema, validate_files, validate_flags, validate_only);
}

}  // namespace weld::cli
