// The native mechanism's subset rewrite (docs/run.md, "Mechanisms").
#include <gtest/gtest.h>

#include "weld/json/parse.h"
#include "weld/json/serialize.h"
#include "weld/provider/strict_schema.h"

namespace weld::provider {
namespace {

json::Value parse(std::string_view text) {
  auto v = json::parse(text);
  EXPECT_TRUE(v) << v.error().message;
  return v ? *v : json::Value();
}

std::string changes(const StrictSchema& strict) {
  std::string out;
  for (const Relaxation& r : strict.relaxed) out += r.path + ": " + r.change + "\n";
  return out;
}

TEST(OpenAiStrictSchema, OptionalPropertiesBecomeRequiredAndNullable) {
  auto strict = openai_strict_schema(parse(R"({"type":"object","properties":{
      "name":{"type":"string"},"size":{"type":"string","enum":["s","m"]},"tags":{"type":"array","items":{"type":"string"}},
      "where":{"$ref":"#/$defs/place"}},
    "required":["name"],"$defs":{"place":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}})"));
  ASSERT_TRUE(strict);
  EXPECT_EQ(json::serialize(strict->schema),
            R"({"type":"object","properties":{"name":{"type":"string"},)"
            R"("size":{"type":["string","null"],"enum":["s","m",null]},)"
            R"("tags":{"type":["array","null"],"items":{"type":"string"}},)"
            R"("where":{"anyOf":[{"$ref":"#/$defs/place"},{"type":"null"}]}},)"
            R"("$defs":{"place":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}},)"
            R"("required":["name","size","tags","where"],"additionalProperties":false})");
  EXPECT_TRUE(strict->nullable_added);
  EXPECT_EQ(changes(*strict),
            "/properties/size: optional property made required and nullable\n"
            "/properties/tags: optional property made required and nullable\n"
            "/properties/where: optional property made required and nullable\n");
}

TEST(OpenAiStrictSchema, UnsupportedKeywordsMoveIntoTheDescription) {
  auto strict = openai_strict_schema(parse(R"({"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",
    "properties":{"title":{"type":"string","description":"Short title","minLength":3,"maxLength":80},
                  "kind":{"oneOf":[{"type":"string"},{"type":"integer"}]},
                  "url":{"type":"string","format":"uri"},"when":{"type":"string","format":"date-time"}},
    "required":["title","kind","url","when"],"additionalProperties":false})"));
  ASSERT_TRUE(strict);
  EXPECT_EQ(json::serialize(strict->schema),
            R"x({"type":"object","properties":{"title":{"type":"string","description":"Short title (minLength: 3; maxLength: 80)"},)x"
            R"("kind":{"anyOf":[{"type":"string"},{"type":"integer"}]},)"
            R"("url":{"type":"string","description":"format: \"uri\""},"when":{"type":"string","format":"date-time"}},)"
            R"("required":["title","kind","url","when"],"additionalProperties":false})");
  EXPECT_FALSE(strict->nullable_added);
  EXPECT_EQ(changes(*strict),
            "/properties/title: minLength moved into description\n"
            "/properties/title: maxLength moved into description\n"
            "/properties/kind: oneOf sent as anyOf\n"
            "/properties/url: format moved into description\n");
}

TEST(OpenAiStrictSchema, WhatCannotBeExpressedIsNotRewritten) {
  for (const char* text : {
           R"({"type":"object","additionalProperties":{"type":"integer"}})",        // a map
           R"({"type":"object"})",                                                   // any object
           R"({"type":"array","items":{"type":"string"}})",                          // root not an object
           R"({"anyOf":[{"type":"object","properties":{"a":{"type":"string"}}}]})",  // root union
           R"({"type":"object","properties":{"a":{}}})",                             // "any value"
           R"({"type":"object","properties":{"a":{"$ref":"other.json#/x"}}})",       // outside the document
           "true"}) {
    EXPECT_FALSE(openai_strict_schema(parse(text))) << text;
  }
}

TEST(OpenAiStrictSchema, SentFormatFallsBackToTheSchemaAsIs) {
  SentFormat sent = openai_sent_format(parse(R"({"type":"object"})"), true);
  EXPECT_FALSE(sent.strict);
  EXPECT_EQ(json::serialize(sent.schema), R"({"type":"object"})");
  sent = openai_sent_format(parse(R"({"type":"object","properties":{"a":{"type":"string"}}})"), false);
  EXPECT_FALSE(sent.strict);
  EXPECT_EQ(json::serialize(sent.schema), R"({"type":"object","properties":{"a":{"type":"string"}}})");
  EXPECT_EQ(json::serialize(openai_sent_format(json::Value(true), true).schema), "{}");
}

}  // namespace
}  // namespace weld::provider
