#include "weld/json/utf8.h"

#include <gtest/gtest.h>

namespace weld::json {
namespace {

TEST(Utf8, CountsCodePoints) {
  EXPECT_EQ(3u, count_code_points("abc"));
  EXPECT_EQ(2u, count_code_points("\xF0\x9F\x92\xA9\xF0\x9F\x92\xA9"));  // two U+1F4A9
  EXPECT_EQ(1u, count_code_points("é"));
}

TEST(Utf8, Validates) {
  EXPECT_TRUE(is_valid_utf8("héllo 😀"));
  EXPECT_FALSE(is_valid_utf8("\xC0\xAF"));          // overlong
  EXPECT_FALSE(is_valid_utf8("\xED\xA0\x80"));      // surrogate
  EXPECT_FALSE(is_valid_utf8("\xE2\x82"));          // truncated
  EXPECT_FALSE(is_valid_utf8("\xF4\x90\x80\x80"));  // > U+10FFFF
}

TEST(Utf8, PrefixNeverCutsASequence) {
  EXPECT_EQ("hé", utf8_prefix("héllo", 2));
  EXPECT_EQ("ab", utf8_prefix("ab", 10));
}

TEST(Utf8, Decodes) {
  std::string_view s = "é😀";
  std::size_t i = 0;
  EXPECT_EQ(U'é', decode_utf8(s, i));
  EXPECT_EQ(U'😀', decode_utf8(s, i));
  EXPECT_EQ(s.size(), i);
  std::string_view bad = "\xE2\x82";
  i = 0;
  EXPECT_EQ(0xFFFDu, static_cast<unsigned>(decode_utf8(bad, i)));
}

}  // namespace
}  // namespace weld::json
