#include "weld/proxy/tag_scan.h"

#include <gtest/gtest.h>

namespace weld::proxy {
namespace {

TEST(TagScan, FindsTheSuffixInTheModelValue) {
  EXPECT_TRUE(may_be_suffix_tagged(R"({"model":"qwen__schema=router","messages":[]})"));
  EXPECT_TRUE(may_be_suffix_tagged("{ \"messages\": [], \"model\" :\n \"m__schema=x\" }"));
  EXPECT_TRUE(may_be_suffix_tagged(R"({"messages":[{"model":"a"}],"model":"b__schema=c"})"));
}

TEST(TagScan, UntaggedBodies) {
  EXPECT_FALSE(may_be_suffix_tagged(R"({"model":"qwen","messages":[]})"));
  EXPECT_FALSE(may_be_suffix_tagged(""));
  EXPECT_FALSE(may_be_suffix_tagged(std::string_view()));  // no body: a null data() (UBSan checks memmem's argument)
  EXPECT_FALSE(may_be_suffix_tagged("__schema="));
  // The suffix inside message text, not in a model value.
  EXPECT_FALSE(may_be_suffix_tagged(R"({"model":"qwen","messages":[{"content":"use m__schema=x"}]})"));
  // An escaped "model" inside a string is not a key.
  EXPECT_FALSE(may_be_suffix_tagged(R"({"model":"q","messages":[{"content":"\"model\":\"a__schema=b\""}]})"));
  // Truncated bodies never read past the end.
  EXPECT_FALSE(may_be_suffix_tagged(R"({"x":"__schema=","model")"));
  EXPECT_FALSE(may_be_suffix_tagged(R"({"x":"__schema=","model":)"));
  EXPECT_FALSE(may_be_suffix_tagged(R"({"x":"__schema=","model":"ab\)"));
}

}  // namespace
}  // namespace weld::proxy
