#include <gtest/gtest.h>

#include <initializer_list>

#include "test_util.h"
#include "weld/proxy/weld.h"

namespace weld::proxy {
namespace {

using testing::j;
using testing::s;

// Feeds events; returns the index of the first refused one, or -1.
int feed_all(StreamReader& reader, std::initializer_list<const char*> events) {
  int i = 0;
  for (const char* e : events) {
    if (!reader.feed(j(e))) return i;
    ++i;
  }
  return -1;
}

TEST(StreamReader, AnthropicToolUse) {
  StreamReader r(Api::Anthropic, "router");
  EXPECT_EQ(-1, feed_all(r, {
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
  }));
  EXPECT_FALSE(r.finished());
  EXPECT_TRUE(r.feed(j(R"({"type":"message_stop"})")));
  EXPECT_TRUE(r.finished());
  Candidate c = r.candidate();
  EXPECT_TRUE(c.found);
  EXPECT_EQ("toolu_7", c.tool_call_id);
  EXPECT_EQ(R"({"action": "refund"})", c.arguments);
  EXPECT_EQ("On it", c.text);
  EXPECT_EQ(25, c.usage.input_tokens);
  EXPECT_EQ(15, c.usage.output_tokens);
  EXPECT_EQ("msg_9", c.id);
  EXPECT_EQ("qwen", c.model);
  EXPECT_EQ(R"({"role":"assistant","content":[{"type":"text","text":"On it"},)"
            R"({"type":"tool_use","id":"toolu_7","name":"router","input":{"action":"refund"}}]})",
            s(c.assistant_message));
}

TEST(StreamReader, AnthropicSameCandidateAsWholeBody) {
  StreamReader r(Api::Anthropic, "router");
  EXPECT_EQ(-1, feed_all(r, {
      R"({"type":"message_start","message":{"id":"m","model":"x","usage":{"input_tokens":3,"output_tokens":0}}})",
      R"({"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"router","input":{}}})",
      R"({"type":"content_block_stop","index":0})",
      R"({"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"input_tokens":4,"output_tokens":5}})",
      R"({"type":"message_stop"})"}));
  Candidate streamed = r.candidate();
  Candidate whole = read_response(Api::Anthropic,
      j(R"({"id":"m","model":"x","content":[{"type":"tool_use","id":"t","name":"router","input":{}}],"usage":{"input_tokens":4,"output_tokens":5}})"),
      "router");
  EXPECT_EQ("{}", streamed.arguments);
  EXPECT_EQ(whole.arguments, streamed.arguments);
  EXPECT_EQ(s(whole.assistant_message), s(streamed.assistant_message));
  EXPECT_EQ(whole.usage.input_tokens, streamed.usage.input_tokens);
  EXPECT_EQ(whole.usage.output_tokens, streamed.usage.output_tokens);
}

TEST(StreamReader, AnthropicThinkingAndOtherTool) {
  StreamReader r(Api::Anthropic, "router");
  EXPECT_EQ(-1, feed_all(r, {
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
      R"({"type":"message_stop"})"}));
  Candidate c = r.candidate();
  EXPECT_FALSE(c.found);
  EXPECT_TRUE(c.has_other_tool_calls);
  EXPECT_EQ(R"({"role":"assistant","content":[{"type":"thinking","thinking":"ab","signature":"SIG"},)"
            R"({"type":"tool_use","id":"t","name":"Bash","input":{"command":"ls"}}]})",
            s(c.assistant_message));
}

TEST(StreamReader, AnthropicUnparseableInputKeptAsText) {
  StreamReader r(Api::Anthropic, "router");
  EXPECT_EQ(-1, feed_all(r, {
      R"({"type":"message_start","message":{}})",
      R"({"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"router","input":{}}})",
      R"({"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"action\": \"ref"}})"}));
  EXPECT_FALSE(r.finished());
  Candidate c = r.candidate();
  EXPECT_TRUE(c.found);
  EXPECT_EQ(R"({"action": "ref)", c.arguments);
  EXPECT_EQ(R"({"role":"assistant","content":[{"type":"tool_use","id":"t","name":"router","input":{}}]})",
            s(c.assistant_message));
}

