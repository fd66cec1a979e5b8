// Fuzz the evaluator under its work bound: no schema and instance may take
// more than the budget (docs/library.md, "Bounded work"). The first byte
// chooses the input's shape:
//   even: the rest is JSON, [schema, instance, instance…], compiled
//         leniently and validated through every entry point;
//   odd:  the rest describes a schema whose references fan out — one byte
//         per level picks the applicator joining two references to the next
//         level (allOf, anyOf, oneOf, if/then/else, dependentSchemas, or two
//         properties; at most 32 levels), the last byte the leaf and whether
//         the root asks for unevaluatedProperties or unevaluatedItems (no
//         memo possible) — validated on fixed instances. Unbounded, 32
//         levels cost 2^32 evaluations.
// The verdicts of the entry points must agree (the value read from a
// json::Tape, as the Python module reads its objects, too), and no validation may
// run longer than kMaxSeconds: far above what the budget allows, far below
// what an unbounded walk takes. The budget is set low (kBudget) so that the
// runs that exhaust it stay short.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "weld/json/parse.h"
#include "weld/json/tape.h"
#include "weld/schema/schema.h"

namespace {

constexpr double kMaxSeconds = 30;
constexpr std::uint64_t kBudget = 1u << 14;

std::string ref(int level) { return "{\"$ref\":\"#/$defs/d" + std::to_string(level) + "\"}"; }

std::string fan_out_schema(const std::uint8_t* data, std::size_t size) {
  const std::size_t levels = size > 1 ? std::min<std::size_t>(size - 1, 32) : 0;
  std::string defs;
  for (std::size_t level = 0; level < levels; ++level) {
    const std::string next = ref(static_cast<int>(level + 1));
    std::string body;
    switch (data[level] % 6) {
      case 0: body = "{\"allOf\":[" + next + "," + next + "]}"; break;
      case 1: body = "{\"anyOf\":[" + next + "," + next + "]}"; break;
      case 2: body = "{\"oneOf\":[" + next + "," + next + "]}"; break;
      case 3: body = "{\"if\":" + next + ",\"then\":" + next + ",\"else\":" + next + "}"; break;
      case 4: body = "{\"dependentSchemas\":{\"a\":" + next + ",\"b\":" + next + "}," + "\"allOf\":[" + next + "]}"; break;
      default: body = "{\"properties\":{\"a\":" + next + "},\"additionalProperties\":" + next + ",\"items\":" + next + "}";
    }
    defs += "\"d" + std::to_string(level) + "\":" + body + ",";
  }
  const std::uint8_t last = size > 0 ? data[size - 1] : 0;
  const char* leaf = last % 3 == 0 ? "{\"type\":\"integer\",\"maximum\":5}"
                     : last % 3 == 1 ? "{\"properties\":{\"a\":{\"type\":\"integer\"}}}"
                                     : "{\"not\":{\"const\":7}}";
  defs += "\"d" + std::to_string(levels) + "\":" + leaf;
  std::string root = "{\"$defs\":{" + defs + "},\"allOf\":[" + ref(0) + "]";
  if ((last & 12) == 12) root += last & 16 ? ",\"unevaluatedItems\":false" : ",\"unevaluatedProperties\":false";
  return root + "}";
}

void check(const weld::schema::Schema& schema, const weld::json::Value& instance) {
  const auto start = std::chrono::steady_clock::now();
  bool fast = schema.is_valid(instance);
  weld::json::Tape tape;
  weld::json::write_tape(instance, tape);
  if (schema.is_valid(tape) != fast) __builtin_trap();
  weld::schema::ValidationResult all = schema.validate(instance, weld::schema::Collect::All);
  weld::schema::ValidationResult first = schema.validate(instance, weld::schema::Collect::First);
  if (fast != all.valid || fast != first.valid || all.valid != all.violations.empty()) __builtin_trap();
  if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > kMaxSeconds) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  weld::schema::CompileOptions options;
  options.strict = false;
  options.validation_budget = kBudget;
  if (data[0] & 1) {
    static const char* kInstances[] = {"7", "{\"a\":1}", "{\"a\":7,\"b\":{\"a\":1}}", "[[1],{\"a\":[7]}]"};
    auto schema_json = weld::json::parse(fan_out_schema(data + 1, size - 1));
    if (!schema_json) __builtin_trap();  // the generator writes JSON
    weld::schema::Schema schema = weld::schema::Schema::compile(*schema_json, options);
    for (const char* text : kInstances) check(schema, *weld::json::parse(text));
    return 0;
  }
  auto input = weld::json::parse(std::string_view(reinterpret_cast<const char*>(data + 1), size - 1));
  if (!input || !input->is_array() || input->as_array().empty()) return 0;
  try {
    weld::schema::Schema schema = weld::schema::Schema::compile(input->as_array()[0], options);
    for (std::size_t i = 1; i < input->as_array().size(); ++i) check(schema, input->as_array()[i]);
  } catch (const weld::schema::SchemaError&) {
  }
  return 0;
}
