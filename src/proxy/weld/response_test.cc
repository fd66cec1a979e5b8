#include <gtest/gtest.h>

#include "test_util.h"
#include "weld/proxy/weld.h"

namespace weld::proxy {
namespace {

using testing::j;
using testing::s;

TEST(ReadResponse, AnthropicToolUseByBlockInModelKeyOrder) {
  // stop_reason says end_turn (as some servers do): the block decides.
  json::Value body = j(R"({"id":"msg_1","type":"message","role":"assistant","model":"qwen",
    "content":[{"type":"text","text":"Sure."},
               {"type":"tool_use","id":"toolu_1","name":"router","input":{"reason":"r","action":"refund"}}],
    "stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":12,"output_tokens":7}})");
  Candidate c = read_response(Api::Anthropic, body, "router");
  EXPECT_TRUE(c.found);
  EXPECT_EQ("toolu_1", c.tool_call_id);
  EXPECT_EQ(R"({"reason":"r","action":"refund"})", c.arguments);
  EXPECT_FALSE(c.has_other_tool_calls);
  EXPECT_EQ("Sure.", c.text);
  EXPECT_EQ(12, c.usage.input_tokens);
  EXPECT_EQ(7, c.usage.output_tokens);
  EXPECT_EQ("msg_1", c.id);
  EXPECT_EQ("qwen", c.model);
  EXPECT_EQ(R"({"role":"assistant","content":[{"type":"text","text":"Sure."},)"
            R"({"type":"tool_use","id":"toolu_1","name":"router","input":{"reason":"r","action":"refund"}}]})",
            s(c.assistant_message));
}

TEST(ReadResponse, AnthropicOtherToolsAndThinkingKept) {
  json::Value body = j(R"({"id":"msg_2","model":"m","content":[
    {"type":"thinking","thinking":"hmm","signature":"sig"},
    {"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}],
    "stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":2}})");
  Candidate c = read_response(Api::Anthropic, body, "router");
  EXPECT_FALSE(c.found);
  EXPECT_TRUE(c.has_other_tool_calls);
  EXPECT_EQ("", c.arguments);
  EXPECT_EQ(R"({"role":"assistant","content":[{"type":"thinking","thinking":"hmm","signature":"sig"},)"
            R"({"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]})",
            s(c.assistant_message));
}

TEST(ReadResponse, AnthropicTextOnlyIsNotFound) {
  json::Value body = j(R"({"id":"m","content":[{"type":"text","text":"{\"action\":\"refund\"}"}],"stop_reason":"tool_use"})");
  Candidate c = read_response(Api::Anthropic, body, "router");
  EXPECT_FALSE(c.found);
  EXPECT_EQ(R"({"action":"refund"})", c.text);
}

TEST(ReadResponse, AnthropicStringInputAndMissingId) {
  json::Value body = j(R"({"content":[{"type":"tool_use","name":"router","input":"{\"action\":'x'}"}]})");
  Candidate c = read_response(Api::Anthropic, body, "router");
  EXPECT_TRUE(c.found);
  EXPECT_EQ("toolu_weld_0", c.tool_call_id);
  EXPECT_EQ(R"({"action":'x'})", c.arguments);
  // The assistant message always carries an object input.
  EXPECT_EQ(R"({"role":"assistant","content":[{"type":"tool_use","id":"toolu_weld_0","name":"router","input":{}}]})",
            s(c.assistant_message));
}

TEST(ReadResponse, AnthropicFirstCallOfAgentWins) {
  json::Value body = j(R"({"content":[
    {"type":"tool_use","id":"a","name":"router","input":{"action":"search"}},
    {"type":"tool_use","id":"b","name":"router","input":{"action":"refund"}}]})");
  Candidate c = read_response(Api::Anthropic, body, "router");
  EXPECT_EQ("a", c.tool_call_id);
  EXPECT_EQ(R"({"action":"search"})", c.arguments);
  EXPECT_FALSE(c.has_other_tool_calls);
}

TEST(ReadResponse, OpenAIToolCallByBlock) {
  json::Value body = j(R"({"id":"chatcmpl-1","object":"chat.completion","created":1700000000,"model":"qwen",
    "choices":[{"index":0,"message":{"role":"assistant","content":null,"reasoning_content":"x",
      "tool_calls":[{"id":"call_1","type":"function","function":{"name":"router","arguments":"{\"b\": 1, \"a\": 2}"}}]},
      "finish_reason":"stop"}],
    "usage":{"prompt_tokens":30,"completion_tokens":9,"total_tokens":39}})");
  Candidate c = read_response(Api::OpenAI, body, "router");
  EXPECT_TRUE(c.found);
  EXPECT_EQ("call_1", c.tool_call_id);
  EXPECT_EQ(R"({"b": 1, "a": 2})", c.arguments);  // the text as produced
  EXPECT_EQ("", c.text);
  EXPECT_EQ(30, c.usage.input_tokens);
  EXPECT_EQ(9, c.usage.output_tokens);
  EXPECT_EQ("chatcmpl-1", c.id);
  EXPECT_EQ("qwen", c.model);
  EXPECT_EQ(1700000000, c.created);
  EXPECT_EQ(R"({"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function",)"
            R"("function":{"name":"router","arguments":"{\"b\": 1, \"a\": 2}"}}]})",
            s(c.assistant_message));
}

TEST(ReadResponse, OpenAIOtherToolsTextAndObjectArguments) {
  json::Value body = j(R"({"choices":[{"message":{"role":"assistant","content":"Let me check.",
    "tool_calls":[{"id":"c1","type":"function","function":{"name":"get_weather","arguments":"{}"}},
                  {"type":"function","function":{"name":"router","arguments":{"action":"search"}}}]}}]})");
  Candidate c = read_response(Api::OpenAI, body, "router");
  EXPECT_TRUE(c.found);
  EXPECT_TRUE(c.has_other_tool_calls);
  EXPECT_EQ("call_weld_1", c.tool_call_id);
  EXPECT_EQ(R"({"action":"search"})", c.arguments);
  EXPECT_EQ("Let me check.", c.text);
  EXPECT_EQ(R"({"role":"assistant","content":"Let me check.","tool_calls":[)"
            R"({"id":"c1","type":"function","function":{"name":"get_weather","arguments":"{}"}},)"
            R"({"id":"call_weld_1","type":"function","function":{"name":"router","arguments":"{\"action\":\"search\"}"}}]})",
            s(c.assistant_message));
}

TEST(ReadResponse, OpenAIContentPartsAndNoCall) {
  json::Value body = j(R"({"choices":[{"message":{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]},"finish_reason":"tool_calls"}]})");
  Candidate c = read_response(Api::OpenAI, body, "router");
  EXPECT_FALSE(c.found);
  EXPECT_EQ("ab", c.text);
  EXPECT_EQ(R"({"role":"assistant","content":"ab"})", s(c.assistant_message));
}

TEST(ReadResponse, ErrorBodiesAndJunkAreNotFound) {
  for (const char* text : {R"({"error":{"message":"boom"}})", "[]", "null", R"({"choices":"x","content":7})",
                           R"({"choices":[1,{"message":[]}],"content":[1,{"type":5}]})",
                           R"({"usage":{"input_tokens":"x","prompt_tokens":1.5}})"}) {
    for (Api api : {Api::Anthropic, Api::OpenAI}) {
      Candidate c = read_response(api, j(text), "router");
      EXPECT_FALSE(c.found) << text;
      EXPECT_EQ("", c.text) << text;
      EXPECT_EQ(0, c.usage.input_tokens) << text;
    }
  }
}

}  // namespace
}  // namespace weld::proxy
