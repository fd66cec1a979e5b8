// Fuzz the schema compiler and evaluator: bytes -> JSON ->
// compile strict and lenient, each dialect's default -> validate a few fixed
// instances through every entry point. Any crash, hang or sanitizer report
// is a bug; SchemaError is the expected way to refuse.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "weld/json/parse.h"
#include "weld/schema/schema.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto schema_json = weld::json::parse(text);
  if (!schema_json) return 0;
  static const char* kInstances[] = {"null", "true", "0", "-1.5", "1e308", "\"\"", "\"abc\"", "\"2020-01-01\"",
                                     "[]", "[1,1,\"a\",{}]", "{}", R"({"a":1,"b":[null,{"c":"d"}],"x-y":"z"})"};
  static weld::json::Value instances[sizeof kInstances / sizeof *kInstances];
  static bool ready = false;
  if (!ready) {
    for (std::size_t i = 0; i < sizeof kInstances / sizeof *kInstances; ++i) instances[i] = *weld::json::parse(kInstances[i]);
    ready = true;
  }
  for (bool strict : {true, false}) {
    weld::schema::CompileOptions options;
    options.strict = strict;
    if (size % 3 == 0) options.default_dialect = weld::schema::Dialect::Draft4;
    options.resolver = [](std::string_view uri) -> std::optional<weld::json::Value> {
      if (uri == "http://localhost:1234/x.json") return *weld::json::parse(R"({"type":"integer"})");
      return std::nullopt;
    };
    try {
      weld::schema::Schema schema = weld::schema::Schema::compile(*schema_json, options);
      for (const weld::json::Value& instance : instances) {
        bool fast = schema.is_valid(instance);
        weld::schema::ValidationResult all = schema.validate(instance, weld::schema::Collect::All);
        weld::schema::ValidationResult first = schema.validate(instance, weld::schema::Collect::First);
        // The three entry points must agree on the verdict.
        if (fast != all.valid || fast != first.valid || all.valid != all.violations.empty()) __builtin_trap();
        if (!all.valid) (void)weld::schema::describe(all.violations);
      }
    } catch (const weld::schema::SchemaError&) {
    }
  }
  return 0;
}
