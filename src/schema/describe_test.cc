// describe_for_model: Ajv's wording, then what was allowed and the value
// found, cut short (docs/run.md, "What the model sees, and how the run ends").
#include <gtest/gtest.h>

#include <algorithm>

#include "weld/json/parse.h"
#include "weld/schema/schema.h"

namespace weld::schema {
namespace {

json::Value j(std::string_view text) {
  auto v = json::parse(text);
  EXPECT_TRUE(v.ok()) << text;
  return v.ok() ? *v : json::Value();
}

std::string told(std::string_view schema, std::string_view instance) {
  Schema s = Schema::compile(j(schema));
  json::Value value = j(instance);
  return describe_for_model(s.validate(value, Collect::All).violations, value);
}

TEST(DescribeForModel, EnumListsTheAllowedValuesAndTheValueFound) {
  EXPECT_EQ(R"(params/risk_level must be equal to one of the allowed values: "low", "medium", "high" (got "urgent"))",
            told(R"({"properties":{"risk_level":{"enum":["low","medium","high"]}}})", R"({"risk_level":"urgent"})"));
}

TEST(DescribeForModel, ConstTypeAndBounds) {
  EXPECT_EQ(R"(params/v must be equal to constant: 2 (got 3))", told(R"({"properties":{"v":{"const":2}}})", R"({"v":3})"));
  EXPECT_EQ(R"(params/n must be integer (got "1"))", told(R"({"properties":{"n":{"type":"integer"}}})", R"({"n":"1"})"));
  EXPECT_EQ(R"(params/n must be <= 5 (got 9))", told(R"({"properties":{"n":{"maximum":5}}})", R"({"n":9})"));
}

TEST(DescribeForModel, MissingAndExtraPropertiesAreNamedWithoutTheObject) {
  EXPECT_EQ("params must have required property 'a'", told(R"({"required":["a"]})", "{}"));
  EXPECT_EQ(R"(params must NOT have additional properties: "x")",
            told(R"({"properties":{},"additionalProperties":false})", R"({"x":1})"));
}

TEST(DescribeForModel, LongValuesListsAndViolationCountsAreCut) {
  std::string values;
  for (int i = 0; i < 30; ++i) values += std::string(i ? "," : "") + "\"code_" + std::to_string(i) + "\"";
  std::string long_text(100, 'x');
  EXPECT_EQ(R"(params/c must be equal to one of the allowed values: "code_0", "code_1", "code_2", "code_3", )"
            R"("code_4", "code_5", "code_6", "code_7", "code_8", "code_9", … (30 in all) (got ")" +
                std::string(39, 'x') + "…)",
            told(R"({"properties":{"c":{"enum":[)" + values + "]}}}", R"({"c":")" + long_text + R"("})"));
  std::string many_schema = R"({"type":"array","items":{"type":"string"}})";
  std::string many = "[1,2,3,4,5,6,7,8,9,10,11,12]";
  std::string text = told(many_schema, many);
  EXPECT_EQ(11, std::count(text.begin(), text.end(), '\n') + 1) << text;
  EXPECT_NE(text.find("\n… and 2 more violation(s)"), std::string::npos) << text;
}

TEST(DescribeForModel, ALongLineIsCutAndTheTextStaysUnderItsCap) {
  // Ten properties, each with a pattern of 600 characters, all wrong: each
  // line is cut to 400 bytes, and the lines that do not fit under
  // kDescribedTextBytes are counted instead of shown.
  std::string pattern = "^(" + std::string(600, 'a') + ")$";
  std::string schema = R"({"properties":{)";
  std::string instance = "{";
  for (int i = 0; i < 10; ++i) {
    schema += std::string(i ? "," : "") + "\"p" + std::to_string(i) + R"(":{"type":"string","pattern":")" + pattern + "\"}";
    instance += std::string(i ? "," : "") + "\"p" + std::to_string(i) + R"(":"b")";
  }
  std::string text = told(schema + "}}", instance + "}");
  EXPECT_LE(text.size(), kDescribedTextBytes) << text;
  EXPECT_EQ(text.rfind("params/p0 must match pattern \"^(aaa", 0), 0u) << text;
  const std::size_t first_line = text.find('\n');
  EXPECT_EQ(first_line, 400u) << text;
  EXPECT_EQ(text.substr(first_line - 3, 3), "…");
  EXPECT_NE(text.find("\n… and 6 more violation(s)"), std::string::npos) << text;
}

}  // namespace
}  // namespace weld::schema
