#include "weld/repair/repair.h"

#include <gtest/gtest.h>

#include <string>

#include "weld/json/parse.h"
#include "weld/json/serialize.h"

namespace weld::repair {
namespace {

schema::Schema compile(const char* text) {
  auto doc = json::parse(text);
  EXPECT_TRUE(doc) << text;
  return schema::Schema::compile(doc ? *doc : json::Value(json::Object{}));
}

std::string kinds(const Checked& c) {
  std::string out;
  for (const auto& r : c.repairs) {
    if (!out.empty()) out += ' ';
    out += r.kind + "@" + r.path;
  }
  return out;
}

const char* kTicket = R"({"type":"object","required":["summary","risk_level","urgent","score"],
  "properties":{"summary":{"type":"string"},"risk_level":{"enum":["low","medium","high"]},
  "urgent":{"type":"boolean"},"score":{"type":"integer","minimum":0,"maximum":10},
  "tags":{"type":"array","items":{"type":"string"}}},"additionalProperties":false})";

TEST(CheckArguments, ValidStrictJsonComesBackUntouched) {
  auto schema = compile(kTicket);
  const char* text = R"({"score":3,"summary":"true","risk_level":"low","urgent":false,"tags":["1","false"]})";
  Checked c = check_arguments(text, schema, {});
  EXPECT_TRUE(c.valid);
  EXPECT_TRUE(c.parsed);
  EXPECT_TRUE(c.repairs.empty());
  EXPECT_EQ(text, json::serialize(c.value));  // key order and the strings "true"/"1" kept
}

TEST(CheckArguments, EmptyTextIsAnEmptyObjectWithoutARepair) {
  auto schema = compile("{}");
  for (const char* text : {"", "  \n"}) {
    Options no_repair{.parse = false, .coerce = false, .clamp = false};
    for (const Options& options : {Options{}, no_repair}) {
      Checked c = check_arguments(text, schema, options);
      EXPECT_TRUE(c.valid);
      EXPECT_EQ("{}", json::serialize(c.value));
      EXPECT_EQ("", kinds(c));
    }
  }
  // Against a schema with required properties, {} is reported invalid.
  Checked c = check_arguments("", compile(kTicket), {});
  EXPECT_FALSE(c.valid);
  EXPECT_TRUE(c.parsed);
  EXPECT_EQ("params must have required property 'summary'", schema::describe(c.validation.violations.front()));
}

