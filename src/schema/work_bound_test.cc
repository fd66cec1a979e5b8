// The work bound of one validation: a schema whose references fan out
// (each level referring to the next twice) would cost 2^depth evaluations.
#include <gtest/gtest.h>

#include <chrono>

#include "weld/json/parse.h"
#include "weld/json/serialize.h"
#include "weld/json/tape.h"
#include "weld/schema/schema.h"
#include "stop_test_support.h"

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

// The budget's stop is the validation's one violation, in both collecting
// modes, whatever the applicators it unwinds through would have said: at
// the instance value and in the subschema under evaluation when it hit.
void expect_budget_stop(const Schema& s, const std::string& instance_text, const std::string& instance_path) {
  expect_stop_alone(s, instance_text, kBudget, "work budget", instance_path,
                    [](const std::string& at) { return at.rfind("#/$defs/d", 0) == 0; });
}

TEST(WorkBound, TheBudgetStopIsReportedAlone) {
  // Valid or not, deciding it costs 2^40 evaluations: each instance stops
  // at the budget. The errors of the members (`b` is not allowed, `q` not
  // a string) and of the applicators are not listed.
  const std::string fan = fan_out(40, R"({"properties":{"a":{},"c":{"type":"integer"}},"anyOf":[{"required":["a"]},{"required":["c"]}]})",
                                  R"(,"properties":{"p":{"allOf":[{"$ref":"#/$defs/d0"}],"unevaluatedProperties":false},
                                       "q":{"type":"string"}})");
  Schema s = compile(fan);
  expect_budget_stop(s, R"({"p":{"a":1}})", "/p");
  expect_budget_stop(s, R"({"p":{"a":1,"b":2},"q":1})", "/p");
  // An error met before the fan-out is spent is an answer for the first
  // error; listing them all meets the budget.
  json::Value early = *json::parse(R"({"p":{"a":1,"c":"x"}})");
  ValidationResult first = s.validate(early, Collect::First);
  ASSERT_EQ(1u, first.violations.size());
  EXPECT_EQ("/p/c must be integer", describe(first.violations, ""));
  ValidationResult all = s.validate(early, Collect::All);
  ASSERT_EQ(1u, all.violations.size());
  EXPECT_EQ(kBudget, all.violations[0].message);
  // At the root, under `not` (whose failure would be a pass) and `anyOf`.
  Schema root = compile(fan_out(40, R"({"properties":{"a":{}}})", R"(,"anyOf":[{"not":{"allOf":[{"$ref":"#/$defs/d0"}],"unevaluatedProperties":false}},{"type":"string"}])"));
  expect_budget_stop(root, R"({"a":1})", "");
}

}  // namespace
}  // namespace weld::schema
