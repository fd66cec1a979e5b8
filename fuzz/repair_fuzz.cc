// Fuzzes tool-argument repair (docs/design.md, "Repairs"): random bytes as the argument text
// against a few fixed schemas, with every option set. Must never crash or
// hang; an answer called valid must validate and round-trip through the
// strict parser; a text that was already valid strict JSON must come back
// unchanged with no repairs.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "weld/json/parse.h"
#include "weld/json/serialize.h"
#include "weld/repair/repair.h"

namespace {

const char* const kSchemas[] = {
    R"({"type":"object","properties":{"summary":{"type":"string"},"risk_level":{"enum":["low","medium","high"]},
       "urgent":{"type":"boolean"},"score":{"type":"integer","minimum":0,"maximum":10},
       "tags":{"type":"array","items":{"type":"string"}},"meta":{"type":"object","additionalProperties":{"type":"number"}}},
       "required":["summary"]})",
    R"({"$defs":{"n":{"type":"object","properties":{"v":{"type":"number","exclusiveMaximum":1},
       "next":{"$ref":"#/$defs/n"},"alt":{"anyOf":[{"type":"boolean"},{"type":"null"}]}}}},"$ref":"#/$defs/n"})",
    R"({"prefixItems":[{"type":"integer"},{"type":"boolean"}],"items":{"type":"array"}})",
    "{}",
};

const std::vector<weld::schema::Schema>& schemas() {
  static const std::vector<weld::schema::Schema> compiled = [] {
    std::vector<weld::schema::Schema> out;
    weld::schema::CompileOptions options;
    options.strict = false;
    for (const char* text : kSchemas) out.push_back(weld::schema::Schema::compile(*weld::json::parse(text), options));
    return out;
  }();
  return compiled;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto strict = weld::json::parse(text);
  for (const auto& schema : schemas()) {
    for (const weld::repair::Options& options :
         {weld::repair::Options{}, weld::repair::Options{.clamp = true},
          weld::repair::Options{.parse = false, .coerce = false, .clamp = false}}) {
      weld::repair::Checked c = weld::repair::check_arguments(text, schema, options);
      if (c.valid) {
        if (!c.parsed || !schema.is_valid(c.value)) std::abort();
        auto again = weld::json::parse(weld::json::serialize(c.value));
        if (!again || !(*again == c.value)) std::abort();
      }
      if (!c.parsed && (c.validation.violations.size() != 1 || c.validation.violations[0].keyword != "parse")) {
        std::abort();
      }
      if (strict && schema.is_valid(*strict)) {
        if (!c.valid || !c.repairs.empty() || weld::json::serialize(c.value) != weld::json::serialize(*strict)) {
          std::abort();
        }
      }
      if (!options.parse && !options.coerce && !c.repairs.empty()) std::abort();
    }
  }
  return 0;
}
