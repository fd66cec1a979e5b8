#include "weld/batch/ids.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace weld::batch {
namespace {

TEST(IdSet, SeenAndDoneAreSeparateMarks) {
  IdSet ids;
  RowKey a = key_of_id("a");
  EXPECT_FALSE(ids.is_done(a));
  EXPECT_TRUE(ids.mark_seen(a));
  EXPECT_FALSE(ids.mark_seen(a));
  EXPECT_FALSE(ids.is_done(a));
  EXPECT_TRUE(ids.mark_done(a));
  EXPECT_TRUE(ids.is_done(a));
  EXPECT_FALSE(ids.mark_done(a));
  EXPECT_EQ(ids.size(), 1u);
}

TEST(IdSet, DoneRemembersWhetherTheLineErrored) {
  IdSet ids;
  RowKey a = key_of_id("a");
  EXPECT_EQ(ids.done(a), Done::No);
  EXPECT_TRUE(ids.mark_done(a, true));
  EXPECT_EQ(ids.done(a), Done::Errored);
  EXPECT_TRUE(ids.mark_seen(a));
  EXPECT_EQ(ids.done(a), Done::Errored);
  // A later line for the same row replaces the earlier mark.
  EXPECT_FALSE(ids.mark_done(a, false));
  EXPECT_EQ(ids.done(a), Done::Succeeded);
  EXPECT_FALSE(ids.mark_seen(a));
}

TEST(IdSet, HoldsAHundredThousandKeysThroughGrowthAtUnder48BytesEach) {
  IdSet ids;
  for (int i = 0; i < 100000; ++i) ASSERT_TRUE(ids.mark_seen(key_of_id("row-" + std::to_string(i))));
  for (int i = 0; i < 100000; i += 2) ids.mark_done(key_of_id("row-" + std::to_string(i)));
  for (int i = 0; i < 100000; ++i) {
    RowKey key = key_of_id("row-" + std::to_string(i));
    ASSERT_FALSE(ids.mark_seen(key)) << i;
    ASSERT_EQ(ids.is_done(key), i % 2 == 0) << i;
  }
  EXPECT_FALSE(ids.is_done(key_of_id("row-100000")));
  EXPECT_EQ(ids.size(), 100000u);
  EXPECT_LE(ids.bytes() / ids.size(), 48u);
}

// The table grows by half, not by double: right after a growth it holds
// keys at 7/12 load, at most 16 × 8/7 × 1.5 ≈ 27.4 bytes per key (doubling
// reached 36.6, and its growth held 3× the old table at once: the peak at
// 1,000,000 rows).
TEST(IdSet, GrowsByHalfSoNoMoreThan28BytesPerKey) {
  IdSet ids;
  double worst = 0;
  for (int i = 0; i < 300000; ++i) {
    ASSERT_TRUE(ids.mark_seen(key_of_id("row-" + std::to_string(i))));
    if (ids.size() >= 1000) worst = std::max(worst, static_cast<double>(ids.bytes()) / static_cast<double>(ids.size()));
  }
  EXPECT_LE(worst, 28.0);
  for (int i = 0; i < 300000; ++i) ASSERT_FALSE(ids.mark_seen(key_of_id("row-" + std::to_string(i)))) << i;
}

TEST(IdSet, LineAndDuplicateKeysAreNotIdKeys) {
  EXPECT_FALSE(key_of_duplicate(3) == key_of_id("3"));
  EXPECT_TRUE(key_of_duplicate(3) == key_of_duplicate(3));
  EXPECT_FALSE(key_of_line(3) == key_of_id("3"));
  EXPECT_FALSE(key_of_line(3) == key_of_duplicate(3));
  EXPECT_TRUE(key_of_line(3) == key_of_line(3));
}

// The shard of an id must never change between versions or machines (a
// rerun or another node would run a row twice): these are XXH3-128's fixed
// outputs, scaled.
TEST(ShardOf, StableAcrossVersions) {
  EXPECT_EQ(key_of_id("r1").low, 0xc082ff223c116753ull) << std::hex << key_of_id("r1").low;
  std::vector<std::uint32_t> shards;
  for (const char* id : {"r1", "r2", "r3", "0", "invoice-2024-001"}) shards.push_back(shard_of(key_of_id(id), 4));
  EXPECT_EQ(shards, (std::vector<std::uint32_t>{0, 3, 0, 3, 0}));
}

TEST(ShardOf, SpreadsRowsEvenly) {
  std::vector<int> counts(8);
  for (int i = 0; i < 80000; ++i) ++counts[shard_of(key_of_id(std::to_string(i)), 8)];
  for (int count : counts) {
    EXPECT_GT(count, 9500);
    EXPECT_LT(count, 10500);
  }
  EXPECT_EQ(shard_of(key_of_id("anything"), 1), 0u);
}

}  // namespace
}  // namespace weld::batch
