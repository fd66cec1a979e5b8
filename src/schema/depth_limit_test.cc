// The depth limit of one validation: a schema that recurses without
// consuming the instance stops there, and reports that stop alone, as one
// violation saying where it was (docs/schema.md, "What validates").
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "weld/json/parse.h"
#include "weld/json/serialize.h"
#include "weld/json/tape.h"
#include "weld/schema/schema.h"
#include "stop_test_support.h"

namespace weld::schema {
namespace {

constexpr const char* kDepth =
    "exceeds the maximum schema evaluation depth: the schema nests too deeply or recurses without consuming the "
    "instance";

json::Value j(std::string_view text) {
  auto v = json::parse(text);
  EXPECT_TRUE(v.ok()) << text;
  return v.ok() ? *v : json::Value();
}

Schema lenient(std::string_view text) {
  CompileOptions options;
  options.strict = false;
  return Schema::compile(j(text), options);
}

// The instance is invalid read either way (json::Value and json::Tape), and
// both collecting modes report the depth stop alone: at `instance_path`, in
// one of the subschemas of the cycle (`where`: which one hits the limit
// first depends on frame sizes, so on the build).
void expect_depth_stop(const std::string& schema_text, const std::string& instance_text,
                       const std::string& instance_path, const std::set<std::string>& where) {
  SCOPED_TRACE(schema_text);
  expect_stop_alone(lenient(schema_text), instance_text, kDepth, "depth limit", instance_path,
                    [&](const std::string& at) { return where.count(at) > 0; });
}

TEST(DepthLimit, EachApplicatorsRecursionStopsWithOneViolation) {
  // The recursion through each applicator, at the root and below a member
  // (the instance path then names the member).
  struct Cycle {
    const char* schema;
    const char* reference;  // the subschema holding the $ref back
  };
  const Cycle cycles[] = {
      {R"({"anyOf":[{"$ref":"#/$defs/r"}]})", "/anyOf/0"},
      {R"({"allOf":[{"$ref":"#/$defs/r"}]})", "/allOf/0"},
      {R"({"allOf":[{"$ref":"#/$defs/r"},{"$ref":"#/$defs/r"}]})", "/allOf/0"},
      {R"({"oneOf":[{"$ref":"#/$defs/r"},{"type":"string"}]})", "/oneOf/0"},
      {R"({"not":{"$ref":"#/$defs/r"}})", "/not"},
      {R"({"if":{"$ref":"#/$defs/r"},"then":true})", "/if"},
      {R"({"$ref":"#/$defs/r","minimum":3})", ""},
  };
  for (const Cycle& cycle : cycles) {
    const std::string defs = std::string(R"("$defs":{"r":)") + cycle.schema + "}";
    const std::string reference = std::string("#/$defs/r") + cycle.reference;
    expect_depth_stop("{" + defs + R"(,"$ref":"#/$defs/r"})", "1", "", {"#", "#/$defs/r", reference});
    expect_depth_stop("{" + defs + R"(,"properties":{"p":{"properties":{"q":{"$ref":"#/$defs/r"}}}}})",
                      R"({"p":{"q":[1,2]}})", "/p/q", {"#/$defs/r", reference});
  }
  // The root itself, as the CLI is handed it: {"anyOf":[{"$ref":"#"}]}.
  expect_depth_stop(R"({"anyOf":[{"$ref":"#"}]})", "1", "", {"#"});
}

TEST(DepthLimit, ACycleOfReferencesStopsWithOneViolation) {
  expect_depth_stop(R"({"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"})", "{}", "",
                    {"#", "#/$defs/a", "#/$defs/b"});
  expect_depth_stop(R"({"$defs":{"a":{"anyOf":[{"$ref":"#/$defs/b"}]},"b":{"not":{"not":{"$ref":"#/$defs/a"}}}},
                       "items":{"$ref":"#/$defs/a"}})",
                    "[true,false]", "/0", {"#/$defs/a", "#/$defs/b", "#/$defs/b/not", "#/$defs/b/not/not"});
  // Through $dynamicRef.
  expect_depth_stop(R"({"$id":"https://example.com/d","$dynamicAnchor":"node","anyOf":[{"$dynamicRef":"#node"}]})", "1",
                    "", {"#", "#/anyOf/0"});
}

TEST(DepthLimit, OtherErrorsAndPassingBranchesDoNotHideTheStop) {
  // Errors found before the stop (`required`, `type` of a failing anyOf
  // branch) and after it (`minimum`, the members) are not listed: the
  // verdict is the stop's, whatever else would fail.
  expect_depth_stop(R"({"required":["zz"],"anyOf":[{"type":"string"},{"$ref":"#"}],"minimum":5,
                       "properties":{"a":{"type":"string"}}})",
                    "1", "", {"#"});
  expect_depth_stop(R"({"required":["zz"],"anyOf":[{"type":"string"},{"$ref":"#"}],
                       "properties":{"a":{"type":"string"},"b":{"type":"string"}}})",
                    R"({"a":1,"b":2})", "", {"#"});
  // A branch that passes after the stopped one: still the stop, where it was.
  expect_depth_stop(R"({"anyOf":[{"$ref":"#"},{}]})", "1", "", {"#"});
  expect_depth_stop(R"({"oneOf":[{},{"$ref":"#"}]})", "1", "", {"#"});
  // Under `not`, whose failure would be a pass.
  expect_depth_stop(R"({"properties":{"x":{"$ref":"#/$defs/a"}},
                       "$defs":{"a":{"type":"object","not":{"$ref":"#/$defs/b"}},
                                "b":{"allOf":[{"minimum":3},{"$ref":"#/$defs/a"}]}}})",
                    R"({"x":{"y":1}})", "/x", {"#/$defs/a", "#/$defs/b"});
}

TEST(DepthLimit, SchemasThatConsumeTheInstanceReportTheirErrors) {
  // Recursion that descends into the instance is bounded by the instance:
  // its errors are listed as before, each once.
  Schema tree = Schema::compile(j(R"({"$defs":{"node":{"type":"object","properties":{
      "value":{"type":"integer"},"children":{"type":"array","items":{"$ref":"#/$defs/node"}}}}},
      "$ref":"#/$defs/node"})"));
  ValidationResult r = tree.validate(j(R"({"value":1,"children":[{"value":"x"},{"children":[{"value":2.5}]}]})"));
  ASSERT_EQ(2u, r.violations.size()) << describe(r.violations);
  EXPECT_EQ("/children/0/value", r.violations[0].instance_path);
  EXPECT_EQ("#/$defs/node/properties/value/type", r.violations[0].schema_path);
  EXPECT_EQ("/children/1/children/0/value", r.violations[1].instance_path);
  EXPECT_EQ("must be integer", r.violations[1].message);
}

}  // namespace
}  // namespace weld::schema
