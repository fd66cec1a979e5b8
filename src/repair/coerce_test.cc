#include "coerce.h"

#include <gtest/gtest.h>

#include <string>

#include "weld/json/parse.h"
#include "weld/json/serialize.h"

namespace weld::repair {
namespace {

struct Outcome {
  std::string value;    // compact JSON after the walk
  std::string repairs;  // "kind@path:detail" joined by " | "
};

Outcome run(const char* schema_text, const char* value_text, CoerceOptions options = {}) {
  auto schema = json::parse(schema_text);
  auto value = json::parse(value_text);
  EXPECT_TRUE(schema) << schema_text;
  EXPECT_TRUE(value) << value_text;
  if (!schema || !value) return {};
  auto repairs = coerce_to_schema(*value, *schema, options);
  Outcome out;
  out.value = json::serialize(*value);
  for (const auto& r : repairs) {
    if (!out.repairs.empty()) out.repairs += " | ";
    out.repairs += r.kind + "@" + r.path + ":" + r.detail;
  }
  return out;
}

TEST(Coerce, BooleanStrings) {
  auto o = run(R"({"type":"object","properties":{"a":{"type":"boolean"},"b":{"type":"boolean"}}})",
               R"({"a":"true","b":"False"})");
  EXPECT_EQ(R"({"a":true,"b":false})", o.value);
  EXPECT_EQ(R"(coerce_boolean@/a:"true" -> true | coerce_boolean@/b:"False" -> false)", o.repairs);
}

TEST(Coerce, StringTrueStaysAStringWhereAStringIsExpected) {
  auto o = run(R"({"properties":{"a":{"type":"string"},"b":{"type":["boolean","string"]},
                   "c":{"anyOf":[{"type":"boolean"},{"type":"string"}]},"d":{}}})",
               R"({"a":"true","b":"true","c":"true","d":"true"})");
  EXPECT_EQ(R"({"a":"true","b":"true","c":"true","d":"true"})", o.value);
  EXPECT_EQ("", o.repairs);
}

TEST(Coerce, NumericStrings) {
  auto o = run(R"({"properties":{"i":{"type":"integer"},"n":{"type":"number"},"r":{"type":"number"},
                   "f":{"type":"integer"},"x":{"type":"integer"},"s":{"type":"integer"}}})",
               R"({"i":"42","n":"-1.5","r":"3","f":"7.0","x":"7.5","s":" 5"})");
  EXPECT_EQ(R"({"i":42,"n":-1.5,"r":3,"f":7,"x":"7.5","s":" 5"})", o.value);
  EXPECT_EQ(R"(coerce_number@/i:"42" -> 42 | coerce_number@/n:"-1.5" -> -1.5 | coerce_number@/r:"3" -> 3 | )"
            R"(coerce_number@/f:"7.0" -> 7)",
            o.repairs);
}

TEST(Coerce, NotANumberIsLeftAlone) {
  auto o = run(R"({"properties":{"i":{"type":"integer"}}})", R"({"i":"12 apples"})");
  EXPECT_EQ(R"({"i":"12 apples"})", o.value);
  EXPECT_EQ("", o.repairs);
}

TEST(Coerce, StringifiedObjectAndArray) {
  auto o = run(R"({"properties":{"o":{"type":"object","properties":{"n":{"type":"integer"}}},
                   "a":{"type":"array","items":{"type":"boolean"}}}})",
               R"({"o":"{\"n\":\"3\"}","a":"[\"true\", false]"})");
  EXPECT_EQ(R"({"o":{"n":3},"a":[true,false]})", o.value);
  EXPECT_EQ("coerce_json_string@/o:parsed the string as a JSON object | coerce_number@/o/n:\"3\" -> 3 | "
            "coerce_json_string@/a:parsed the string as a JSON array | coerce_boolean@/a/0:\"true\" -> true",
            o.repairs);
}

TEST(Coerce, StringifiedObjectLeniently) {
  auto o = run(R"({"properties":{"o":{"type":"object"}}})", R"({"o":"{a: 1,}"})");
  EXPECT_EQ(R"({"o":{"a":1}})", o.value);
  EXPECT_EQ("coerce_json_string@/o:parsed the string as a JSON object (repaired: unquoted_keys, trailing_comma)",
            o.repairs);
  CoerceOptions strict_only;
  strict_only.lenient_strings = false;
  EXPECT_EQ("", run(R"({"properties":{"o":{"type":"object"}}})", R"({"o":"{a: 1,}"})", strict_only).repairs);
}

TEST(Coerce, WholeArgumentsDoubleEncoded) {
  auto o = run(R"({"type":"object","properties":{"a":{"type":"integer"}}})", R"("{\"a\":1}")");
  EXPECT_EQ(R"({"a":1})", o.value);
  EXPECT_EQ("coerce_json_string@:parsed the string as a JSON object", o.repairs);
}

TEST(Coerce, FollowsRefDefsDefinitionsAndAllOf) {
  auto o = run(R"({"$defs":{"flag":{"type":"boolean"}},"definitions":{"num":{"type":"number"}},
                   "allOf":[{"properties":{"a":{"$ref":"#/$defs/flag"}}}],
                   "properties":{"b":{"$ref":"#/definitions/num"},"c":{"items":{"$ref":"#/$defs/flag"}}}})",
               R"({"a":"true","b":"2.5","c":["false"]})");
  EXPECT_EQ(R"({"a":true,"b":2.5,"c":[false]})", o.value);
}