TEST(StreamReader, AnthropicUpstreamErrorEvent) {
  StreamReader r(Api::Anthropic, "router");
  EXPECT_EQ(1, feed_all(r, {
      R"({"type":"message_start","message":{}})",
      R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})"}));
  EXPECT_EQ("upstream stream: upstream error: overloaded_error: Overloaded", r.error());
  EXPECT_FALSE(r.feed(j(R"({"type":"message_stop"})")));
  EXPECT_FALSE(r.finished());
}

struct Malformed {
  std::vector<const char*> events;
  const char* error;
};

TEST(StreamReader, AnthropicMalformedEvents) {
  const char* start = R"({"type":"message_start","message":{}})";
  const char* block = R"({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}})";
  std::vector<Malformed> cases = {
      {{"[1]"}, "upstream stream: event is not a JSON object"},
      {{R"({"x":1})"}, "upstream stream: event without a \"type\""},
      {{R"({"type":"content_block_start","index":0,"content_block":{"type":"text"}})"},
       "upstream stream: \"content_block_start\" before message_start"},
      {{start, start}, "upstream stream: second message_start"},
      {{R"({"type":"message_start"})"}, "upstream stream: message_start without a \"message\" object"},
      {{start, R"({"type":"content_block_start","index":"0","content_block":{"type":"text"}})"},
       "upstream stream: content_block_start without an integer \"index\""},
      {{start, R"({"type":"content_block_start","index":0})"},
       "upstream stream: content_block_start without a \"content_block\" object"},
      {{start, R"({"type":"content_block_start","index":0,"content_block":{}})"},
       "upstream stream: content_block_start block without a \"type\""},
      {{start, block, block}, "upstream stream: second content_block_start for index 0"},
      {{start, R"({"type":"content_block_delta","index":3,"delta":{"type":"text_delta","text":"x"}})"},
       "upstream stream: content_block_delta for unknown block index 3"},
      {{start, block, R"({"type":"content_block_delta","index":0})"},
       "upstream stream: content_block_delta without a \"delta\" object"},
      {{start, block, R"({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":5}})"},
       "upstream stream: text_delta without a string \"text\""},
      {{start, block, R"({"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{"}})"},
       "upstream stream: input_json_delta for a text block"},
      {{start, R"({"type":"content_block_stop","index":1})"},
       "upstream stream: content_block_stop for unknown block index 1"},
      {{start, R"({"type":"message_stop"})", R"({"type":"message_delta"})"},
       "upstream stream: event \"message_delta\" after message_stop"},
  };
  for (const Malformed& m : cases) {
    StreamReader r(Api::Anthropic, "router");
    bool ok = true;
    for (const char* e : m.events) ok = r.feed(j(e));
    EXPECT_FALSE(ok) << m.error;
    EXPECT_EQ(m.error, r.error());
  }
}

TEST(StreamReader, OpenAIToolCallFragments) {
  StreamReader r(Api::OpenAI, "router");
  EXPECT_EQ(-1, feed_all(r, {
      R"({"id":"chatcmpl-5","object":"chat.completion.chunk","created":1700000001,"model":"qwen","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]})",
      R"({"id":"chatcmpl-5","object":"chat.completion.chunk","created":1700000001,"model":"qwen","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"router","arguments":""}}]},"finish_reason":null}]})",
      R"({"id":"chatcmpl-5","object":"chat.completion.chunk","created":1700000001,"model":"qwen","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"action\":"}}]},"finish_reason":null}]})",
      R"({"id":"chatcmpl-5","object":"chat.completion.chunk","created":1700000001,"model":"qwen","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":" \"search\"}"}}]},"finish_reason":null}]})",
  }));
  EXPECT_FALSE(r.finished());
  EXPECT_TRUE(r.feed(j(R"({"id":"chatcmpl-5","object":"chat.completion.chunk","created":1700000001,"model":"qwen","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]})")));
  EXPECT_TRUE(r.finished());
  EXPECT_TRUE(r.feed(j(R"({"id":"chatcmpl-5","object":"chat.completion.chunk","created":1700000001,"model":"qwen","choices":[],"usage":{"prompt_tokens":40,"completion_tokens":11,"total_tokens":51}})")));
  Candidate c = r.candidate();
  EXPECT_TRUE(c.found);
  EXPECT_EQ("call_a", c.tool_call_id);
  EXPECT_EQ(R"({"action": "search"})", c.arguments);
  EXPECT_EQ("", c.text);
  EXPECT_EQ(40, c.usage.input_tokens);
  EXPECT_EQ(11, c.usage.output_tokens);
  EXPECT_EQ("chatcmpl-5", c.id);
  EXPECT_EQ("qwen", c.model);
  EXPECT_EQ(1700000001, c.created);
  EXPECT_EQ(R"({"role":"assistant","content":"","tool_calls":[{"id":"call_a","type":"function","function":{"name":"router","arguments":"{\"action\": \"search\"}"}}]})",
            s(c.assistant_message));
}

