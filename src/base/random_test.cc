#include "weld/base/random.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <thread>
#include <vector>

namespace weld {
namespace {

TEST(ThreadRandom, OneEnginePerThread) {
  std::mt19937_64& first = thread_random();
  EXPECT_EQ(&thread_random(), &first);  // seeded once, then the same engine
  std::uint64_t a = first();
  std::uint64_t b = thread_random()();
  EXPECT_NE(a, b);  // it advances

  std::mt19937_64* other = nullptr;
  std::vector<std::uint64_t> theirs;
  std::thread([&] {
    other = &thread_random();
    for (int i = 0; i < 4; ++i) theirs.push_back(thread_random()());
  }).join();
  EXPECT_NE(other, &first);
  std::vector<std::uint64_t> mine;
  for (int i = 0; i < 4; ++i) mine.push_back(thread_random()());
  EXPECT_NE(mine, theirs);  // seeded apart
}

}  // namespace
}  // namespace weld
