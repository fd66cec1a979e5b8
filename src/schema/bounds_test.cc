// Numbers beyond what a double or an int64 holds, in every keyword that
// compares numbers, and bounds beyond what an instruction operand holds in
// messages.
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

bool valid(std::string_view schema, std::string_view instance) {
  Schema s = Schema::compile(j(schema));
  bool fast = s.is_valid(j(instance));
  EXPECT_EQ(fast, s.validate(j(instance)).valid) << schema << " " << instance;
  return fast;
}

std::string errors(std::string_view schema, std::string_view instance) {
  return describe(Schema::compile(j(schema)).validate(j(instance)).violations);
}

TEST(BigIntegers, MaximumAndMinimumCompareDigits) {
  // 2^63 is above INT64_MAX; as doubles the two are equal.
  EXPECT_FALSE(valid(R"({"maximum":9223372036854775807})", "9223372036854775808"));
  EXPECT_TRUE(valid(R"({"maximum":9223372036854775807})", "9223372036854775807"));
  EXPECT_FALSE(valid(R"({"maximum":9223372036854775807})", "9223372036854775808.0"));
  EXPECT_FALSE(valid(R"({"exclusiveMaximum":18446744073709551616})", "18446744073709551616"));
  EXPECT_TRUE(valid(R"({"exclusiveMaximum":18446744073709551616})", "18446744073709551615"));
  EXPECT_FALSE(valid(R"({"minimum":18446744073709551616})", "18446744073709551615"));
  EXPECT_TRUE(valid(R"({"minimum":18446744073709551616})", "18446744073709551617"));
  EXPECT_FALSE(valid(R"({"exclusiveMinimum":-9223372036854775809})", "-9223372036854775809"));
  EXPECT_TRUE(valid(R"({"exclusiveMinimum":-9223372036854775809})", "-9223372036854775808"));
  // 2^53 + 1 is an int64 but not a double.
  EXPECT_FALSE(valid(R"({"maximum":9007199254740993})", "9007199254740994"));
  EXPECT_FALSE(valid(R"({"maximum":9007199254740992.0})", "9007199254740993"));
  // draft-04's boolean exclusiveMaximum.
  EXPECT_FALSE(valid(R"({"$schema":"http://json-schema.org/draft-04/schema#","maximum":18446744073709551616,
                         "exclusiveMaximum":true})",
                     "18446744073709551616"));
}

TEST(BigIntegers, MessagesPrintTheBoundAsWritten) {
  EXPECT_EQ("params must be <= 9223372036854775807", errors(R"({"maximum":9223372036854775807})", "9223372036854775808"));
  EXPECT_EQ("params must be >= 18446744073709551616", errors(R"({"minimum":18446744073709551616})", "1"));
  ValidationResult r = Schema::compile(j(R"({"minimum":18446744073709551616})")).validate(j("1"));
  ASSERT_EQ(1u, r.violations.size());
  EXPECT_EQ(R"({"comparison":">=","limit":18446744073709551616})", json::serialize(r.violations[0].params));
  EXPECT_EQ("params must be multiple of 18446744073709551616",
            errors(R"({"multipleOf":18446744073709551616})", "18446744073709551617"));
}

TEST(BigIntegers, ConstEnumAndUniqueItemsCompareDigits) {
  EXPECT_FALSE(valid(R"({"const":12345678901234567890123})", "12345678901234567890124"));
  EXPECT_TRUE(valid(R"({"const":12345678901234567890123})", "12345678901234567890123"));
  EXPECT_FALSE(valid(R"({"enum":[12345678901234567890123, "a"]})", "12345678901234567890124"));
  EXPECT_TRUE(valid(R"({"enum":[12345678901234567890123, "a"]})", "12345678901234567890123"));
  // A large enum (hashed strings, numbers scanned).
  EXPECT_FALSE(valid(R"({"enum":["a","b","c","d","e","f","g",18446744073709551616]})", "18446744073709551617"));
  EXPECT_TRUE(valid(R"({"enum":["a","b","c","d","e","f","g",18446744073709551616]})", "18446744073709551616"));
  EXPECT_TRUE(valid(R"({"uniqueItems":true})", "[18446744073709551616, 18446744073709551617]"));
  EXPECT_FALSE(valid(R"({"uniqueItems":true})", "[18446744073709551616, 18446744073709551616.0]"));
  // More than 12 items: the hashed path.
  EXPECT_TRUE(valid(R"({"uniqueItems":true})",
                    "[1,2,3,4,5,6,7,8,9,10,11,12,13,18446744073709551616,18446744073709551617]"));
  EXPECT_FALSE(valid(R"({"uniqueItems":true})",
                     "[1,2,3,4,5,6,7,8,9,10,11,12,13,18446744073709551616,18446744073709551616]"));
}

TEST(BigIntegers, MultipleOfDividesDigits) {
  EXPECT_FALSE(valid(R"({"multipleOf":3})", "18446744073709551616"));
  EXPECT_TRUE(valid(R"({"multipleOf":3})", "18446744073709551615"));
  EXPECT_TRUE(valid(R"({"multipleOf":18446744073709551616})", "36893488147419103232"));
  EXPECT_FALSE(valid(R"({"multipleOf":18446744073709551616})", "36893488147419103233"));
}

TEST(CountBounds, MessagesPrintTheSchemasNumber) {
  // Bounds beyond 2^32 - 2 decide as 2^32 - 2 would (no instance is that
  // large) but are printed as the schema wrote them.
  EXPECT_EQ("params must NOT have fewer than 5000000000 characters", errors(R"({"minLength":5000000000})", R"("abc")"));
  EXPECT_EQ("params must NOT have fewer than 5000000000 items", errors(R"({"minItems":5000000000})", "[]"));
  EXPECT_EQ("params must NOT have fewer than 18446744073709551616 properties",
            errors(R"({"minProperties":18446744073709551616})", "{}"));
  EXPECT_EQ("params must NOT have fewer than 4294967295 items", errors(R"({"minItems":4294967295})", "[]"));
  EXPECT_EQ("params must NOT have fewer than 4294967294 items", errors(R"({"minItems":4294967294})", "[]"));
  EXPECT_EQ("params must contain at least 5000000000 valid item(s)",
            errors(R"({"contains":{"type":"integer"},"minContains":5000000000})", "[1]"));
  EXPECT_EQ("params must contain at least 1 and no more than 5000000000 valid item(s)",
            errors(R"({"contains":{"type":"integer"},"maxContains":5000000000})", "[]"));
  ValidationResult r = Schema::compile(j(R"({"minLength":5000000000})")).validate(j(R"("")"));
  ASSERT_EQ(1u, r.violations.size());
  EXPECT_EQ(R"({"limit":5000000000})", json::serialize(r.violations[0].params));
  EXPECT_TRUE(valid(R"({"maxLength":5000000000,"maxItems":1e300})", R"("abc")"));
}

}  // namespace
}  // namespace weld::schema
