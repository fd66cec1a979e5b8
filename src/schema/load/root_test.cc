// docs/schema.md, "Reading --json-schema VALUE", step 6: every root shape it names.
#include <gtest/gtest.h>

#include "weld/json/parse.h"
#include "weld/schema/load.h"

namespace weld::schema {
namespace {

const std::string kMessage =
    "schema root must accept object-typed values (tool parameters are always JSON objects). At least one "
    "branch of a root anyOf/oneOf must be satisfiable by an object, and a root `type` (when present) must include "
    "\"object\".";

std::optional<std::string> check(std::string_view text) {
  Result<json::Value> doc = json::parse(text);
  EXPECT_TRUE(doc.ok()) << text;
  return check_root_accepts_object(*doc);
}

void expect_accepted(std::string_view text) { EXPECT_EQ(check(text), std::nullopt) << text; }
void expect_rejected(std::string_view text) { EXPECT_EQ(check(text), kMessage) << text; }

TEST(RootAcceptsObject, RootRefIsRejectedWithWrapAdvice) {
  std::string expected = kMessage +
                         " A root $ref is not accepted: wrap it as {\"allOf\":[{\"$ref\":\"#/$defs/args\"}], "
                         "\"$defs\":{…}}.";
  EXPECT_EQ(check(R"({"$ref":"#/$defs/args","$defs":{"args":{"type":"object"}}})"), expected);
  EXPECT_EQ(check(R"({"type":"object","$ref":"#/$defs/args"})"), expected);  // even beside type: object
}

TEST(RootAcceptsObject, Type) {
  expect_accepted(R"({"type":"object"})");
  expect_accepted(R"({"type":["object","null"]})");
  expect_accepted(R"({})");
  expect_accepted(R"({"properties":{"a":{"type":"string"}}})");
  expect_rejected(R"({"type":"string"})");
  expect_rejected(R"({"type":["string","array"]})");
  expect_rejected(R"({"type":[]})");
}

TEST(RootAcceptsObject, ConstAndEnum) {
  expect_accepted(R"({"const":{"a":1}})");
  expect_rejected(R"({"const":"x"})");
  expect_rejected(R"({"const":null})");
  expect_accepted(R"({"enum":[1,{"a":1}]})");
  expect_rejected(R"({"enum":[1,"a",[]]})");
  expect_rejected(R"({"enum":[]})");
}

TEST(RootAcceptsObject, AnyOfOneOf) {
  expect_accepted(R"({"anyOf":[{"type":"string"},{"type":"object"}]})");
  expect_rejected(R"({"anyOf":[{"type":"string"},{"type":"number"}]})");
  expect_rejected(R"({"anyOf":[]})");
  expect_accepted(R"({"oneOf":[{"type":"string"},true]})");
  expect_rejected(R"({"oneOf":[false,{"type":"null"}]})");
  expect_rejected(R"({"oneOf":[]})");
  expect_accepted(R"({"anyOf":[{"$ref":"#/$defs/x"}],"$defs":{"x":{"type":"string"}}})");  // $ref in a branch
}

TEST(RootAcceptsObject, AllOf) {
  expect_accepted(R"({"allOf":[true,{"type":"object"}]})");
  expect_rejected(R"({"allOf":[false]})");
  expect_rejected(R"({"allOf":[{"type":"object"},{"type":"array"}]})");
  expect_accepted(R"({"allOf":[{"$ref":"#/$defs/a"}],"$defs":{"a":{"type":"object"}}})");
  expect_accepted(R"({"allOf":[]})");
}

TEST(RootAcceptsObject, Not) {
  expect_rejected(R"({"not":{"type":"object"}})");
  expect_rejected(R"({"not":{"type":["object","null"]}})");
  expect_accepted(R"({"not":{"type":"object","required":["a"]}})");  // a narrowed not
  expect_accepted(R"({"not":{"type":"string"}})");
  expect_rejected(R"({"not":true})");
  expect_rejected(R"({"not":{}})");
}

TEST(RootAcceptsObject, IfThenElse) {
  expect_rejected(R"({"if":true,"then":{"type":"string"}})");
  expect_accepted(R"({"if":true,"then":{"type":"object"}})");
  expect_rejected(R"({"if":false,"else":{"type":"string"}})");
  expect_accepted(R"({"if":false,"then":{"type":"string"},"else":{"type":"object"}})");
  expect_accepted(R"({"if":{"required":["a"]},"then":{"type":"string"},"else":{"type":"string"}})");  // undecided
}

TEST(RootAcceptsObject, NestedBranchesRecurse) {
  expect_rejected(R"({"anyOf":[{"allOf":[{"type":"string"}]},{"oneOf":[{"const":1}]}]})");
  expect_accepted(R"({"anyOf":[{"allOf":[{"type":"string"}]},{"oneOf":[{"const":{}}]}]})");
  expect_rejected(R"({"allOf":[{"anyOf":[{"not":{"type":"object"}}]}]})");
}

TEST(RootAcceptsObject, FlagName) {
  Result<json::Value> doc = json::parse(R"({"type":"string"})");
  std::optional<std::string> message = check_root_accepts_object(*doc, "--output-schema");
  ASSERT_TRUE(message);
  EXPECT_EQ(message->rfind("--output-schema root must accept", 0), 0u);
}

}  // namespace
}  // namespace weld::schema
