// The work bound of one validation: a schema whose references fan out
// (each level referring to the next twice) would cost 2^depth evaluations.
#include <gtest/gtest.h>

#include <chrono>

#include "weld/json/parse.h"
#include "weld/json/tape.h"
#include "weld/schema/schema.h"

namespace weld::schema {
namespace {

constexpr const char* kBudget =
    "exceeds the validation work budget: the schema's references and applicators fan out into too many "
    "evaluations for this instance";

// {"$defs":{"d0":{"allOf":[{"$ref":"#/$defs/d1"},{"$ref":"#/$defs/d1"}]}, …, "d<depth>": leaf}, …root}
std::string fan_out(int depth, const std::string& leaf, const std::string& root_extra, const char* applicator = "allOf") {
  std::string defs;
  for (int level = 0; level < depth; ++level) {
    std::string next = "{\"$ref\":\"#/$defs/d" + std::to_string(level + 1) + "\"}";
    defs += "\"d" + std::to_string(level) + "\":{\"" + applicator + "\":[" + next + "," + next + "]},";
  }
  defs += "\"d" + std::to_string(depth) + "\":" + leaf;
  return "{\"$defs\":{" + defs + "}" + root_extra + "}";
}

Schema compile(const std::string& text) {
  CompileOptions options;
  options.strict = false;
  return Schema::compile(*json::parse(text), options);
}

TEST(WorkBound, FanOutOfReferencesIsMemoised) {
  Schema s = compile(fan_out(40, R"({"type":"integer","maximum":5})", R"(,"type":"array","items":{"$ref":"#/$defs/d0"})"));
  EXPECT_TRUE(s.is_valid(*json::parse("[1,2,3,4,5]")));
  EXPECT_TRUE(s.validate(*json::parse("[1,2,3,4,5]")).valid);
  EXPECT_FALSE(s.is_valid(*json::parse("[1,2,7]")));
  // The collecting pass lists the error once (not 2^40 copies of it).
  ValidationResult all = s.validate(*json::parse("[1,2,7]"), Collect::All);
  EXPECT_FALSE(all.valid);
  ASSERT_EQ(1u, all.violations.size());
  EXPECT_EQ("/2", all.violations[0].instance_path);
  EXPECT_EQ("must be <= 5", all.violations[0].message);
  ValidationResult first = s.validate(*json::parse("[1,2,7]"), Collect::First);
  ASSERT_EQ(1u, first.violations.size());
  EXPECT_EQ("must be <= 5", first.violations[0].message);
  // Read from a Tape (the Python module's instances): memoised as well.
  json::Tape tape;
  json::Value valid = *json::parse("[1,2,3,4,5]");
  json::write_tape(valid, tape);
  EXPECT_TRUE(s.is_valid(tape));
  json::Value invalid = *json::parse("[1,2,7]");
  json::write_tape(invalid, tape);
  EXPECT_FALSE(s.is_valid(tape));
}

TEST(WorkBound, OneOfAndAnyOfFanOut) {
  Schema any = compile(fan_out(40, R"({"type":"string"})", R"(,"$ref":"#/$defs/d0")", "anyOf"));
  EXPECT_FALSE(any.is_valid(*json::parse("1")));
  EXPECT_TRUE(any.is_valid(*json::parse("\"x\"")));
  Schema one = compile(fan_out(40, R"({"type":"string"})", R"(,"$ref":"#/$defs/d0")", "oneOf"));
  EXPECT_FALSE(one.is_valid(*json::parse("\"x\"")));  // both branches pass: not exactly one
}

TEST(WorkBound, WhereNothingCanBeRememberedTheBudgetFailsTheValidation) {
  // unevaluatedProperties needs every branch's annotations: no memo. The
  // instance is valid, but proving it costs 2^40 evaluations.
  Schema s = compile(fan_out(40, R"({"properties":{"a":{}}})", R"(,"allOf":[{"$ref":"#/$defs/d0"}],"unevaluatedProperties":false)"));
  auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(s.is_valid(*json::parse(R"({"a":1})")));
  ValidationResult r = s.validate(*json::parse(R"({"a":1})"));
  EXPECT_FALSE(r.valid);
  ASSERT_FALSE(r.violations.empty());
  EXPECT_EQ(kBudget, r.violations.back().message);
  // Bounded: seconds, not the 2^40 evaluations (days) of the unbounded walk.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(60));
  // A small fan-out stays within the budget and is decided exactly.
  Schema small = compile(fan_out(8, R"({"properties":{"a":{}}})", R"(,"allOf":[{"$ref":"#/$defs/d0"}],"unevaluatedProperties":false)"));
  EXPECT_TRUE(small.is_valid(*json::parse(R"({"a":1})")));
  EXPECT_FALSE(small.is_valid(*json::parse(R"({"a":1,"b":2})")));
}

}  // namespace
}  // namespace weld::schema
