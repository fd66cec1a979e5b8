#include "generator.h"

#include <gtest/gtest.h>

#include "weld/json/parse.h"
#include "weld/json/serialize.h"

namespace weld::sample {
namespace {

std::string candidate(const char* schema_text, std::uint64_t seed) {
  auto schema = json::parse(schema_text);
  EXPECT_TRUE(schema) << schema_text;
  if (!schema) return {};
  Prng rng(seed);
  auto v = generate_candidate(*schema, rng, {});
  if (!v) return "error: " + v.error().message;
  return json::serialize(*v);
}

TEST(Generator, ConstAndEnum) {
  EXPECT_EQ(R"({"k":"fixed"})", candidate(R"({"type":"object","required":["k"],"properties":{"k":{"const":"fixed"}},
                                               "additionalProperties":false,"maxProperties":1})", 3));
  std::string e = candidate(R"({"enum":["low","medium","high"]})", 5);
  EXPECT_TRUE(e == R"("low")" || e == R"("medium")" || e == R"("high")") << e;
}

TEST(Generator, SameSeedSameInstanceDifferentSeedsDiffer) {
  const char* schema = R"({"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"},
                           "c":{"type":"array","items":{"type":"number"}}},"required":["a","b","c"]})";
  EXPECT_EQ(candidate(schema, 11), candidate(schema, 11));
  std::set<std::string> seen;
  for (std::uint64_t seed = 0; seed < 20; ++seed) seen.insert(candidate(schema, seed));
  EXPECT_GT(seen.size(), 10u);
}

TEST(Generator, ImpossibleSchemasAreErrors) {
  EXPECT_EQ("error: the schema admits no value here (false, or no usable anyOf/oneOf branch)", candidate("false", 1));
  EXPECT_EQ("error: no integer lies between the minimum and the maximum",
            candidate(R"({"type":"integer","minimum":5,"maximum":4})", 1));
  EXPECT_EQ("error: minItems is too large to sample", candidate(R"({"type":"array","minItems":1000000000})", 1));
  EXPECT_EQ("error: minLength is larger than maxLength", candidate(R"({"type":"string","minLength":5,"maxLength":2})", 1));
  EXPECT_EQ("error: no value of the enum satisfies the schema here",
            candidate(R"({"type":"string","enum":[1,2]})", 1));
}

TEST(Generator, RecursionIsCapped) {
  // Optional recursion: stops at the soft depth. Required recursion: an error.
  std::string tree = candidate(R"({"$defs":{"n":{"type":"object","properties":{"kids":{"type":"array",
                                   "items":{"$ref":"#/$defs/n"}}}}},"$ref":"#/$defs/n"})", 9);
  EXPECT_EQ('{', tree.front()) << tree;
  EXPECT_EQ("error: the schema recurses too deeply to sample (required members all the way down?)",
            candidate(R"({"$defs":{"n":{"type":"object","required":["next"],"properties":{"next":{"$ref":"#/$defs/n"}}}},
                         "$ref":"#/$defs/n"})", 1));
}

}  // namespace
}  // namespace weld::sample
