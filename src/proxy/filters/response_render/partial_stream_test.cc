#include "weld/proxy/partial_stream.h"

#include <gtest/gtest.h>

#include <map>

#include "test_util.h"
#include "weld/json/compact.h"
#include "weld/json/parse.h"
#include "weld/json/serialize.h"

namespace weld::proxy {
namespace {

using testing::j;

struct Frame {
  std::string event;  // "" for OpenAI's data-only frames
  json::Value data;
};

// Splits SSE text into frames (checking the framing and that each data
// payload is JSON); OpenAI's `data: [DONE]` becomes event "[DONE]".
std::vector<Frame> frames_of(const std::string& sse) {
  std::vector<Frame> out;
  std::size_t pos = 0;
  while (pos < sse.size()) {
    std::size_t end = sse.find("\n\n", pos);
    EXPECT_NE(end, std::string::npos) << "unterminated frame: " << sse.substr(pos);
    if (end == std::string::npos) break;
    std::string_view frame = std::string_view(sse).substr(pos, end - pos);
    pos = end + 2;
    Frame f;
    if (frame.substr(0, 7) == "event: ") {
      std::size_t nl = frame.find('\n');
      f.event = std::string(frame.substr(7, nl - 7));
      frame.remove_prefix(nl + 1);
    }
    EXPECT_EQ(frame.substr(0, 6), "data: ") << frame;
    std::string_view payload = frame.substr(6);
    if (payload == "[DONE]") {
      f.event = "[DONE]";
    } else {
      Result<json::Value> data = json::parse(payload);
      EXPECT_TRUE(data) << payload;
      if (data) f.data = std::move(*data);
    }
    out.push_back(std::move(f));
  }
  return out;
}

// What an SDK's accumulator holds: the text of each block (Anthropic content
// block / OpenAI choice) by index, and the discard events in order.
struct Accumulated {
  std::map<std::int64_t, std::string> text;
  std::map<std::int64_t, std::string> finish;  // OpenAI finish_reason by choice
  std::vector<json::Value> discards;
  bool ended = false;
};

Accumulated accumulate(Protocol api, const std::string& sse) {
  Accumulated acc;
  for (const Frame& f : frames_of(sse)) {
    if (api == Protocol::AnthropicMessages) {
      const json::Value* type = f.data.find("type");
      EXPECT_TRUE(type != nullptr && type->is_string() && type->as_string() == f.event) << f.event;
      if (f.event == "content_block_delta") {
        acc.text[f.data.find("index")->as_integer()] += f.data.find("delta")->find("text")->as_string();
      } else if (f.event == "weld.discard") {
        acc.discards.push_back(f.data);
      } else if (f.event == "message_stop") {
        acc.ended = true;
      }
      continue;
    }
    if (f.event == "[DONE]") {
      acc.ended = true;
      continue;
    }
    for (const json::Value& choice : f.data.find("choices")->as_array()) {
      const std::int64_t index = choice.find("index")->as_integer();
      if (const json::Value* content = choice.find("delta")->find("content")) acc.text[index] += content->as_string();
      if (const json::Value* reason = choice.find("finish_reason"); reason != nullptr && reason->is_string()) {
        acc.finish[index] = reason->as_string();
      }
      if (const json::Value* discard = choice.find("weld_discard")) acc.discards.push_back(*discard);
    }
  }
  return acc;
}

StreamHead head() {
  StreamHead h;
  h.model = "q__schema=router";
  h.created = 1700000000;
  return h;
}

constexpr std::string_view kAnswer = R"({ "route": "billing",
  "confidence": 0.90, "note": "caf\u00e9 \"bar\"" })";

// The answer as the model writes it, in small fragments.
std::vector<std::string_view> fragments(std::string_view text, std::size_t size = 5) {
  std::vector<std::string_view> out;
  for (std::size_t at = 0; at < text.size(); at += size) out.push_back(text.substr(at, size));
  return out;
}

