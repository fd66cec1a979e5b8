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

}  // namespace
}  // namespace weld::schema
