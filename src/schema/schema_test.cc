#include "weld/schema/schema.h"

#include <gtest/gtest.h>

#include "weld/json/parse.h"
#include "weld/json/serialize.h"

namespace weld::schema {
namespace {

json::Value j(std::string_view text) {
  auto v = json::parse(text);
  EXPECT_TRUE(v.ok()) << text;
  return v.ok() ? *v : json::Value();
}

std::string errors(const Schema& s, std::string_view instance, Collect collect = Collect::All) {
  return describe(s.validate(j(instance), collect).violations);
}

TEST(Schema, RequiredEnumAdditional) {
  Schema s = Schema::compile(j(R"({"type":"object","properties":{"risk_level":{"enum":["low","high"]}},
                                  "required":["risk_level"],"additionalProperties":false})"));
  EXPECT_TRUE(s.is_valid(j(R"({"risk_level":"low"})")));
  EXPECT_EQ("params must have required property 'risk_level'", errors(s, "{}"));
  EXPECT_EQ("params/risk_level must be equal to one of the allowed values", errors(s, R"({"risk_level":"x"})"));
  EXPECT_EQ("params must NOT have additional properties", errors(s, R"({"risk_level":"low","x":1})"));
  ValidationResult r = s.validate(j(R"({"risk_level":"x"})"));
  ASSERT_EQ(1u, r.violations.size());
  EXPECT_EQ("#/properties/risk_level/enum", r.violations[0].schema_path);
  EXPECT_EQ("enum", r.violations[0].keyword);
  EXPECT_EQ(R"({"instancePath":"/risk_level","schemaPath":"#/properties/risk_level/enum","keyword":"enum","params":{"allowedValues":["low","high"]},"message":"must be equal to one of the allowed values"})",
            json::serialize(to_json(r.violations[0])));
}

}  // namespace
}  // namespace weld::schema
