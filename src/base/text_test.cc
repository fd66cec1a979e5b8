#include "weld/base/text.h"

#include <gtest/gtest.h>

namespace weld {
namespace {

TEST(Trim, AsciiWhitespaceByDefault) {
  EXPECT_EQ(trim("  \t\r\n\f\vabc d \n"), "abc d");
  EXPECT_EQ(trim("abc"), "abc");
  EXPECT_EQ(trim(""), "");
  EXPECT_EQ(trim(" \n\t "), "");
  EXPECT_EQ(trim("\xC2\xA0x\xC2\xA0"), "\xC2\xA0x\xC2\xA0");  // bytes outside ASCII are never whitespace
}

TEST(Trim, HttpSpaceKeepsLineBreaks) {
  EXPECT_EQ(trim(" \tvalue\t ", kHttpSpace), "value");
  EXPECT_EQ(trim("\nvalue\r", kHttpSpace), "\nvalue\r");
  EXPECT_EQ(trim(" \t ", kHttpSpace), "");
}

TEST(HexDigitValue, AllDigitsAndNone) {
  EXPECT_EQ(hex_digit_value('0'), 0);
  EXPECT_EQ(hex_digit_value('9'), 9);
  EXPECT_EQ(hex_digit_value('a'), 10);
  EXPECT_EQ(hex_digit_value('F'), 15);
  EXPECT_EQ(hex_digit_value('g'), -1);
  EXPECT_EQ(hex_digit_value('%'), -1);
}

TEST(PercentDecode, EscapesBecomeBytes) {
  EXPECT_EQ(percent_decode("a%2Fb%2fc"), "a/b/c");
  EXPECT_EQ(percent_decode("%41%42"), "AB");
  EXPECT_EQ(percent_decode("%00x"), std::string("\0x", 2));
  EXPECT_EQ(percent_decode("100%25"), "100%");
  EXPECT_EQ(percent_decode("a+b"), "a+b");
}

TEST(PercentDecode, InvalidOrCutEscapesStayAsWritten) {
  EXPECT_EQ(percent_decode("%"), "%");
  EXPECT_EQ(percent_decode("%4"), "%4");
  EXPECT_EQ(percent_decode("x%4"), "x%4");
  EXPECT_EQ(percent_decode("%zz%41"), "%zzA");
  EXPECT_EQ(percent_decode("%%41"), "%A");
}

TEST(PercentDecode, OneRoundOnly) {
  EXPECT_EQ(percent_decode("%252F"), "%2F");
}

}  // namespace
}  // namespace weld
