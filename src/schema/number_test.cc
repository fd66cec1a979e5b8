#include "number.h"

#include <gtest/gtest.h>

namespace weld::schema {
namespace {

TEST(MultipleOf, DecimalDivisors) {
  EXPECT_TRUE(is_multiple_of(json::Value(0.07), json::Value(0.01)));
  EXPECT_TRUE(is_multiple_of(json::Value(19.99), json::Value(0.01)));
  EXPECT_TRUE(is_multiple_of(json::Value(4.5), json::Value(1.5)));
  EXPECT_FALSE(is_multiple_of(json::Value(0.075), json::Value(0.01)));
  EXPECT_FALSE(is_multiple_of(json::Value(35), json::Value(1.5)));
  EXPECT_TRUE(is_multiple_of(json::Value(0.0075), json::Value(0.0001)));
  EXPECT_FALSE(is_multiple_of(json::Value(0.00751), json::Value(0.0001)));
}

TEST(MultipleOf, Integers) {
  EXPECT_TRUE(is_multiple_of(json::Value(10), json::Value(2)));
  EXPECT_FALSE(is_multiple_of(json::Value(7), json::Value(2)));
  EXPECT_TRUE(is_multiple_of(json::Value(1e20), json::Value(5)));
  EXPECT_TRUE(is_multiple_of(json::Value(0), json::Value(0.3)));
  EXPECT_TRUE(is_multiple_of(json::Value(-0.6), json::Value(0.3)));
}

json::Value big(const char* digits) { return json::Value(json::BigInteger{digits}); }

TEST(MultipleOf, IntegersBeyondInt64ByTheirDigits) {
  // 2^64 = 18446744073709551616: even, not a multiple of 3 (its double is
  // a multiple of 3 in floating point).
  EXPECT_TRUE(is_multiple_of(big("18446744073709551616"), json::Value(2)));
  EXPECT_FALSE(is_multiple_of(big("18446744073709551616"), json::Value(3)));
  EXPECT_TRUE(is_multiple_of(big("18446744073709551615"), json::Value(3)));
  EXPECT_TRUE(is_multiple_of(big("-18446744073709551615"), json::Value(5)));
  EXPECT_FALSE(is_multiple_of(big("18446744073709551617"), json::Value(2)));
  // Divisors beyond int64, and beyond 36 digits (the long-division path).
  EXPECT_TRUE(is_multiple_of(big("36893488147419103232"), big("18446744073709551616")));
  EXPECT_FALSE(is_multiple_of(big("36893488147419103233"), big("18446744073709551616")));
  EXPECT_TRUE(is_multiple_of(big("2000000000000000000000000000000000000000000000002"),
                             big("1000000000000000000000000000000000000000000000001")));
  EXPECT_FALSE(is_multiple_of(big("2000000000000000000000000000000000000000000000003"),
                              big("1000000000000000000000000000000000000000000000001")));
  EXPECT_TRUE(is_multiple_of(json::Value(1e60), big("1000000000000000000000000000000000000000000000000")));
  EXPECT_TRUE(is_multiple_of(big("123456789012345678901234567890123456789000"), json::Value(0.001)));
  EXPECT_FALSE(is_multiple_of(json::Value(0.5), big("18446744073709551616")));
}

}  // namespace
}  // namespace weld::schema