TEST(CheckArguments, ParseRepairsThenValid) {
  auto schema = compile(kTicket);
  Checked c = check_arguments("```json\n{summary: 'ok', risk_level: 'high', urgent: True, score: 2,}\n```", schema, {});
  ASSERT_TRUE(c.valid) << schema::describe(c.validation.violations);
  EXPECT_EQ(R"({"summary":"ok","risk_level":"high","urgent":true,"score":2})", json::serialize(c.value));
  EXPECT_EQ("code_fence@ unquoted_keys@/summary single_quotes@/summary python_literals@/urgent trailing_comma@",
            kinds(c));
  json::Value entry = to_json(c.repairs.front());
  EXPECT_EQ(R"x({"kind":"code_fence","path":"","detail":"removed a Markdown code fence (```json)"})x",
            json::serialize(entry));
}

TEST(CheckArguments, CoercionsThenValid) {
  auto schema = compile(kTicket);
  Checked c = check_arguments(R"({"summary":"s","risk_level":"low","urgent":"true","score":"7","tags":"[\"a\"]"})",
                              schema, {});
  ASSERT_TRUE(c.valid) << schema::describe(c.validation.violations);
  EXPECT_EQ(R"({"summary":"s","risk_level":"low","urgent":true,"score":7,"tags":["a"]})", json::serialize(c.value));
  EXPECT_EQ("coerce_boolean@/urgent coerce_number@/score coerce_json_string@/tags", kinds(c));
}

TEST(CheckArguments, ParseRepairAndCoercionTogether) {
  auto schema = compile(kTicket);
  Checked c = check_arguments(R"(Here: {'summary':'s','risk_level':'low','urgent':'false','score':'1'} done)", schema, {});
  ASSERT_TRUE(c.valid);
  EXPECT_EQ("extracted_json@ single_quotes@ coerce_boolean@/urgent coerce_number@/score", kinds(c));
}

TEST(CheckArguments, RepairsThatDoNotValidateAreNotKept) {
  auto schema = compile(kTicket);
  // "true" is coercible but risk_level is still wrong: nothing is kept.
  Checked c = check_arguments(R"({"summary":"s","risk_level":"extreme","urgent":"true","score":1})", schema, {});
  EXPECT_FALSE(c.valid);
  EXPECT_TRUE(c.parsed);
  EXPECT_TRUE(c.repairs.empty());
  EXPECT_EQ(R"({"summary":"s","risk_level":"extreme","urgent":"true","score":1})", json::serialize(c.value));
  EXPECT_EQ("params/risk_level must be equal to one of the allowed values\nparams/urgent must be boolean",
            schema::describe(c.validation.violations));
}

TEST(CheckArguments, ClampOnlyWithTheOption) {
  auto schema = compile(kTicket);
  const char* text = R"({"summary":"s","risk_level":"low","urgent":true,"score":14})";
  Checked plain = check_arguments(text, schema, {});
  EXPECT_FALSE(plain.valid);
  EXPECT_EQ("params/score must be <= 10", schema::describe(plain.validation.violations));
  Checked clamped = check_arguments(text, schema, Options{.clamp = true});
  ASSERT_TRUE(clamped.valid);
  EXPECT_EQ(14, plain.value.find("score")->as_integer());
  EXPECT_EQ(10, clamped.value.find("score")->as_integer());
  ASSERT_EQ(1u, clamped.repairs.size());
  EXPECT_EQ("clamp", clamped.repairs[0].kind);
  EXPECT_EQ("/score", clamped.repairs[0].path);
  EXPECT_EQ("14 -> 10", clamped.repairs[0].detail);
}

TEST(CheckArguments, NoRepairMeansNoRepair) {
  auto schema = compile(kTicket);
  Options off{.parse = false, .coerce = false, .clamp = false};
  Checked fenced = check_arguments("```json\n{\"summary\":\"s\",\"risk_level\":\"low\",\"urgent\":true,\"score\":1}\n```",
                                   schema, off);
  EXPECT_FALSE(fenced.valid);
  EXPECT_FALSE(fenced.parsed);
  ASSERT_EQ(1u, fenced.validation.violations.size());
  EXPECT_EQ("parse", fenced.validation.violations[0].keyword);
  EXPECT_EQ("params must be valid JSON (unexpected character '`' at line 1 column 1)",
            schema::describe(fenced.validation.violations));
  Checked coercible = check_arguments(R"({"summary":"s","risk_level":"low","urgent":"true","score":1})", schema, off);
  EXPECT_FALSE(coercible.valid);
  EXPECT_TRUE(coercible.repairs.empty());
}

TEST(CheckArguments, UnrecoverableTextIsAParseFailure) {
  auto schema = compile(kTicket);
  Checked c = check_arguments("I cannot answer that.", schema, {});
  EXPECT_FALSE(c.valid);
  EXPECT_FALSE(c.parsed);
  EXPECT_EQ("params must be valid JSON (unexpected character 'I' at line 1 column 1)",
            schema::describe(c.validation.violations));
}

TEST(CheckArguments, StringTrueStaysAStringEvenWhenSomethingElseIsWrong) {
  auto schema = compile(R"({"type":"object","properties":{"s":{"type":"string"},"b":{"type":"boolean"}},
                            "required":["s","b"]})");
  Checked c = check_arguments(R"({"s":"true","b":"false"})", schema, {});
  ASSERT_TRUE(c.valid);
  EXPECT_EQ(R"({"s":"true","b":false})", json::serialize(c.value));
  EXPECT_EQ("coerce_boolean@/b", kinds(c));
}

TEST(CheckArguments, DoubleEncodedArguments) {
  auto schema = compile(R"({"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]})");
  Checked c = check_arguments(R"("{\"n\": \"4\"}")", schema, {});
  ASSERT_TRUE(c.valid);
  EXPECT_EQ(R"({"n":4})", json::serialize(c.value));
  EXPECT_EQ("coerce_json_string@ coerce_number@/n", kinds(c));
}

TEST(CheckArguments, PydanticStyleRefsAndNullable) {
  auto schema = compile(R"({"$defs":{"Item":{"type":"object","properties":{"qty":{"type":"integer"},
      "price":{"anyOf":[{"type":"number"},{"type":"null"}]}},"required":["qty","price"]}},
      "type":"object","properties":{"items":{"type":"array","items":{"$ref":"#/$defs/Item"}}},"required":["items"]})");
  Checked c = check_arguments(R"({"items":[{"qty":"2","price":"9.5"},{"qty":1,"price":null}]})", schema, {});
  ASSERT_TRUE(c.valid) << schema::describe(c.validation.violations);
  EXPECT_EQ(R"({"items":[{"qty":2,"price":9.5},{"qty":1,"price":null}]})", json::serialize(c.value));
}

}  // namespace
}  // namespace weld::repair
