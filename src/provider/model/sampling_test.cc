#include "weld/provider/sampling.h"

#include <gtest/gtest.h>

#include "weld/json/serialize.h"
#include "weld/provider/anthropic.h"
#include "weld/provider/openai.h"
#include "weld/provider/responses.h"

namespace weld::provider {
namespace {

Request with_sampling() {
  Request request;
  request.model = "m";
  request.messages.push_back(Message{Role::User, "q", {}, {}});
  request.max_tokens = 100;
  request.sampling.temperature = 0.0;
  request.sampling.top_p = 0.5;
  request.sampling.top_k = 40;
  request.sampling.seed = 7;
  request.sampling.stop = {"END"};
  request.sampling.presence_penalty = 0.25;
  request.sampling.frequency_penalty = 0.5;
  return request;
}

std::string field(const json::Value& body, std::string_view name) {
  const json::Value* value = body.find(name);
  return value == nullptr ? "-" : json::serialize(*value);
}

TEST(Sampling, EachProtocolSendsTheFieldsItHasUnderItsOwnNames) {
  const Request request = with_sampling();
  const json::Value chat = openai_request_body(request, openai_dialect_for("http://127.0.0.1:8000/v1"));
  EXPECT_EQ(field(chat, "max_tokens"), "100");
  EXPECT_EQ(field(chat, "temperature"), "0.0");
  EXPECT_EQ(field(chat, "top_p"), "0.5");
  EXPECT_EQ(field(chat, "top_k"), "40");
  EXPECT_EQ(field(chat, "seed"), "7");
  EXPECT_EQ(field(chat, "stop"), R"(["END"])");
  EXPECT_EQ(field(chat, "presence_penalty"), "0.25");
  EXPECT_EQ(field(chat, "frequency_penalty"), "0.5");
  // api.openai.com rejects top_k.
  const json::Value official = openai_request_body(request, openai_dialect_for("https://api.openai.com/v1"));
  EXPECT_EQ(field(official, "top_k"), "-");
  EXPECT_EQ(field(official, "max_completion_tokens"), "100");

  const json::Value messages = anthropic_request_body(request);
  EXPECT_EQ(field(messages, "max_tokens"), "100");
  EXPECT_EQ(field(messages, "top_k"), "40");
  EXPECT_EQ(field(messages, "stop_sequences"), R"(["END"])");
  for (const char* absent : {"seed", "stop", "presence_penalty", "frequency_penalty"})
    EXPECT_EQ(field(messages, absent), "-") << absent;

  const json::Value responses = responses_request_body(request);
  EXPECT_EQ(field(responses, "max_output_tokens"), "100");
  EXPECT_EQ(field(responses, "temperature"), "0.0");
  for (const char* absent : {"top_k", "seed", "stop", "presence_penalty"}) EXPECT_EQ(field(responses, absent), "-") << absent;
}

TEST(Sampling, UnsetFieldsAreNotSentAndTheUnsendableAreListed) {
  Request plain;
  plain.messages.push_back(Message{Role::User, "q", {}, {}});
  const json::Value chat = openai_request_body(plain);
  for (const char* absent : {"temperature", "top_p", "top_k", "seed", "stop"}) EXPECT_EQ(field(chat, absent), "-") << absent;
  const Sampling sampling = with_sampling().sampling;
  EXPECT_EQ(sampling_not_sent(sampling, sampling_names(Protocol::AnthropicMessages)),
            (std::vector<std::string>{"seed", "presence_penalty", "frequency_penalty"}));
  EXPECT_EQ(sampling_not_sent(sampling, sampling_names(Protocol::OpenAiChat)), std::vector<std::string>{"top_k"});
  EXPECT_TRUE(sampling_not_sent(sampling, sampling_names(Protocol::OpenAiChat, true)).empty());
}

TEST(Sampling, OverlayTakesTheSetFieldsOfTheSecond) {
  Sampling flags;
  flags.temperature = 0.7;
  flags.seed = 1;
  Sampling line;
  line.temperature = 0.0;
  line.stop = {"x"};
  const Sampling both = overlay(flags, line);
  EXPECT_EQ(both.temperature, 0.0);
  EXPECT_EQ(both.seed, 1);
  EXPECT_EQ(both.stop, std::vector<std::string>{"x"});
}

}  // namespace
}  // namespace weld::provider
