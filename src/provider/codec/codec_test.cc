// The shapes the run, the proxy and the batch used to write each their own
// way, decided once in the codecs (docs/protocols.md, "Codecs"): each test
// fails on the other choice.
#include <gtest/gtest.h>

#include "weld/json/parse.h"
#include "weld/json/serialize.h"
#include "weld/provider/codec.h"

namespace weld::provider {
namespace {

constexpr Protocol kAll[] = {Protocol::OpenAiChat, Protocol::AnthropicMessages, Protocol::OpenAiResponses,
                             Protocol::GeminiGenerateContent};

json::Value j(std::string_view text) { return *json::parse(text); }

Request request_with_tool(std::string description) {
  Request request;
  request.model = "m";
  request.messages.push_back(Message{Role::User, "hi", {}, {}});
  request.tools.push_back(ToolSpec{"pick", std::move(description), j(R"({"properties":{"a":{}}})")});
  request.forced_tool = "pick";
  return request;
}

TEST(Codec, AnEmptyToolDescriptionIsLeftOutInEveryProtocol) {
  for (Protocol protocol : kAll) {
    const std::string body = json::serialize(request_body(protocol, request_with_tool("")));
    EXPECT_EQ(body.find("description"), std::string::npos) << body;
    const std::string with = json::serialize(request_body(protocol, request_with_tool("Pick one.")));
    EXPECT_NE(with.find(R"("description":"Pick one.")"), std::string::npos) << with;
  }
}

TEST(Codec, EveryToolHasAnObjectRoot) {
  for (Protocol protocol : kAll) {
    const Codec& codec = codec_for(protocol);
    for (std::string_view schema : {"true", "{}", R"({"properties":{"a":{}}})"}) {
      const std::string tool = json::serialize(codec.tool(ToolSpec{"t", "", j(schema)}));
      EXPECT_NE(tool.find(R"({"type":"object")"), std::string::npos) << tool;
    }
    // A schema with its own type is sent as it is.
    const std::string own = json::serialize(codec.tool(ToolSpec{"t", "", j(R"({"type":"array"})")}));
    EXPECT_NE(own.find(R"({"type":"array"})"), std::string::npos) << own;
  }
}

TEST(Codec, TheNativeFormatCarriesTheDescriptionWhereTheProtocolHasAPlace) {
  ResponseFormat format;
  format.name = "router";
  format.schema = j(R"({"type":"object"})");
  format.description = "Route the ticket.";
  json::Value chat = json::Object{};
  codec_for(Protocol::OpenAiChat).set_native_format(chat, format);
  EXPECT_EQ(json::serialize(chat),
            R"({"response_format":{"type":"json_schema","json_schema":{"name":"router","description":"Route the ticket.",)"
            R"("schema":{"type":"object"},"strict":false}}})");
  json::Value responses = json::Object{{"text", json::Object{{"verbosity", "low"}}}};
  codec_for(Protocol::OpenAiResponses).set_native_format(responses, format);
  EXPECT_EQ(json::serialize(responses),
            R"({"text":{"verbosity":"low","format":{"type":"json_schema","name":"router",)"
            R"("description":"Route the ticket.","schema":{"type":"object"},"strict":false}}})");
  json::Value anthropic = json::Object{};
  codec_for(Protocol::AnthropicMessages).set_native_format(anthropic, format);
  EXPECT_EQ(json::serialize(anthropic),
            R"({"output_config":{"format":{"type":"json_schema","schema":{"type":"object"}}}})");
  // The run has no description: none is sent.
  Request request = request_with_tool("");
  request.tools.clear();
  request.forced_tool.reset();
  request.response_format = ResponseFormat{"structured_output", j(R"({"type":"object"})"), false};
  EXPECT_EQ(json::serialize(request_body(Protocol::OpenAiChat, request)).find("description"), std::string::npos);
}

TEST(Codec, AChatAnswerCarriesLogprobsNullAsOpenAIsDo) {
  AnswerHead head{"chatcmpl-1", "m", 7, false, 0};
  EXPECT_EQ(codec_for(Protocol::OpenAiChat).answer(head, "{}", Usage{1, 2}),
            R"({"id":"chatcmpl-1","object":"chat.completion","created":7,"model":"m","choices":[{"index":0,)"
            R"("message":{"role":"assistant","content":"{}"},"logprobs":null,"finish_reason":"stop"}],)"
            R"("usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}})");
}

// A tool-calling answer given back keeps the head's time (the upstream's
// `created`), whole and streamed, in the protocols that carry one.
TEST(Codec, APassBackCarriesTheHeadsCreated) {
  Response answer;
  answer.message.role = Role::Assistant;
  answer.message.tool_calls.push_back(ToolCall{"call_1", "bash", R"({"command":"ls"})"});
  const AnswerHead head{"id-1", "m", 1700000000, true, 0};
  for (Protocol protocol : {Protocol::OpenAiChat, Protocol::OpenAiResponses}) {
    const Codec& codec = codec_for(protocol);
    Result<Response> whole = codec.read_whole(codec.pass_back(head, answer, Usage{1, 2}));
    ASSERT_TRUE(whole.ok()) << whole.error().message;
    EXPECT_EQ(whole->created, 1700000000);
    auto reader = codec.reader();
    ASSERT_TRUE(reader->feed(codec.pass_back_stream(head, answer, Usage{1, 2})));
    Result<Response> streamed = reader->finish();
    ASSERT_TRUE(streamed.ok()) << streamed.error().message;
    EXPECT_EQ(streamed->created, 1700000000);
  }
}

