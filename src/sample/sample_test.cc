#include "weld/sample/sample.h"
#include <gtest/gtest.h>
namespace weld::sample {
namespace {
TEST(Sample, Placeholder) { EXPECT_TRUE(generate(json::Object{{"type", "string"}})); }
}  // namespace
}  // namespace weld::sample
