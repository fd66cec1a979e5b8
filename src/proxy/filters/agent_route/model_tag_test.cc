#include <gtest/gtest.h>

#include "weld/proxy/weld.h"

namespace weld::proxy {
namespace {

TEST(ParseModelTag, SplitsBaseAndAgent) {
  auto tag = parse_model_tag("claude-x__schema=router");
  ASSERT_TRUE(tag.has_value());
  EXPECT_EQ("claude-x", tag->base_model);
  EXPECT_EQ("router", tag->agent);
}

TEST(ParseModelTag, UntaggedIsNullopt) {
  EXPECT_FALSE(parse_model_tag("qwen3-27b").has_value());
  EXPECT_FALSE(parse_model_tag("").has_value());
  EXPECT_FALSE(parse_model_tag("m__schema").has_value());
  EXPECT_FALSE(parse_model_tag("m_schema=router").has_value());
  EXPECT_FALSE(parse_model_tag("m__SCHEMA=router").has_value());
}

TEST(ParseModelTag, KeepsPathsAndColonsInBase) {
  auto tag = parse_model_tag("Qwen/Qwen3-27B:w8a16__schema=ticket");
  ASSERT_TRUE(tag.has_value());
  EXPECT_EQ("Qwen/Qwen3-27B:w8a16", tag->base_model);
  EXPECT_EQ("ticket", tag->agent);
}

TEST(ParseModelTag, EmptyAgentIsATagWithEmptyName) {
  auto tag = parse_model_tag("m__schema=");
  ASSERT_TRUE(tag.has_value());
  EXPECT_EQ("m", tag->base_model);
  EXPECT_EQ("", tag->agent);
}

TEST(ParseModelTag, SeveralSuffixesLastAgentFirstBase) {
  auto tag = parse_model_tag("m__schema=a__schema=b");
  ASSERT_TRUE(tag.has_value());
  EXPECT_EQ("m", tag->base_model);
  EXPECT_EQ("b", tag->agent);
}

TEST(ParseModelTag, TrimsWhitespace) {
  auto tag = parse_model_tag("  m \t__schema= router \n");
  ASSERT_TRUE(tag.has_value());
  EXPECT_EQ("m", tag->base_model);
  EXPECT_EQ("router", tag->agent);
}

TEST(ParseModelTag, EmptyBase) {
  auto tag = parse_model_tag("__schema=brief");
  ASSERT_TRUE(tag.has_value());
  EXPECT_EQ("", tag->base_model);
  EXPECT_EQ("brief", tag->agent);
}

}  // namespace
}  // namespace weld::proxy