std::string final_text(std::string_view answer) { return json::serialize(j(answer)); }

// Attempt `attempt` writing `text` in fragments: the frames it streams.
std::string stream_attempt(PartialStream& partial, int attempt, std::string_view text, std::size_t size = 5) {
  partial.start_attempt(attempt);
  std::string sse;
  for (std::string_view piece : fragments(text, size)) sse += partial.feed(piece);
  return sse;
}

TEST(PartialStream, AValidAnswerStreamsAsDeltasThatAddUpToTheFinalText) {
  for (Protocol api : {Protocol::AnthropicMessages, Protocol::OpenAiChat}) {
    PartialStream partial(api, head());
    partial.start_attempt(1);
    std::string sse;
    int sends = 0;
    for (std::string_view piece : fragments(kAnswer)) {
      std::string frames = partial.feed(piece);
      if (!frames.empty()) ++sends;
      sse += frames;
    }
    EXPECT_GT(sends, 5);
    EXPECT_TRUE(partial.started());
    sse += partial.finish(final_text(kAnswer), Usage{10, 20}, false);
    Accumulated acc = accumulate(api, sse);
    EXPECT_TRUE(acc.ended);
    EXPECT_TRUE(acc.discards.empty());
    ASSERT_EQ(acc.text.size(), 1u);
    EXPECT_EQ(acc.text[0], final_text(kAnswer));
    if (api == Protocol::OpenAiChat) EXPECT_EQ(acc.finish[0], "stop");
    // The reader weld uses for upstream streams accepts the whole stream.
    EXPECT_EQ(testing::read_stream(api, sse, "router").response.message.text, final_text(kAnswer));
  }
}

TEST(PartialStream, AnInvalidAttemptIsDiscardedAndTheNextStreamsInANewBlock) {
  for (Protocol api : {Protocol::AnthropicMessages, Protocol::OpenAiChat}) {
    PartialStream partial(api, head());
    std::string sse = stream_attempt(partial, 1, R"({"route": "nowhere", "confidence": 3})");
    sse += partial.discard("invalid", "params/route must be equal to one of the allowed values");
    EXPECT_EQ(partial.discard("invalid"), "") << "a second discard has nothing to void";
    sse += stream_attempt(partial, 2, kAnswer, 7);
    sse += partial.finish(final_text(kAnswer), Usage{10, 20}, false);
    Accumulated acc = accumulate(api, sse);
    EXPECT_TRUE(acc.ended);
    ASSERT_EQ(acc.discards.size(), 1u);
    EXPECT_EQ(json::serialize(acc.discards[0]),
              R"({"type":"weld.discard","index":0,"attempt":1,"reason":"invalid",)"
              R"("errors":"params/route must be equal to one of the allowed values"})");
    ASSERT_EQ(acc.text.size(), 2u);
    EXPECT_FALSE(json::parse(acc.text[0])) << "the voided block must not parse: " << acc.text[0];
    EXPECT_EQ(acc.text[0].rfind(R"({"route":"nowhere","confidence":3})", 0), 0u) << acc.text[0];
    EXPECT_EQ(acc.text[1], final_text(kAnswer));
    if (api == Protocol::OpenAiChat) {
      EXPECT_EQ(acc.finish[0], "weld_discarded");
      EXPECT_EQ(acc.finish[1], "stop");
    }
  }
}

TEST(PartialStream, ARepairedAnswerReplacesWhatWasStreamed) {
  for (Protocol api : {Protocol::AnthropicMessages, Protocol::OpenAiChat}) {
    PartialStream partial(api, head());
    std::string sse = stream_attempt(partial, 1, R"({"route":"billing","confidence":1.5})");
    const std::string clamped = R"({"route":"billing","confidence":1.0})";
    sse += partial.finish(clamped, Usage{1, 2}, true);
    Accumulated acc = accumulate(api, sse);
    ASSERT_EQ(acc.discards.size(), 1u);
    EXPECT_EQ(acc.discards[0].find("reason")->as_string(), "repaired");
    ASSERT_EQ(acc.text.size(), 2u);
    EXPECT_EQ(acc.text[1], clamped);
    EXPECT_FALSE(json::parse(acc.text[0]));
  }
}