TEST(Codec, EachAnswerReadsBackThroughTheSameCodec) {
  for (Protocol protocol : kAll) {
    const Codec& codec = codec_for(protocol);
    AnswerHead head{"id-1", "m", 7, true, 5};
    Result<Response> whole = codec.read_whole(j(codec.answer(head, "{\"a\":1}", Usage{5, 9})));
    ASSERT_TRUE(whole.ok()) << whole.error().message;
    EXPECT_EQ(whole->message.text, "{\"a\":1}");
    EXPECT_EQ(whole->usage.output_tokens, 9);
    auto reader = codec.reader();
    ASSERT_TRUE(reader->feed(codec.answer_stream_start(head) + codec.answer_stream_rest(head, "ok", Usage{5, 9})));
    Result<Response> streamed = reader->finish();
    ASSERT_TRUE(streamed.ok()) << streamed.error().message;
    EXPECT_EQ(streamed->message.text, "ok");
    EXPECT_EQ(streamed->usage.input_tokens, 5);
  }
}

TEST(Codec, ErrorBodiesAndFramesReadBackAsTheServersError) {
  for (Protocol protocol : kAll) {
    const Codec& codec = codec_for(protocol);
    Result<Response> whole = codec.read_whole(codec.error_body("api_error", "GPU on fire"));
    ASSERT_FALSE(whole.ok());
    EXPECT_NE(whole.error().message.find("GPU on fire"), std::string::npos) << whole.error().message;
    auto reader = codec.reader();
    Status fed = reader->feed(codec.answer_stream_start(AnswerHead{"id", "m", 0, false, 0}) +
                              codec.stream_error("api_error", "GPU on fire"));
    Result<Response> streamed = fed ? reader->finish() : Result<Response>(fed.error());
    ASSERT_FALSE(streamed.ok());
    EXPECT_NE(streamed.error().message.find("GPU on fire"), std::string::npos) << streamed.error().message;
  }
}

// The two-phase follow-up: the answer's own turn (only when it said
// something), then the ask as the user's message; a conversation the body
// does not have is not made up (Chat and Messages), or is made (Responses).
TEST(Codec, AFollowUpIsTheAnswersTurnThenTheAsk) {
  Response said;
  said.message.text = "Looks like a bug.";
  said.parts.push_back(Part{Part::Kind::Text, "Looks like a bug.", 0, {}});
  const Response silent;
  struct Case {
    Protocol protocol;
    const char* body;
    const char* said;
    const char* silent;
  };
  const Case cases[] = {
      {Protocol::OpenAiChat, R"({"messages":[]})",
       R"({"messages":[{"role":"assistant","content":"Looks like a bug."},{"role":"user","content":"Report."}]})",
       R"({"messages":[{"role":"user","content":"Report."}]})"},
      {Protocol::AnthropicMessages, R"({"messages":[]})",
       R"({"messages":[{"role":"assistant","content":[{"type":"text","text":"Looks like a bug."}]},)"
       R"({"role":"user","content":"Report."}]})",
       R"({"messages":[{"role":"user","content":"Report."}]})"},
      {Protocol::OpenAiResponses, R"({"input":"x"})",
       R"({"input":[{"role":"user","content":"x"},{"type":"message","role":"assistant","content":)"
       R"([{"type":"output_text","text":"Looks like a bug.","annotations":[]}]},{"role":"user","content":"Report."}]})",
       R"({"input":[{"role":"user","content":"x"},{"role":"user","content":"Report."}]})"},
      {Protocol::GeminiGenerateContent, R"({"contents":[]})",
       R"({"contents":[{"role":"model","parts":[{"text":"Looks like a bug."}]},{"role":"user","parts":[{"text":"Report."}]}]})",
       R"({"contents":[{"role":"user","parts":[{"text":"Report."}]}]})"},
  };
  for (const Case& c : cases) {
    const Codec& codec = codec_for(c.protocol);
    json::Value body = j(c.body);
    codec.append_follow_up(body, said, "Report.");
    EXPECT_EQ(json::serialize(body), c.said);
    body = j(c.body);
    codec.append_follow_up(body, silent, "Report.");
    EXPECT_EQ(json::serialize(body), c.silent);
  }
  for (Protocol protocol : {Protocol::OpenAiChat, Protocol::AnthropicMessages}) {
    json::Value body = j(R"({"model":"m"})");
    codec_for(protocol).append_follow_up(body, said, "Report.");
    EXPECT_EQ(json::serialize(body), R"({"model":"m"})");
  }
}

TEST(Codec, ThePathOfARequestNamesItsProtocol) {
  EXPECT_EQ(protocol_of_path("/v1/messages"), Protocol::AnthropicMessages);
  EXPECT_EQ(protocol_of_path("/v1/chat/completions"), Protocol::OpenAiChat);
  EXPECT_EQ(protocol_of_path("/openai/v1/responses"), Protocol::OpenAiResponses);
  EXPECT_EQ(protocol_of_path("/v1/messages/count_tokens"), std::nullopt);
  for (Protocol protocol : kAll) EXPECT_EQ(codec_for(protocol).protocol(), protocol);
}

}  // namespace
}  // namespace weld::provider
