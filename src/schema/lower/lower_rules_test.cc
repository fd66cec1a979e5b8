// Each target's published rules, written down as checks, applied to the
// lowering of real schemas (the jsonschema-benchmark sets and the shapes
// pydantic and zod write). A rule that a lowered schema breaks is a request
// the provider refuses.
#include "lower_rules.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "benchmark_corpus.h"
#include "weld/json/parse.h"
#include "weld/json/serialize.h"

namespace weld::schema {
namespace {

namespace fs = std::filesystem;

constexpr Target kTargets[] = {Target::OpenAIStrict, Target::Anthropic, Target::Gemini, Target::Vllm, Target::Tool};

TEST(LowerRules, EveryCorpusSchemaFollowsEveryTargetsRules) {
  std::string absent;
  if (!weld::test_support::benchmark_corpus_present(&absent)) GTEST_SKIP() << absent;
  std::vector<fs::path> sets = weld::test_support::benchmark_corpus_sets();
  ASSERT_GE(sets.size(), 30u) << "the jsonschema-benchmark sets";
  for (const fs::path& set : sets) {
    auto schema = json::parse(weld::test_support::read_corpus_file(set / "schema-noformat.json"));
    ASSERT_TRUE(schema.ok()) << set;
    for (Target target : kTargets) {
      for (bool keep_open : {false, true}) {
        LowerOptions options;
        options.keep_open = keep_open;
        Lowering lowered = Lowering::lower(*schema, target, options);
        std::vector<std::string> broken = broken_rules(lowered.schema(), target);
        EXPECT_TRUE(broken.empty()) << set.filename().string() << " for " << target_name(target)
                                    << (keep_open ? " (keep_open)" : "") << ": " << broken.front();
      }
    }
  }
}

TEST(LowerRules, ShapesOfPydanticAndZod) {
  // pydantic 2 (Optional, discriminated union, Dict, Tuple, Decimal as
  // number-or-pattern-string) and zod (record, nullable, literal).
  const char* schemas[] = {
      R"({"$defs":{"Cat":{"properties":{"kind":{"const":"cat","type":"string"},"lives":{"type":"integer","maximum":9}},
          "required":["kind"],"type":"object"},"Dog":{"properties":{"kind":{"const":"dog","type":"string"}},"required":["kind"],
          "type":"object"}},"properties":{"pet":{"discriminator":{"mapping":{"cat":"#/$defs/Cat","dog":"#/$defs/Dog"},
          "propertyName":"kind"},"oneOf":[{"$ref":"#/$defs/Cat"},{"$ref":"#/$defs/Dog"}]},"color":{"anyOf":[{"enum":["red","blue"],
          "type":"string"},{"type":"null"}],"default":null},"meta":{"additionalProperties":{"type":"integer"},"type":"object"},
          "pair":{"maxItems":2,"minItems":2,"prefixItems":[{"type":"integer"},{"type":"string"}],"type":"array"},
          "dec":{"anyOf":[{"type":"number"},{"pattern":"^(?!^[-+.]*$)[+-]?0*\\d*\\.?\\d*$","type":"string"}]},
          "name":{"type":"string","minLength":1,"maxLength":20,"pattern":"^[a-z]+$"}},"required":["pet","name"],
          "title":"Pet","type":"object"})",
      R"({"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"},"minItems":2,"maxItems":5},
          "scores":{"type":"object","additionalProperties":{"type":"number"}},"email":{"anyOf":[{"type":"string",
          "format":"email"},{"type":"null"}]},"kind":{"type":"string","const":"x"},"any":{}},"required":["tags","scores",
          "email","kind"],"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"})",
      R"({"type":"array","items":{"type":"integer"}})",
      R"(true)",
  };
  for (const char* text : schemas) {
    auto schema = json::parse(text);
    ASSERT_TRUE(schema.ok()) << text;
    for (Target target : kTargets) {
      Lowering lowered = Lowering::lower(*schema, target);
      std::vector<std::string> broken = broken_rules(lowered.schema(), target);
      EXPECT_TRUE(broken.empty()) << target_name(target) << ": " << broken.front() << "\n"
                                  << json::serialize(lowered.schema());
    }
  }
}

TEST(LowerRules, TheCheckersCatchWhatTheProvidersRefuse) {
  // Each checker, on a schema that breaks its rules (so that a checker that
  // accepts everything cannot pass the tests above).
  auto broken = [](const char* text, Target target) { return broken_rules(*json::parse(text), target); };
  EXPECT_FALSE(broken(R"({"type":"object","properties":{"a":{"type":"string"}}})", Target::OpenAIStrict).empty());
  EXPECT_FALSE(broken(R"({"type":"object","properties":{"a":{"type":"string","minLength":1}},"required":["a"],
                         "additionalProperties":false})", Target::OpenAIStrict).empty());
  EXPECT_FALSE(broken(R"({"anyOf":[{"type":"object","properties":{},"required":[],"additionalProperties":false}]})",
                      Target::OpenAIStrict).empty());
  EXPECT_FALSE(broken(R"({"type":"object","properties":{"a":{"type":"integer","minimum":1}},"additionalProperties":false})",
                      Target::Anthropic).empty());
  EXPECT_FALSE(broken(R"({"type":"object","properties":{"a":{"type":"array","items":{"type":"string"},"minItems":2}},
                         "additionalProperties":false})", Target::Anthropic).empty());
  EXPECT_FALSE(broken(R"({"type":"object","properties":{"a":{"type":"string"}}})", Target::Gemini).empty());
  EXPECT_FALSE(broken(R"({"type":"OBJECT","properties":{"a":{"$ref":"#/$defs/x"}}})", Target::Gemini).empty());
  EXPECT_FALSE(broken(R"({"type":"object","not":{"type":"null"}})", Target::Vllm).empty());
  EXPECT_FALSE(broken(R"({"anyOf":[{"type":"object"}]})", Target::Tool).empty());
  EXPECT_TRUE(broken(R"({"type":"object","properties":{"a":{"type":"string"}},"required":["a"],
                        "additionalProperties":false})", Target::OpenAIStrict).empty());
}

}  // namespace
}  // namespace weld::schema