TEST(Coerce, RecursiveRefTerminates) {
  auto o = run(R"({"$ref":"#/$defs/node","$defs":{"node":{"type":"object","properties":{
                   "v":{"type":"integer"},"next":{"$ref":"#/$defs/node"}}}}})",
               R"({"v":"1","next":{"v":"2","next":{"v":"3"}}})");
  EXPECT_EQ(R"({"v":1,"next":{"v":2,"next":{"v":3}}})", o.value);
}

TEST(Coerce, PrefixItemsAndTupleItems) {
  auto o = run(R"({"prefixItems":[{"type":"integer"},{"type":"boolean"}],"items":{"type":"number"}})",
               R"(["1","true","2.5"])");
  EXPECT_EQ(R"([1,true,2.5])", o.value);
  auto d7 = run(R"({"items":[{"type":"integer"}],"additionalItems":{"type":"boolean"}})", R"(["1","true"])");
  EXPECT_EQ(R"([1,true])", d7.value);
}

TEST(Coerce, AnyOfOnlyWhenUnambiguous) {
  // One branch takes objects: entered. Two branches take objects: not.
  auto one = run(R"({"anyOf":[{"type":"object","properties":{"n":{"type":"integer"}}},{"type":"null"}]})",
                 R"({"n":"5"})");
  EXPECT_EQ(R"({"n":5})", one.value);
  auto two = run(R"({"anyOf":[{"type":"object","properties":{"n":{"type":"integer"}}},
                              {"type":"object","properties":{"n":{"type":"boolean"}}}]})",
                 R"({"n":"5"})");
  EXPECT_EQ(R"({"n":"5"})", two.value);
  // Nullable integer: "5" becomes 5.
  auto nullable = run(R"({"properties":{"n":{"oneOf":[{"type":"integer"},{"type":"null"}]}}})", R"({"n":"5"})");
  EXPECT_EQ(R"({"n":5})", nullable.value);
}

TEST(Coerce, EnumAndConstGuideTheType) {
  auto o = run(R"({"properties":{"e":{"enum":[1,2,3]},"c":{"const":true},"s":{"enum":["1",2]}}})",
               R"({"e":"2","c":"true","s":"1"})");
  EXPECT_EQ(R"({"e":2,"c":true,"s":"1"})", o.value);
}

TEST(Coerce, AdditionalPropertiesButNotPastPatternProperties) {
  auto o = run(R"({"additionalProperties":{"type":"integer"}})", R"({"x":"1"})");
  EXPECT_EQ(R"({"x":1})", o.value);
  auto p = run(R"({"patternProperties":{"^y":{"type":"string"}},"additionalProperties":{"type":"integer"}})",
               R"({"x":"1"})");
  EXPECT_EQ(R"({"x":"1"})", p.value);
}

TEST(Coerce, ClampOnlyWhenAsked) {
  const char* schema = R"({"properties":{"c":{"type":"number","minimum":0,"maximum":1},
                           "i":{"type":"integer","maximum":5.5},"e":{"type":"integer","exclusiveMaximum":10},
                           "r":{"type":"number","exclusiveMinimum":0},"m":{"type":"integer","maximum":10,"multipleOf":4},
                           "q":{"type":"number","exclusiveMaximum":1}}})";
  const char* value = R"({"c":1.4,"i":9,"e":10,"r":-3,"m":11,"q":1.5})";
  EXPECT_EQ("", run(schema, value).repairs);
  CoerceOptions clamp;
  clamp.clamp = true;
  auto o = run(schema, value, clamp);
  // Reals stay reals (1.0), integers stay integers (-3 -> 1 above an
  // exclusive 0), an exclusive real bound gives the nearest double inside.
  EXPECT_EQ(R"({"c":1.0,"i":5,"e":9,"r":1,"m":8,"q":0.9999999999999999})", o.value);
  EXPECT_EQ("clamp@/c:1.4 -> 1.0 | clamp@/i:9 -> 5 | clamp@/e:10 -> 9 | clamp@/r:-3 -> 1 | clamp@/m:11 -> 8 | "
            "clamp@/q:1.5 -> 0.9999999999999999",
            o.repairs);
}

TEST(Coerce, ClampDraft4BooleanExclusive) {
  CoerceOptions clamp;
  clamp.clamp = true;
  auto o = run(R"({"properties":{"i":{"type":"integer","minimum":0,"exclusiveMinimum":true}}})", R"({"i":-4})", clamp);
  EXPECT_EQ(R"({"i":1})", o.value);
}

TEST(Coerce, ClampAfterCoercion) {
  CoerceOptions clamp;
  clamp.clamp = true;
  auto o = run(R"({"properties":{"p":{"type":"integer","minimum":1,"maximum":100}}})", R"({"p":"150"})", clamp);
  EXPECT_EQ(R"({"p":100})", o.value);
  EXPECT_EQ(R"(coerce_number@/p:"150" -> 150 | clamp@/p:150 -> 100)", o.repairs);
}

TEST(Coerce, NothingAllowedNothingDone) {
  CoerceOptions none;
  none.coerce = false;
  EXPECT_EQ("", run(R"({"properties":{"a":{"type":"boolean"}}})", R"({"a":"true"})", none).repairs);
}

}  // namespace
}  // namespace weld::repair
