// The candidate the proxy takes from an upstream answer, read by the
// provider's reader of the API's protocol (streamed or whole): the answer
// kept whole, the agent's call found in it, and the assistant turn the codec
// gives back from it.
#include <gtest/gtest.h>

#include <initializer_list>

#include "test_util.h"
#include "weld/proxy/weld.h"

namespace weld::proxy {
namespace {

using testing::j;
using testing::s;

Candidate whole(Protocol api, std::string_view body) {
  Result<provider::Response> response = provider::response_from_json(api, j(body));
  EXPECT_TRUE(response.ok()) << (response.ok() ? "" : response.error().message);
  return response.ok() ? make_candidate(std::move(*response), "router") : Candidate{};
}

// Each event as one SSE `data:` event; the stream then ends.
Candidate streamed(Protocol api, std::initializer_list<const char*> events) {
  auto reader = provider::make_stream_parser(api);
  for (const char* event : events) {
    Status st = reader->feed("data: " + std::string(event) + "\n\n");
    EXPECT_TRUE(st.ok()) << (st.ok() ? "" : st.error().message);
  }
  Result<provider::Response> response = reader->finish();
  EXPECT_TRUE(response.ok()) << (response.ok() ? "" : response.error().message);
  return response.ok() ? make_candidate(std::move(*response), "router") : Candidate{};
}

// The assistant turn the codec of `api` rebuilds from the candidate's answer
// (the retry turn, the follow-up and the pass-back send it).
std::string turn(Protocol api, const Candidate& c) { return s(provider::codec_for(api).assistant_turn(c.response)); }

TEST(Candidate, AnthropicToolUseByBlockInModelKeyOrder) {
  // stop_reason says end_turn (as some servers do): the block decides.
  Candidate c = whole(Protocol::AnthropicMessages, R"({"id":"msg_1","type":"message","role":"assistant","model":"qwen",
    "content":[{"type":"text","text":"Sure."},
               {"type":"tool_use","id":"toolu_1","name":"router","input":{"reason":"r","action":"refund"}}],
    "stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":12,"output_tokens":7}})");
  ASSERT_NE(nullptr, c.call());
  EXPECT_EQ("toolu_1", c.call()->id);
  EXPECT_EQ(R"({"reason":"r","action":"refund"})", c.call()->arguments);
  EXPECT_FALSE(c.has_other_tool_calls());
  EXPECT_EQ("Sure.", c.response.message.text);
  EXPECT_EQ(12, c.response.usage.input_tokens);
  EXPECT_EQ(7, c.response.usage.output_tokens);
  EXPECT_EQ("msg_1", c.response.id);
  EXPECT_EQ("qwen", c.response.model);
  EXPECT_EQ(R"({"role":"assistant","content":[{"type":"text","text":"Sure."},)"
            R"({"type":"tool_use","id":"toolu_1","name":"router","input":{"reason":"r","action":"refund"}}]})",
            turn(Protocol::AnthropicMessages, c));
}

TEST(Candidate, AnthropicOtherToolsAndThinkingKept) {
  Candidate c = whole(Protocol::AnthropicMessages, R"({"id":"msg_2","model":"m","content":[
    {"type":"thinking","thinking":"hmm","signature":"sig"},
    {"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}],
    "stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":2}})");
  EXPECT_FALSE(c.agent_call.has_value());
  EXPECT_TRUE(c.has_other_tool_calls());
  EXPECT_EQ(nullptr, c.call());
  EXPECT_EQ(R"({"role":"assistant","content":[{"type":"thinking","thinking":"hmm","signature":"sig"},)"
            R"({"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]})",
            turn(Protocol::AnthropicMessages, c));
}

TEST(Candidate, AnthropicStringInputAndMissingId) {
  Candidate c = whole(Protocol::AnthropicMessages, R"({"content":[{"type":"tool_use","name":"router","input":"{\"action\":'x'}"}]})");
  ASSERT_NE(nullptr, c.call());
  EXPECT_EQ("toolu_weld_1", c.call()->id);
  EXPECT_EQ(R"({"action":'x'})", c.call()->arguments);
  // The assistant message always carries an object input.
  EXPECT_EQ(R"({"role":"assistant","content":[{"type":"tool_use","id":"toolu_weld_1","name":"router","input":{}}]})",
            turn(Protocol::AnthropicMessages, c));
}

