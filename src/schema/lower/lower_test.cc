// Lowering: what each target gets for the shapes LLM schemas use, what the
// changes say, and answers mapped back to the original's shape.
#include "weld/schema/lower.h"

#include <gtest/gtest.h>

#include "weld/json/parse.h"
#include "weld/json/serialize.h"
#include "weld/schema/schema.h"

namespace weld::schema {
namespace {

json::Value j(std::string_view text) {
  auto v = json::parse(text);
  EXPECT_TRUE(v.ok()) << text;
  return v.ok() ? *v : json::Value();
}

std::string lowered(std::string_view schema, Target target, LowerOptions options = {}) {
  return json::serialize(Lowering::lower(j(schema), target, options).schema());
}

std::string back(const Lowering& l, std::string_view answer) { return json::serialize(l.map_back(j(answer))); }
std::string forward(const Lowering& l, std::string_view instance) { return json::serialize(l.map_forward(j(instance))); }

constexpr const char* kPerson = R"({"type":"object","properties":{
    "name":{"type":"string","minLength":1,"description":"full name"},
    "age":{"type":"integer","minimum":0},
    "email":{"type":"string","format":"email"},
    "tags":{"type":"array","items":{"type":"string"},"uniqueItems":true}},
  "required":["name"]})";

TEST(Lower, OpenAIStrictRequiresEveryPropertyAndClosesObjects) {
  Lowering l = Lowering::lower(j(kPerson), Target::OpenAIStrict);
  EXPECT_EQ(R"j({"type":"object","properties":{"name":{"type":"string","description":"full name (minLength: 1)"},)j"
            R"j("age":{"type":["integer","null"],"minimum":0},"email":{"type":["string","null"],"format":"email"},)j"
            R"j("tags":{"type":["array","null"],"items":{"type":"string"},"description":"(uniqueItems: true)"}},)j"
            R"j("required":["name","age","email","tags"],"additionalProperties":false})j",
            json::serialize(l.schema()));
  // The changes name the place, what and why.
  ASSERT_FALSE(l.changes().empty());
  EXPECT_EQ("/properties/name", l.changes()[0].pointer);
  EXPECT_EQ("minLength moved into the description", l.changes()[0].change);
  EXPECT_EQ("openai-strict has no minLength", l.changes()[0].reason);
  // Back: nulls only the lowering allowed are dropped.
  EXPECT_EQ(R"({"name":"Ann","tags":["a"]})", back(l, R"({"name":"Ann","age":null,"email":null,"tags":["a"]})"));
  EXPECT_EQ(R"({"name":"Ann","age":null,"email":null,"tags":null})",
            forward(l, R"({"name":"Ann"})"));
  EXPECT_TRUE(l.maps());
}

TEST(Lower, AnOriginalNullIsKept) {
  Lowering l = Lowering::lower(j(R"({"type":"object","properties":{"note":{"type":["string","null"]}}})"),
                               Target::OpenAIStrict);
  EXPECT_EQ(R"({"note":null})", back(l, R"({"note":null})"));
}

TEST(Lower, MapsBecomeEntries) {
  const char* schema = R"({"type":"object","properties":{"scores":{"type":"object","additionalProperties":{"type":"integer"},
      "maxProperties":3}},"required":["scores"],"additionalProperties":false})";
  Lowering l = Lowering::lower(j(schema), Target::OpenAIStrict);
  EXPECT_EQ(R"({"type":"object","properties":{"scores":{"type":"array","items":{"type":"object","properties":)"
            R"({"key":{"type":"string"},"value":{"type":"integer"}},"required":["key","value"],)"
            R"("additionalProperties":false},"maxItems":3}},"required":["scores"],"additionalProperties":false})",
            json::serialize(l.schema()));
  EXPECT_EQ(R"({"scores":{"a":1,"b":2}})", back(l, R"({"scores":[{"key":"a","value":1},{"key":"b","value":2}]})"));
  EXPECT_EQ(R"({"scores":[{"key":"a","value":1}]})", forward(l, R"({"scores":{"a":1}})"));
  // Already in the original's shape: unchanged.
  EXPECT_EQ(R"({"scores":{"a":1}})", back(l, R"({"scores":{"a":1}})"));
}