TEST(StreamReader, OpenAISeveralCallsAndServersWithoutIndex) {
  StreamReader r(Api::OpenAI, "router");
  EXPECT_EQ(-1, feed_all(r, {
      R"({"choices":[{"index":0,"delta":{"content":"Checking. "}}]})",
      R"({"choices":[{"index":0,"delta":{"tool_calls":[{"id":"c1","function":{"name":"get_weather","arguments":"{}"}}]}}]})",
      R"({"choices":[{"index":0,"delta":{"tool_calls":[{"id":"c2","function":{"name":"router","arguments":"{\"action\""}}]}}]})",
      R"({"choices":[{"index":0,"delta":{"tool_calls":[{"function":{"arguments":":\"refund\"}"}}]}}]})",
      R"({"choices":[{"index":1,"delta":{"content":"other choice ignored"}}]})",
      R"({"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]})"}));
  Candidate c = r.candidate();
  EXPECT_TRUE(c.found);
  EXPECT_TRUE(c.has_other_tool_calls);
  EXPECT_EQ("c2", c.tool_call_id);
  EXPECT_EQ(R"({"action":"refund"})", c.arguments);
  EXPECT_EQ("Checking. ", c.text);
}

TEST(StreamReader, OpenAINameRepeatedInEveryFragmentIsNotDoubled) {
  StreamReader r(Api::OpenAI, "router");
  EXPECT_EQ(-1, feed_all(r, {
      R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"router","arguments":"{"}}]}}]})",
      R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"router","arguments":"}"}}]}}]})",
      R"({"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":null})"}));
  Candidate c = r.candidate();
  EXPECT_TRUE(c.found);
  EXPECT_EQ("{}", c.arguments);
}

TEST(StreamReader, OpenAIErrorChunkAndMalformed) {
  std::vector<Malformed> cases = {
      {{R"({"error":{"message":"model overloaded","type":"server_error"}})"},
       "upstream stream: upstream error: server_error: model overloaded"},
      {{"\"text\""}, "upstream stream: event is not a JSON object"},
      {{R"({"choices":{}})"}, "upstream stream: \"choices\" is not an array"},
      {{R"({"choices":[3]})"}, "upstream stream: a choice is not an object"},
      {{R"({"choices":[{"delta":"x"}]})"}, "upstream stream: \"delta\" is not an object"},
      {{R"({"choices":[{"delta":{"content":7}}]})"}, "upstream stream: \"delta.content\" is not a string"},
      {{R"({"choices":[{"delta":{"tool_calls":{}}}]})"}, "upstream stream: \"delta.tool_calls\" is not an array"},
      {{R"({"choices":[{"delta":{"tool_calls":[1]}}]})"}, "upstream stream: tool_calls entry is not an object"},
      {{R"({"choices":[{"delta":{"tool_calls":[{"index":"0"}]}}]})"},
       "upstream stream: tool_calls entry with a non-integer \"index\""},
      {{R"({"choices":[{"delta":{"tool_calls":[{"index":0,"function":[]}]}}]})"},
       "upstream stream: tool_calls entry with a non-object \"function\""},
      {{R"({"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"name":1}}]}}]})"},
       "upstream stream: tool call \"name\" is not a string"},
      {{R"({"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":[1]}}]}}]})"},
       "upstream stream: tool call \"arguments\" is not a string"},
      {{R"({"choices":[{"delta":{},"finish_reason":1}]})"}, "upstream stream: \"finish_reason\" is not a string"},
  };
  for (const Malformed& m : cases) {
    StreamReader r(Api::OpenAI, "router");
    bool ok = true;
    for (const char* e : m.events) ok = r.feed(j(e));
    EXPECT_FALSE(ok) << m.error;
    EXPECT_EQ(m.error, r.error());
  }
}

TEST(StreamReader, OpenAITextOnlyAnswer) {
  StreamReader r(Api::OpenAI, "router");
  EXPECT_EQ(-1, feed_all(r, {
      R"({"choices":[{"index":0,"delta":{"role":"assistant","content":"{\"a\""},"finish_reason":null}]})",
      R"({"choices":[{"index":0,"delta":{"content":":1}"},"finish_reason":"stop"}]})"}));
  EXPECT_TRUE(r.finished());
  Candidate c = r.candidate();
  EXPECT_FALSE(c.found);
  EXPECT_EQ(R"({"a":1})", c.text);
  EXPECT_EQ(R"({"role":"assistant","content":"{\"a\":1}"})", s(c.assistant_message));
}

}  // namespace
}  // namespace weld::proxy