TEST(Candidate, AnthropicFirstCallOfAgentWins) {
  Candidate c = whole(Protocol::AnthropicMessages, R"({"content":[
    {"type":"tool_use","id":"a","name":"router","input":{"action":"search"}},
    {"type":"tool_use","id":"b","name":"router","input":{"action":"refund"}}]})");
  ASSERT_EQ(0u, c.agent_call);
  EXPECT_EQ("a", c.call()->id);
  EXPECT_EQ(R"({"action":"search"})", c.call()->arguments);
  EXPECT_FALSE(c.has_other_tool_calls());
}

TEST(Candidate, AnthropicStreamedToolUse) {
  Candidate c = streamed(Protocol::AnthropicMessages, {
      R"({"type":"message_start","message":{"id":"msg_9","type":"message","role":"assistant","model":"qwen","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"output_tokens":1}}})",
      R"({"type":"ping"})",
      R"({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}})",
      R"({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"On it"}})",
      R"({"type":"content_block_stop","index":0})",
      R"({"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_7","name":"router","input":{}}})",
      R"({"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}})",
      R"({"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"action\": \"re"}})",
      R"({"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"fund\"}"}})",
      R"({"type":"content_block_stop","index":1})",
      R"({"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":15}})",
      R"({"type":"message_stop"})"});
  ASSERT_NE(nullptr, c.call());
  EXPECT_EQ("toolu_7", c.call()->id);
  EXPECT_EQ(R"({"action": "refund"})", c.call()->arguments);
  EXPECT_EQ("On it", c.response.message.text);
  EXPECT_EQ(25, c.response.usage.input_tokens);
  EXPECT_EQ(15, c.response.usage.output_tokens);
  EXPECT_EQ("msg_9", c.response.id);
  EXPECT_EQ("qwen", c.response.model);
  EXPECT_EQ(R"({"role":"assistant","content":[{"type":"text","text":"On it"},)"
            R"({"type":"tool_use","id":"toolu_7","name":"router","input":{"action":"refund"}}]})",
            turn(Protocol::AnthropicMessages, c));
}

TEST(Candidate, AnthropicStreamedSameAsWholeBody) {
  Candidate stream = streamed(Protocol::AnthropicMessages, {
      R"({"type":"message_start","message":{"id":"m","model":"x","usage":{"input_tokens":3,"output_tokens":0}}})",
      R"({"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"router","input":{}}})",
      R"({"type":"content_block_stop","index":0})",
      R"({"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"input_tokens":4,"output_tokens":5}})",
      R"({"type":"message_stop"})"});
  Candidate body = whole(Protocol::AnthropicMessages,
      R"({"id":"m","model":"x","content":[{"type":"tool_use","id":"t","name":"router","input":{}}],"usage":{"input_tokens":4,"output_tokens":5}})");
  EXPECT_EQ(turn(Protocol::AnthropicMessages, body), turn(Protocol::AnthropicMessages, stream));
  EXPECT_EQ(body.response.usage.input_tokens, stream.response.usage.input_tokens);
  EXPECT_EQ(body.response.usage.output_tokens, stream.response.usage.output_tokens);
  ASSERT_NE(nullptr, stream.call());
}

TEST(Candidate, AnthropicStreamedThinkingKeptWithItsDeltas) {
  Candidate c = streamed(Protocol::AnthropicMessages, {
      R"({"type":"message_start","message":{"id":"m","model":"x"}})",
      R"({"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}})",
      R"({"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"a"}})",
      R"({"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"b"}})",
      R"({"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"SIG"}})",
      R"({"type":"content_block_stop","index":0})",
      R"({"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t","name":"Bash","input":{}}})",
      R"({"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"command\":\"ls\"}"}})",
      R"({"type":"content_block_stop","index":1})",
      R"({"type":"some_future_event","x":1})",
      R"({"type":"message_stop"})"});
  EXPECT_FALSE(c.agent_call.has_value());
  EXPECT_TRUE(c.has_other_tool_calls());
  EXPECT_EQ(R"({"role":"assistant","content":[{"type":"thinking","thinking":"ab","signature":"SIG"},)"
            R"({"type":"tool_use","id":"t","name":"Bash","input":{"command":"ls"}}]})",
            turn(Protocol::AnthropicMessages, c));
}

