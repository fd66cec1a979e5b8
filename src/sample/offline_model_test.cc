#include "offline_model.h"
#include <gtest/gtest.h>
namespace weld::sample {
namespace {
TEST(OfflineModel, Placeholder) { OfflineModel m(1); EXPECT_EQ("offline", m.provider_name()); }
}  // namespace
}  // namespace weld::sample