TEST(PartialStream, TextTheCompactorCannotFollowIsSentWholeWithoutADiscard) {
  // A native answer in a Markdown fence: nothing could be streamed, so there
  // is nothing to void: the message carries the validated text once.
  PartialStream partial(Protocol::AnthropicMessages, head());
  partial.start_attempt(1);
  for (std::string_view piece : fragments("```json\n{\"route\":\"billing\"}\n```")) EXPECT_EQ(partial.feed(piece), "");
  EXPECT_FALSE(partial.started());
  std::string sse = partial.finish(R"({"route":"billing"})", Usage{1, 2}, true);
  Accumulated acc = accumulate(Protocol::AnthropicMessages, sse);
  EXPECT_TRUE(acc.discards.empty());
  ASSERT_EQ(acc.text.size(), 1u);
  EXPECT_EQ(acc.text[0], R"({"route":"billing"})");
}

TEST(PartialStream, AFailureVoidsTheBlockBeforeTheErrorFrame) {
  PartialStream partial(Protocol::OpenAiChat, head());
  partial.start_attempt(3);
  std::string sse = partial.feed(R"({"route": "bil)");
  sse += partial.discard("failed");
  Accumulated acc = accumulate(Protocol::OpenAiChat, sse);
  ASSERT_EQ(acc.discards.size(), 1u);
  EXPECT_EQ(json::serialize(acc.discards[0]), R"({"type":"weld.discard","index":0,"attempt":3,"reason":"failed"})");
  EXPECT_FALSE(acc.ended);
}

// Whatever the compactor had streamed when a block is voided, its text with
// the marker never parses, alone or followed by the next block's answer.
TEST(PartialStream, NoVoidedBlockParsesAtAnyCut) {
  const std::string answer = final_text(R"({"a":[1,{"b":"x\\ny"},true,null],"c":"d","e":{}})");
  for (std::string_view reason : {"invalid", "repaired", "reformatted", "failed"}) {
    for (std::size_t cut = 0; cut <= answer.size(); ++cut) {
      PartialStream partial(Protocol::AnthropicMessages, head());
      partial.start_attempt(1);
      std::string sse = partial.feed(std::string_view(answer).substr(0, cut));
      sse += partial.discard(reason);
      partial.start_attempt(2);
      sse += partial.finish(answer, Usage{}, false);
      Accumulated acc = accumulate(Protocol::AnthropicMessages, sse);
      if (acc.discards.empty()) continue;  // nothing was streamed yet
      EXPECT_FALSE(json::parse(acc.text[0])) << reason << " at " << cut << ": " << acc.text[0];
      EXPECT_FALSE(json::parse(acc.text[0] + acc.text[1])) << reason << " at " << cut;
      EXPECT_FALSE(json::parse(acc.text[0] + " " + acc.text[1])) << reason << " at " << cut;  // finalText() joins with ' '
      EXPECT_EQ(acc.text[1], answer);
    }
  }
}

TEST(PartialStream, IdsDifferBetweenStreams) {
  PartialStream a(Protocol::AnthropicMessages, head());
  PartialStream b(Protocol::AnthropicMessages, head());
  a.start_attempt(1);
  b.start_attempt(1);
  std::vector<Frame> fa = frames_of(a.feed("{"));
  std::vector<Frame> fb = frames_of(b.feed("{"));
  ASSERT_FALSE(fa.empty());
  ASSERT_FALSE(fb.empty());
  const std::string ida = fa[0].data.find("message")->find("id")->as_string();
  EXPECT_EQ(ida.rfind("msg_weld_", 0), 0u);
  EXPECT_NE(ida, fb[0].data.find("message")->find("id")->as_string());
}

}  // namespace
}  // namespace weld::proxy
