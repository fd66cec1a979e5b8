#include "weld/agent/partial_result.h"

#include <gtest/gtest.h>

#include <vector>

#include "weld/json/serialize.h"

namespace weld::agent {
namespace {

using namespace std::chrono_literals;

struct Recorder {
  std::vector<std::string> partials;
  std::vector<int> attempts;
  PartialResults::Clock::time_point now{};
  PartialResults make(std::chrono::milliseconds interval = 100ms) {
    return PartialResults(
        [this](const json::Value& v, int attempt) {
          partials.push_back(json::serialize(v));
          attempts.push_back(attempt);
        },
        interval, [this] { return now; });
  }
};

TEST(PartialResults, EveryCompletedFieldIsReportedAtOnce) {
  Recorder r;
  PartialResults p = r.make();
  for (std::string_view piece : {R"({"a":)", R"(1,)", R"("b":)", R"(true,)", R"("c":[)", R"(2])", "}"}) p.feed(piece);
  // An opened container is not a completed value (no report within the
  // interval); the closed root is the same text as the last partial.
  EXPECT_EQ(r.partials, (std::vector<std::string>{R"({})", R"({"a":1})", R"({"a":1,"b":true})",
                                                  R"({"a":1,"b":true,"c":[2]})"}));
}

TEST(PartialResults, AGrowingStringIsReportedAtMostOncePerInterval) {
  Recorder r;
  PartialResults p = r.make(100ms);
  p.feed(R"({"s":"ab)");  // first partial: at once
  r.now += 40ms;
  p.feed("cd");           // too soon
  r.now += 70ms;
  p.feed("ef");           // 110 ms since the last report
  p.feed("gh\"");         // the string completed: at once
  EXPECT_EQ(r.partials, (std::vector<std::string>{R"({"s":"ab"})", R"({"s":"abcdef"})", R"({"s":"abcdefgh"})"}));
}

TEST(PartialResults, ANewAttemptStartsOverWithAHigherNumber) {
  Recorder r;
  PartialResults p = r.make();
  p.start_attempt();
  p.feed(R"({"a":"x",)");
  p.start_attempt();
  p.feed(R"({"a":"y",)");
  EXPECT_EQ(r.partials, (std::vector<std::string>{R"({"a":"x"})", R"({"a":"y"})"}));
  EXPECT_EQ(r.attempts, (std::vector<int>{1, 2}));
}

TEST(PartialResults, TextThatIsNotJsonGetsNoPartials) {
  Recorder r;
  PartialResults p = r.make();
  p.feed("```json\n{\"a\":1,");
  p.feed("Sure! {\"a\":");
  EXPECT_TRUE(r.partials.empty());
}

}  // namespace
}  // namespace weld::agent
