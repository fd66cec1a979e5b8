#include "span_queue.h"

#include <gtest/gtest.h>

namespace weld::telemetry::detail {
namespace {

std::unique_ptr<SpanData> record(std::string_view name) {
  auto span = std::make_unique<SpanData>();
  span->set_name(name);
  return span;
}

TEST(SpanQueue, TakingTheFrontKeepsTheRestInOrder) {
  SpanQueue queue;
  for (std::string_view field : {"a", "bb", "ccc", "dddd", "eeeee"}) queue.push_encoded(field);
  SpanQueue taken;
  taken.push_encoded("stale");  // emptied first
  queue.take_front(2, taken);
  ASSERT_EQ(2u, taken.size());
  EXPECT_EQ("abb", taken.encoded(0, 2));
  EXPECT_EQ("bb", taken.encoded(1, 2));
  ASSERT_EQ(3u, queue.size());
  EXPECT_EQ("ccc", queue.encoded(0, 1));
  EXPECT_EQ("dddd", queue.encoded(1, 2));
  EXPECT_EQ("ccc" "dddd" "eeeee", queue.encoded(0, 3));
  // Spans added after a take follow those kept.
  queue.push_encoded("ff");
  queue.take_front(10, taken);
  EXPECT_TRUE(queue.empty());
  ASSERT_EQ(4u, taken.encoded_count());
  EXPECT_EQ("ff", taken.encoded(3, 4));
  EXPECT_EQ("", taken.encoded(0, 0));
}

TEST(SpanQueue, RecordsAreTakenTheSameWay) {
  SpanQueue queue;
  for (std::string_view name : {"one", "two", "three"}) queue.push(record(name));
  SpanQueue taken;
  queue.take_front(1, taken);
  ASSERT_EQ(1u, taken.records().size());
  EXPECT_EQ("one", taken.records()[0]->name());
  ASSERT_EQ(2u, queue.records().size());
  EXPECT_EQ("two", queue.records()[0]->name());
  EXPECT_EQ("three", queue.records()[1]->name());
  EXPECT_EQ(0u, taken.encoded_count());
  queue.take_front(0, taken);
  EXPECT_TRUE(taken.empty());
  EXPECT_EQ(2u, queue.size());
}

}  // namespace
}  // namespace weld::telemetry::detail
