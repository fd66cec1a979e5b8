#include "span_queue.h"

#include <gtest/gtest.h>

namespace weld::telemetry::detail {
namespace {

std::unique_ptr<SpanData> record(std::string_view name) {
  auto span = std::make_unique<SpanData>();
  span->set_name(name);
  return span;
}

// An encoded span whose field is `bytes`.
void push_encoded(SpanQueue& queue, std::string_view bytes) {
  queue.push_encoded_with([&](std::string& out) { out.append(bytes); });
}

TEST(SpanQueue, TakingTheFrontKeepsTheRestInOrder) {
  SpanQueue queue;
  for (std::string_view field : {"a", "bb", "ccc", "dddd", "eeeee"}) push_encoded(queue, field);
  SpanQueue taken;
  push_encoded(taken, "stale");  // emptied first
  queue.take_front(2, taken);
  ASSERT_EQ(2u, taken.size());
  EXPECT_EQ("abb", taken.encoded(0, 2));
  EXPECT_EQ("bb", taken.encoded(1, 2));
  ASSERT_EQ(3u, queue.size());
  EXPECT_EQ("ccc", queue.encoded(0, 1));
  EXPECT_EQ("dddd", queue.encoded(1, 2));
  EXPECT_EQ("ccc" "dddd" "eeeee", queue.encoded(0, 3));
  // Spans added after a take follow those kept.
  push_encoded(queue, "ff");
  queue.take_front(10, taken);
  EXPECT_TRUE(queue.empty());
  ASSERT_EQ(4u, taken.encoded_count());
  EXPECT_EQ("ff", taken.encoded(3, 4));
  EXPECT_EQ("", taken.encoded(0, 0));
}

TEST(SpanQueue, AppendingMovesWhatFitsInOrderAndCountsTheRest) {
  SpanQueue queue;
  push_encoded(queue, "a");
  SpanQueue more;
  for (std::string_view field : {"bb", "ccc", "dddd"}) push_encoded(more, field);
  EXPECT_EQ(1u, queue.append(more, 3));  // room for two of the three
  EXPECT_TRUE(more.empty());
  ASSERT_EQ(3u, queue.encoded_count());
  EXPECT_EQ("a" "bb" "ccc", queue.encoded(0, 3));
  EXPECT_EQ("ccc", queue.encoded(2, 3));
  // The emptied queue fills again, and nothing fits a full queue.
  push_encoded(more, "e");
  EXPECT_EQ(1u, queue.append(more, 3));
  EXPECT_EQ(3u, queue.size());
  // Records the same way.
  SpanQueue records;
  SpanQueue more_records;
  for (std::string_view name : {"one", "two", "three"}) more_records.push(record(name));
  EXPECT_EQ(0u, records.append(more_records, 10));
  ASSERT_EQ(3u, records.records().size());
  EXPECT_EQ("three", records.records()[2]->name());
  EXPECT_TRUE(more_records.empty());
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
