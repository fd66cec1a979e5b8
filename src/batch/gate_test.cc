#include "weld/batch/gate.h"

#include <gtest/gtest.h>

#include <chrono>

namespace weld::batch {
namespace {

using std::chrono::milliseconds;

TEST(PauseForResponse, TooManyRequestsHonoursRetryAfter) {
  EXPECT_EQ(pause_for_response(429, {{"Retry-After", "2"}}), milliseconds(2000));
  EXPECT_EQ(pause_for_response(429, {{"retry-after-ms", "250"}}), milliseconds(250));
  EXPECT_EQ(pause_for_response(429, {}), milliseconds(1000));
  EXPECT_EQ(pause_for_response(429, {{"Retry-After", "3600"}}), milliseconds(60000));
  EXPECT_EQ(pause_for_response(503, {{"Retry-After", "1"}}), milliseconds(1000));
  EXPECT_EQ(pause_for_response(503, {}), std::nullopt);
  EXPECT_EQ(pause_for_response(500, {{"Retry-After", "1"}}), std::nullopt);
  EXPECT_EQ(pause_for_response(200, {}), std::nullopt);
}

TEST(RequestGate, NoTurnBeforeThePauseHasPassed) {
  RequestGate gate;
  provider::CancelToken cancel;
  ASSERT_TRUE(gate.wait_turn(cancel));
  const auto paused_at = std::chrono::steady_clock::now();
  gate.pause_for(milliseconds(300));
  ASSERT_TRUE(gate.wait_turn(cancel));
  EXPECT_GE(std::chrono::steady_clock::now() - paused_at, milliseconds(300));
  EXPECT_EQ(gate.pauses(), 1u);
}

TEST(RequestGate, MaxRpsSpacesStarts) {
  RequestGate gate(20);  // one start per 50 ms
  provider::CancelToken cancel;
  const auto started = std::chrono::steady_clock::now();
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(gate.wait_turn(cancel));
  EXPECT_GE(std::chrono::steady_clock::now() - started, milliseconds(200));
}

TEST(RequestGate, CancelEndsTheWait) {
  RequestGate gate;
  provider::CancelToken cancel;
  gate.pause_for(milliseconds(60000));
  cancel.cancelled = true;
  EXPECT_FALSE(gate.wait_turn(cancel));
}

}  // namespace
}  // namespace weld::batch