TEST(Candidate, OpenAIToolCallByBlock) {
  Candidate c = whole(Protocol::OpenAiChat, R"({"id":"chatcmpl-1","object":"chat.completion","created":1700000000,"model":"qwen",
    "choices":[{"index":0,"message":{"role":"assistant","content":null,"reasoning_content":"x",
      "tool_calls":[{"id":"call_1","type":"function","function":{"name":"router","arguments":"{\"b\": 1, \"a\": 2}"}}]},
      "finish_reason":"stop"}],
    "usage":{"prompt_tokens":30,"completion_tokens":9,"total_tokens":39}})");
  ASSERT_NE(nullptr, c.call());
  EXPECT_EQ("call_1", c.call()->id);
  EXPECT_EQ(R"({"b": 1, "a": 2})", c.call()->arguments);  // the text as produced
  EXPECT_EQ("", c.response.message.text);
  EXPECT_EQ(30, c.response.usage.input_tokens);
  EXPECT_EQ(9, c.response.usage.output_tokens);
  EXPECT_EQ("chatcmpl-1", c.response.id);
  EXPECT_EQ("qwen", c.response.model);
  EXPECT_EQ(1700000000, c.response.created);
  EXPECT_EQ(R"({"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function",)"
            R"("function":{"name":"router","arguments":"{\"b\": 1, \"a\": 2}"}}]})",
            turn(Protocol::OpenAiChat, c));
}

TEST(Candidate, OpenAIOtherToolsTextAndObjectArguments) {
  Candidate c = whole(Protocol::OpenAiChat, R"({"choices":[{"message":{"role":"assistant","content":"Let me check.",
    "tool_calls":[{"id":"c1","type":"function","function":{"name":"get_weather","arguments":"{}"}},
                  {"type":"function","function":{"name":"router","arguments":{"action":"search"}}}]}}]})");
  ASSERT_NE(nullptr, c.call());
  EXPECT_TRUE(c.has_other_tool_calls());
  EXPECT_EQ(1u, c.agent_call);
  EXPECT_EQ("call_weld_2", c.call()->id);
  EXPECT_EQ(R"({"action":"search"})", c.call()->arguments);
  EXPECT_EQ("Let me check.", c.response.message.text);
  EXPECT_EQ(R"({"role":"assistant","content":"Let me check.","tool_calls":[)"
            R"({"id":"c1","type":"function","function":{"name":"get_weather","arguments":"{}"}},)"
            R"({"id":"call_weld_2","type":"function","function":{"name":"router","arguments":"{\"action\":\"search\"}"}}]})",
            turn(Protocol::OpenAiChat, c));
}

TEST(Candidate, OpenAIContentPartsAndNoCall) {
  Candidate c = whole(Protocol::OpenAiChat, R"({"choices":[{"message":{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]},"finish_reason":"tool_calls"}]})");
  EXPECT_FALSE(c.agent_call.has_value());
  EXPECT_EQ("ab", c.response.message.text);
  EXPECT_EQ(R"({"role":"assistant","content":"ab"})", turn(Protocol::OpenAiChat, c));
}

TEST(Candidate, OpenAIStreamedToolCallFragments) {
  Candidate c = streamed(Protocol::OpenAiChat, {
      R"({"id":"chatcmpl-5","object":"chat.completion.chunk","created":1700000001,"model":"qwen","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]})",
      R"({"id":"chatcmpl-5","object":"chat.completion.chunk","created":1700000001,"model":"qwen","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"router","arguments":""}}]},"finish_reason":null}]})",
      R"({"id":"chatcmpl-5","object":"chat.completion.chunk","created":1700000001,"model":"qwen","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"action\":"}}]},"finish_reason":null}]})",
      R"({"id":"chatcmpl-5","object":"chat.completion.chunk","created":1700000001,"model":"qwen","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":" \"search\"}"}}]},"finish_reason":null}]})",
      R"({"id":"chatcmpl-5","object":"chat.completion.chunk","created":1700000001,"model":"qwen","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]})",
      R"({"id":"chatcmpl-5","object":"chat.completion.chunk","created":1700000001,"model":"qwen","choices":[],"usage":{"prompt_tokens":40,"completion_tokens":11,"total_tokens":51}})",
      "[DONE]"});
  ASSERT_NE(nullptr, c.call());
  EXPECT_EQ("call_a", c.call()->id);
  EXPECT_EQ(R"({"action": "search"})", c.call()->arguments);
  EXPECT_EQ("", c.response.message.text);
  EXPECT_EQ(40, c.response.usage.input_tokens);
  EXPECT_EQ(11, c.response.usage.output_tokens);
  EXPECT_EQ("chatcmpl-5", c.response.id);
  EXPECT_EQ("qwen", c.response.model);
  EXPECT_EQ(1700000001, c.response.created);
  EXPECT_EQ(R"({"role":"assistant","content":"","tool_calls":[{"id":"call_a","type":"function","function":{"name":"router","arguments":"{\"action\": \"search\"}"}}]})",
            turn(Protocol::OpenAiChat, c));
}

