#include "weld/json/number.h"

#include <gtest/gtest.h>

#include "weld/json/parse.h"
#include "weld/json/serialize.h"

namespace weld::json {
namespace {

Value num(const char* text) { return *parse(text); }

TEST(CompareNumbers, BigIntegersByTheirDigits) {
  // 2^63 is one above INT64_MAX; as doubles both are 2^63.
  EXPECT_GT(compare_numbers(num("9223372036854775808"), num("9223372036854775807")), 0);
  EXPECT_LT(compare_numbers(num("9223372036854775807"), num("9223372036854775808")), 0);
  EXPECT_LT(compare_numbers(num("-9223372036854775809"), num("-9223372036854775808")), 0);
  EXPECT_NE(num("12345678901234567890123"), num("12345678901234567890124"));
  EXPECT_EQ(num("12345678901234567890123"), num("12345678901234567890123"));
  EXPECT_GT(compare_numbers(num("100000000000000000000001"), num("100000000000000000000000")), 0);
  EXPECT_LT(compare_numbers(num("-100000000000000000000001"), num("-100000000000000000000000")), 0);
  EXPECT_GT(compare_numbers(num("100000000000000000000000"), num("-100000000000000000000000")), 0);
}

TEST(CompareNumbers, BigIntegerAgainstDoubleUsesTheDoublesExactValue) {
  // The double 9223372036854775808.0 is exactly 2^63.
  EXPECT_EQ(num("9223372036854775808"), num("9223372036854775808.0"));
  EXPECT_GT(compare_numbers(num("9223372036854775809"), num("9223372036854775808.0")), 0);
  // 1e23 as a double is 99999999999999991611392 (Python: int(1e23)).
  EXPECT_EQ(num("99999999999999991611392"), num("1e23"));
  EXPECT_GT(compare_numbers(num("100000000000000000000000"), num("1e23")), 0);
  // A fraction lies between integers.
  EXPECT_GT(compare_numbers(num("9223372036854775808"), num("0.5")), 0);
  EXPECT_LT(compare_numbers(num("-9223372036854775809"), num("-0.5")), 0);
  EXPECT_LT(compare_numbers(num("0.5"), num("9223372036854775808")), 0);
}

TEST(CompareNumbers, Int64AgainstDoubleExactly) {
  // 2^53 + 1 is not a double: the int64 is greater than the double 2^53.
  EXPECT_GT(compare_numbers(num("9007199254740993"), num("9007199254740992.0")), 0);
  EXPECT_NE(num("9007199254740993"), num("9007199254740992.0"));
  EXPECT_EQ(num("9007199254740992"), num("9007199254740992.0"));
  // INT64_MAX against the double 2^63.
  EXPECT_LT(compare_numbers(num("9223372036854775807"), num("9.223372036854775808e18")), 0);
  EXPECT_EQ(num("1"), num("1.0"));
  EXPECT_EQ(num("0"), num("-0.0"));
  EXPECT_EQ(compare_numbers(num("-0.0"), num("0")), 0);
}

TEST(IntegerDigits, ExactDigits) {
  EXPECT_EQ(integer_digits(num("42")), "42");
  EXPECT_EQ(integer_digits(num("-18446744073709551616")), "-18446744073709551616");
  EXPECT_EQ(integer_digits(num("1e23")), "99999999999999991611392");
  EXPECT_EQ(integer_digits(num("36.0")), "36");
  EXPECT_EQ(integer_digits(num("36.5")), std::nullopt);
  EXPECT_EQ(integer_digits(num("\"36\"")), std::nullopt);
}

TEST(IntegralRealAsInteger, Int64OrShortestDigits) {
  EXPECT_EQ(serialize(*integral_real_as_integer(36.0)), "36");
  EXPECT_TRUE(integral_real_as_integer(36.0)->is_integer());
  EXPECT_EQ(serialize(*integral_real_as_integer(-9223372036854775808.0)), "-9223372036854775808");
  EXPECT_EQ(serialize(*integral_real_as_integer(1e23)), "99999999999999991611392");
  EXPECT_EQ(*integral_real_as_integer(1e23), Value(1e23));
  EXPECT_EQ(integral_real_as_integer(0.5), std::nullopt);
}

}  // namespace
}  // namespace weld::json
