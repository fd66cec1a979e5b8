// Schema::write_integers: integral reals at integer-typed positions.
#include <gtest/gtest.h>

#include "weld/json/parse.h"
#include "weld/json/serialize.h"
#include "weld/schema/schema.h"

namespace weld::schema {
namespace {

std::string written(std::string_view schema, std::string_view instance) {
  Schema s = Schema::compile(*json::parse(schema));
  json::Value v = *json::parse(instance);
  EXPECT_TRUE(s.is_valid(v)) << instance;
  s.write_integers(v);
  EXPECT_TRUE(s.is_valid(v)) << json::serialize(v);
  return json::serialize(v);
}

TEST(WriteIntegers, IntegerTypedPositionsOnly) {
  EXPECT_EQ(R"({"age":36,"weight":72.0,"free":3.0})",
            written(R"({"type":"object","properties":{"age":{"type":"integer"},"weight":{"type":"number"}}})",
                    R"({"age":36.0000000000000001,"weight":72.0,"free":3.0})"));
  EXPECT_EQ("36", written(R"({"type":"integer"})", "36.0"));
  EXPECT_EQ("-0.0", written(R"({"type":"number"})", "-0.0"));
  EXPECT_EQ("0", written(R"({"type":"integer"})", "-0.0"));
  // Beyond int64: the exact digits of the double.
  EXPECT_EQ("100000000000000000000", written(R"({"type":"integer"})", "1e20"));
  EXPECT_EQ("99999999999999991611392", written(R"({"type":"integer"})", "1e23"));
  // A union with integer is an integer position too only when number is not in it.
  EXPECT_EQ("[5,5.0]", written(R"({"type":"array","prefixItems":[{"type":["integer","null"]},{"type":["integer","number"]}]})",
                               "[5.0,5.0]"));
}

TEST(WriteIntegers, ThroughReferencesItemsAndApplicators) {
  const char* schema = R"({"$defs":{"n":{"type":"integer"}},"type":"object",
      "properties":{"list":{"type":"array","items":{"$ref":"#/$defs/n"}},
                    "either":{"anyOf":[{"type":"string"},{"type":"integer","minimum":10}, {"type":"number"}]},
                    "one":{"oneOf":[{"type":"integer","maximum":5},{"type":"number","minimum":6}]},
                    "cond":{"if":{"minimum":100},"then":{"type":"integer"},"else":{"type":"number"}}},
      "patternProperties":{"^n_":{"type":"integer"}},
      "additionalProperties":{"allOf":[{"$ref":"#/$defs/n"}]}})";
  EXPECT_EQ(R"({"list":[1,2],"either":20,"one":3,"cond":200,"n_x":4,"other":7})",
            written(schema, R"({"list":[1.0,2.0],"either":20.0,"one":3.0,"cond":200.0,"n_x":4.0,"other":7.0})"));
  // The anyOf branch the value passes decides: 5.0 fails {"minimum":10}, so
  // only {"type":"number"} applies; the oneOf branch taken is number.
  EXPECT_EQ(R"({"either":5.0,"one":7.0,"cond":50.0})",
            written(schema, R"({"either":5.0,"one":7.0,"cond":50.0})"));
}

TEST(WriteIntegers, FanOutOfReferencesVisitsEachPairOnce) {
  // Each level refers to the next twice: 2^40 paths, 40 subschemas.
  std::string defs;
  for (int level = 0; level < 40; ++level) {
    if (!defs.empty()) defs += ",";
    defs += "\"d" + std::to_string(level) + "\":{\"allOf\":[{\"$ref\":\"#/$defs/d" + std::to_string(level + 1) +
            "\"},{\"$ref\":\"#/$defs/d" + std::to_string(level + 1) + "\"}]}";
  }
  defs += ",\"d40\":{\"type\":\"integer\"}";
  std::string schema = "{\"$defs\":{" + defs + "},\"type\":\"array\",\"items\":{\"$ref\":\"#/$defs/d0\"}}";
  EXPECT_EQ("[1,2,3]", written(schema, "[1.0,2.0,3.0]"));
}

}  // namespace
}  // namespace weld::schema