TEST(Candidate, OpenAIStreamedSeveralCallsAndServersWithoutIndex) {
  Candidate c = streamed(Protocol::OpenAiChat, {
      R"({"choices":[{"index":0,"delta":{"content":"Checking. "}}]})",
      R"({"choices":[{"index":0,"delta":{"tool_calls":[{"id":"c1","function":{"name":"get_weather","arguments":"{}"}}]}}]})",
      R"({"choices":[{"index":0,"delta":{"tool_calls":[{"id":"c2","function":{"name":"router","arguments":"{\"action\""}}]}}]})",
      R"({"choices":[{"index":0,"delta":{"tool_calls":[{"function":{"arguments":":\"refund\"}"}}]}}]})",
      R"({"choices":[{"index":1,"delta":{"content":"other choice ignored"}}]})",
      R"({"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]})"});
  ASSERT_NE(nullptr, c.call());
  EXPECT_TRUE(c.has_other_tool_calls());
  EXPECT_EQ("c2", c.call()->id);
  EXPECT_EQ(R"({"action":"refund"})", c.call()->arguments);
  EXPECT_EQ("Checking. ", c.response.message.text);
}

TEST(Candidate, OpenAIStreamedTextOnlyAnswer) {
  Candidate c = streamed(Protocol::OpenAiChat, {
      R"({"choices":[{"index":0,"delta":{"role":"assistant","content":"{\"a\""},"finish_reason":null}]})",
      R"({"choices":[{"index":0,"delta":{"content":":1}"},"finish_reason":"stop"}]})"});
  EXPECT_FALSE(c.agent_call.has_value());
  EXPECT_EQ(R"({"a":1})", c.response.message.text);
  EXPECT_EQ(R"({"role":"assistant","content":"{\"a\":1}"})", turn(Protocol::OpenAiChat, c));
}

// Decided once for the run and the proxy (docs/protocols.md, "How an answer is judged"):
// the proxy used to drop `delta.refusal`, so a refusing model's words never
// reached the client's error.
TEST(Candidate, OpenAIRefusalIsKeptAsTheAnswerText) {
  Candidate c = streamed(Protocol::OpenAiChat, {
      R"({"choices":[{"index":0,"delta":{"role":"assistant","content":null,"refusal":"I can't "}}]})",
      R"({"choices":[{"index":0,"delta":{"refusal":"help with that."},"finish_reason":"stop"}]})",
      "[DONE]"});
  EXPECT_FALSE(c.agent_call.has_value());
  EXPECT_EQ("I can't help with that.", c.response.message.text);
  EXPECT_EQ(R"({"role":"assistant","content":"I can't help with that."})", turn(Protocol::OpenAiChat, c));
}

TEST(Candidate, ErrorBodiesAndJunkAreErrorsNotCandidates) {
  EXPECT_EQ("the server answered with an error: boom",
            provider::response_from_json(Protocol::OpenAiChat, j(R"({"error":{"message":"boom"}})")).error().message);
  EXPECT_EQ("the server answered with an error: boom",
            provider::response_from_json(Protocol::AnthropicMessages,
                                         j(R"({"type":"error","error":{"type":"api_error","message":"boom"}})"))
                .error()
                .message);
  for (const char* text : {"[]", "null", R"({"choices":"x","content":7})"}) {
    for (Protocol api : {Protocol::AnthropicMessages, Protocol::OpenAiChat}) {
      EXPECT_FALSE(provider::response_from_json(api, j(text)).ok()) << text;
    }
  }
  // Ill-typed members are ignored, as the SDKs ignore them.
  Candidate c = whole(Protocol::OpenAiChat, R"({"choices":[{"message":[]}],"usage":{"prompt_tokens":"x"}})");
  EXPECT_FALSE(c.agent_call.has_value());
  EXPECT_EQ(0, c.response.usage.input_tokens);
}

}  // namespace
}  // namespace weld::proxy