TEST(Lower, AnyValueIsAskedForAsJsonText) {
  Lowering l = Lowering::lower(j(R"({"type":"object","properties":{"data":{}},"required":["data"]})"), Target::Anthropic);
  EXPECT_EQ(R"({"type":"object","properties":{"data":{"type":"string","description":"JSON text of the value"}},)"
            R"("required":["data"],"additionalProperties":false})",
            json::serialize(l.schema()));
  EXPECT_EQ(R"({"data":{"x":[1,2]}})", back(l, R"({"data":"{\"x\":[1,2]}"})"));
  EXPECT_EQ(R"({"data":"[1]"})", forward(l, R"({"data":[1]})"));
}

TEST(Lower, RootIsWrappedWhereAnObjectIsNeeded) {
  Lowering l = Lowering::lower(j(R"({"anyOf":[{"type":"string"},{"type":"integer"}]})"), Target::OpenAIStrict);
  EXPECT_EQ(R"({"type":"object","properties":{"value":{"anyOf":[{"type":"string"},{"type":"integer"}]}},)"
            R"("required":["value"],"additionalProperties":false})",
            json::serialize(l.schema()));
  EXPECT_EQ("5", back(l, R"({"value":5})"));
  EXPECT_EQ(R"({"value":"x"})", forward(l, R"("x")"));
  // vllm and gemini take any root.
  EXPECT_EQ(R"({"anyOf":[{"type":"string"},{"type":"integer"}]})",
            lowered(R"({"anyOf":[{"type":"string"},{"type":"integer"}]})", Target::Vllm));
}

TEST(Lower, UnionsMapBackThroughTheBranchThatFits) {
  const char* schema = R"({"type":"object","properties":{"pet":{"oneOf":[
      {"type":"object","properties":{"kind":{"const":"cat"},"lives":{"type":"integer"}},"required":["kind"]},
      {"type":"object","properties":{"kind":{"const":"dog"},"tags":{"type":"object","additionalProperties":{"type":"string"}}},
       "required":["kind","tags"]}]}},"required":["pet"]})";
  Lowering l = Lowering::lower(j(schema), Target::OpenAIStrict);
  EXPECT_EQ(R"({"pet":{"kind":"cat"}})", back(l, R"({"pet":{"kind":"cat","lives":null}})"));
  EXPECT_EQ(R"({"pet":{"kind":"dog","tags":{"a":"b"}}})", back(l, R"({"pet":{"kind":"dog","tags":[{"key":"a","value":"b"}]}})"));
  EXPECT_EQ(R"({"pet":{"kind":"dog","tags":[{"key":"a","value":"b"}]}})", forward(l, R"({"pet":{"kind":"dog","tags":{"a":"b"}}})"));
}

TEST(Lower, TuplesBecomeObjects) {
  Lowering l = Lowering::lower(j(R"({"type":"object","properties":{"pair":{"type":"array","prefixItems":[{"type":"integer"},
      {"type":"string"}],"minItems":2,"maxItems":2}},"required":["pair"]})"), Target::OpenAIStrict);
  EXPECT_EQ(R"({"type":"object","properties":{"pair":{"type":"object","properties":{"0":{"type":"integer"},)"
            R"("1":{"type":"string"}},"required":["0","1"],"additionalProperties":false}},"required":["pair"],)"
            R"("additionalProperties":false})",
            json::serialize(l.schema()));
  EXPECT_EQ(R"({"pair":[1,"a"]})", back(l, R"({"pair":{"0":1,"1":"a"}})"));
  EXPECT_EQ(R"({"pair":{"0":1,"1":"a"}})", forward(l, R"({"pair":[1,"a"]})"));
}

