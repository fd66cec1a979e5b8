#include "weld/batch/fiber_loop.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "weld/json/parse.h"
#include "weld/json/serialize.h"
#include "weld/schema/schema.h"

namespace weld::batch {
namespace {

using namespace std::chrono_literals;

TEST(FiberLoopTest, SleepingFibersInterleaveOnTheCallingThread) {
  FiberLoop loop({});
  std::vector<std::string> order;
  std::vector<std::thread::id> threads;
  provider::CancelToken never;
  loop.spawn([&] {
    threads.push_back(std::this_thread::get_id());
    order.push_back("long starts");
    EXPECT_TRUE(loop.sleep_for(60ms, never));
    order.push_back("long ends");
  });
  loop.spawn([&] {
    threads.push_back(std::this_thread::get_id());
    order.push_back("short starts");
    EXPECT_TRUE(loop.sleep_for(1ms, never));
    order.push_back("short ends");
  });
  provider::CancelToken stop;
  loop.run(stop);
  EXPECT_EQ(order, (std::vector<std::string>{"long starts", "short starts", "short ends", "long ends"}));
  ASSERT_EQ(threads.size(), 2u);
  EXPECT_EQ(threads[0], std::this_thread::get_id());
  EXPECT_EQ(threads[1], std::this_thread::get_id());
}

TEST(FiberLoopTest, StoppingEndsEveryWaitAsCancelled) {
  FiberLoop loop({});
  provider::CancelToken stop, never;
  bool slept = true, parked = true;
  loop.spawn([&] { slept = loop.sleep_for(std::chrono::hours(1), never); });
  loop.spawn([&] { parked = loop.park(); });
  loop.spawn([&] {
    EXPECT_TRUE(loop.sleep_for(1ms, never));
    stop.cancelled = true;
  });
  loop.run(stop);  // returns: nothing waits for an hour
  EXPECT_FALSE(slept);
  EXPECT_FALSE(parked);
}

TEST(FiberLoopTest, AFibersOwnCancelEndsItsSleepOnly) {
  FiberLoop loop({});
  provider::CancelToken mine, never, stop;
  bool mine_slept = true, other_slept = false;
  loop.spawn([&] { mine_slept = loop.sleep_for(std::chrono::hours(1), mine); });
  loop.spawn([&] {
    mine.cancelled = true;
    other_slept = loop.sleep_for(5ms, never);
  });
  loop.run(stop);
  EXPECT_FALSE(mine_slept);
  EXPECT_TRUE(other_slept);
}

TEST(FiberLoopTest, AWakeupFromAnotherThreadResumesAParkedFiber) {
  FiberLoop loop({});
  std::atomic<int> rows{0};
  int seen = 0;
  loop.spawn([&] {
    while (seen < 3) {
      if (rows.load() > seen) {
        ++seen;
        continue;
      }
      ASSERT_TRUE(loop.park());
    }
  });
  std::thread producer([&] {
    for (int i = 0; i < 3; ++i) {
      std::this_thread::sleep_for(2ms);
      rows.fetch_add(1);
      loop.wakeup();
    }
  });
  provider::CancelToken stop;
  loop.run(stop);
  producer.join();
  EXPECT_EQ(seen, 3);
}

TEST(FiberLoopTest, AnExceptionInAFiberStopsTheOthersAndReachesRun) {
  FiberLoop loop({});
  provider::CancelToken stop, never;
  bool slept = true;
  loop.spawn([&] { slept = loop.sleep_for(std::chrono::hours(1), never); });
  loop.spawn([] { throw std::runtime_error("row failed"); });
  EXPECT_THROW(loop.run(stop), std::runtime_error);
  EXPECT_FALSE(slept);
}

// The deepest recursion under the run loop: parsing, validating and
// serialising an answer nested as deep as the parser allows. On a stack
// too small for it the guard page ends the test with SIGSEGV.
TEST(FiberLoopTest, TheDefaultStackHoldsAnAnswerAtTheParsersDepthLimit) {
  const int depth = json::ParseOptions{}.max_depth;
  std::string text(static_cast<std::size_t>(depth - 1), '[');
  text += "1";
  text.append(static_cast<std::size_t>(depth - 1), ']');
  json::Value schema_source = json::parse(R"({"type":["array","number"],"items":{"$ref":"#"}})").value();
  schema::Schema schema = schema::Schema::compile(schema_source);
  FiberLoop loop({});
  bool valid = false;
  std::size_t serialized = 0;
  loop.spawn([&] {
    Result<json::Value> value = json::parse(text);
    ASSERT_TRUE(value) << value.error().message;
    valid = schema.validate(*value).valid;
    serialized = json::serialize(*value).size();
  });
  provider::CancelToken stop;
  loop.run(stop);
  EXPECT_TRUE(valid);
  EXPECT_EQ(serialized, text.size());
}

}  // namespace
}  // namespace weld::batch