TEST(Lower, RecursionUnrolledWhereTheTargetHasNoReferences) {
  const char* tree = R"({"$defs":{"node":{"type":"object","properties":{"name":{"type":"string"},
      "children":{"type":"array","items":{"$ref":"#/$defs/node"}}},"required":["name","children"],"additionalProperties":false}},
      "$ref":"#/$defs/node"})";
  // openai-strict keeps the reference.
  Lowering openai = Lowering::lower(j(tree), Target::OpenAIStrict);
  EXPECT_NE(std::string::npos, json::serialize(openai.schema()).find(R"("items":{"$ref":"#/$defs/node"})"));
  EXPECT_EQ("object", openai.schema().find("type")->as_string());
  // anthropic unrolls it three times, then asks for JSON text.
  Lowering anthropic = Lowering::lower(j(tree), Target::Anthropic);
  std::string text = json::serialize(anthropic.schema());
  EXPECT_EQ(std::string::npos, text.find("$ref"));
  const char* deep = R"({"name":"a","children":[{"name":"b","children":[{"name":"c","children":[{"name":"d","children":[]}]}]}]})";
  json::Value down = anthropic.map_forward(j(deep));
  EXPECT_EQ(R"({"name":"a","children":[{"name":"b","children":[{"name":"c","children":["{\"name\":\"d\",\"children\":[]}"]}]}]})",
            json::serialize(down));
  EXPECT_EQ(deep, json::serialize(anthropic.map_back(std::move(down))));
}

TEST(Lower, GeminiSpeaksOpenApi) {
  EXPECT_EQ(R"({"type":"OBJECT","properties":{"name":{"type":"STRING","nullable":true},"level":{"type":"STRING",)"
            R"("format":"enum","enum":["low","high"]}},"required":["level"],"propertyOrdering":["name","level"]})",
            lowered(R"({"type":"object","properties":{"name":{"type":["string","null"]},"level":{"enum":["low","high"]}},
                        "required":["level"],"additionalProperties":false})",
                    Target::Gemini));
  EXPECT_EQ(R"({"type":"INTEGER","minimum":1,"maximum":9})", lowered(R"({"type":"integer","exclusiveMinimum":0,"exclusiveMaximum":10})", Target::Gemini));
}

TEST(Lower, ToolKeepsTheSchemaButTheRoot) {
  EXPECT_EQ(json::serialize(j(kPerson)), lowered(kPerson, Target::Tool));
  EXPECT_EQ(R"({"type":"object","properties":{"a":{"type":"integer"}}})", lowered(R"({"properties":{"a":{"type":"integer"}}})", Target::Tool));
  Lowering l = Lowering::lower(j(R"({"oneOf":[{"type":"object","properties":{"a":{}}},{"type":"object","properties":{"b":{}}}]})"), Target::Tool);
  EXPECT_EQ(R"({"type":"object","properties":{"value":{"oneOf":[{"type":"object","properties":{"a":{}}},)"
            R"({"type":"object","properties":{"b":{}}}]}},"required":["value"],"additionalProperties":false})",
            json::serialize(l.schema()));
  EXPECT_EQ(R"({"a":1})", back(l, R"({"value":{"a":1}})"));
}

TEST(Lower, KeepOpenGivesOtherPropertiesAPlace) {
  LowerOptions open;
  open.keep_open = true;
  Lowering l = Lowering::lower(j(R"({"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]})"),
                               Target::OpenAIStrict, open);
  EXPECT_EQ(R"({"a":1,"b":"x"})", back(l, R"({"a":1,"additional_properties":[{"key":"b","value":"\"x\""}]})"));
  EXPECT_EQ(R"({"a":1,"additional_properties":[{"key":"b","value":"\"x\""}]})", forward(l, R"({"a":1,"b":"x"})"));
  // Closed by default, as the providers' SDKs do.
  EXPECT_EQ(R"({"type":"object","properties":{"a":{"type":"integer"}},"required":["a"],"additionalProperties":false})",
            lowered(R"({"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]})", Target::OpenAIStrict));
}

TEST(Lower, TargetNames) {
  for (Target t : {Target::OpenAIStrict, Target::Anthropic, Target::Gemini, Target::Vllm, Target::Tool}) {
    EXPECT_EQ(t, parse_target(target_name(t)));
  }
  EXPECT_EQ(std::nullopt, parse_target("openai"));
}

}  // namespace
}  // namespace weld::schema
