#include <gtest/gtest.h>

#include "test_util.h"
#include "weld/proxy/weld.h"

namespace weld::proxy {
namespace {

using testing::j;
using testing::read_response;
using testing::s;

constexpr const char* kErrors = "params/action must be equal to one of the allowed values";

TEST(AppendRetryTurn, Anthropic) {
  json::Value body = j(R"({"model":"m","messages":[{"role":"user","content":"go"}],"stream":false})");
  Candidate c = read_response(Protocol::AnthropicMessages,
      j(R"({"content":[{"type":"text","text":""},{"type":"tool_use","id":"toolu_1","name":"router","input":{"action":"fly"}}]})"),
      "router");
  append_retry_turn(Protocol::AnthropicMessages, body, c, kErrors);
  EXPECT_EQ(
      R"({"model":"m","messages":[{"role":"user","content":"go"},)"
      R"({"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"router","input":{"action":"fly"}}]},)"
      R"({"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1",)"
      R"("content":"params/action must be equal to one of the allowed values","is_error":true}]}],"stream":false})",
      s(body));
}

TEST(AppendRetryTurn, AnthropicNonObjectInputKeepsIdAndShowsRaw) {
  json::Value body = j(R"({"messages":[]})");
  Candidate c = read_response(Protocol::AnthropicMessages,
      j(R"({"content":[{"type":"tool_use","id":"toolu_2","name":"router","input":"[1,2]"}]})"), "router");
  append_retry_turn(Protocol::AnthropicMessages, body, c, "params must be object");
  EXPECT_EQ(
      R"({"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"toolu_2","name":"router","input":{}}]},)"
      R"({"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_2",)"
      R"("content":"params must be object\nThe arguments you sent were not a JSON object: [1,2]","is_error":true}]}]})",
      s(body));
}

TEST(AppendRetryTurn, AnthropicTextAnswerGetsUserText) {
  json::Value body = j(R"({"messages":[{"role":"user","content":"go"}]})");
  Candidate c = read_response(Protocol::AnthropicMessages, j(R"({"content":[{"type":"text","text":"I think search."}]})"), "router");
  append_retry_turn(Protocol::AnthropicMessages, body, c, "the answer did not call the tool 'router'");
  EXPECT_EQ(
      R"({"messages":[{"role":"user","content":"go"},)"
      R"({"role":"assistant","content":[{"type":"text","text":"I think search."}]},)"
      R"({"role":"user","content":[{"type":"text","text":"the answer did not call the tool 'router'"}]}]})",
      s(body));

  // An empty answer adds no assistant message (the API refuses empty content).
  json::Value body2 = j(R"({"messages":[]})");
  append_retry_turn(Protocol::AnthropicMessages, body2, read_response(Protocol::AnthropicMessages, j(R"({"content":[]})"), "router"), "E");
  EXPECT_EQ(R"({"messages":[{"role":"user","content":[{"type":"text","text":"E"}]}]})", s(body2));
}

TEST(AppendRetryTurn, AnthropicOtherCallsAnsweredToo) {
  json::Value body = j(R"({"messages":[]})");
  Candidate c = read_response(Protocol::AnthropicMessages, j(R"({"content":[
      {"type":"tool_use","id":"a","name":"Bash","input":{}},
      {"type":"tool_use","id":"b","name":"router","input":{}}]})"), "router");
  append_retry_turn(Protocol::AnthropicMessages, body, c, "E");
  EXPECT_EQ(
      R"([{"type":"tool_result","tool_use_id":"a","content":"Error: this tool call was not run.","is_error":true},)"
      R"({"type":"tool_result","tool_use_id":"b","content":"E","is_error":true}])",
      s(*body.find("messages")->as_array()[1].find("content")));
}

TEST(AppendRetryTurn, OpenAI) {
  json::Value body = j(R"({"model":"q","messages":[{"role":"user","content":"go"}]})");
  Candidate c = read_response(Protocol::OpenAiChat, j(R"({"choices":[{"message":{"role":"assistant","content":null,
      "tool_calls":[{"id":"call_1","type":"function","function":{"name":"router","arguments":"{\"action\":\"fly\"}"}}]}}]})"),
      "router");
  append_retry_turn(Protocol::OpenAiChat, body, c, kErrors);
  EXPECT_EQ(
      R"({"model":"q","messages":[{"role":"user","content":"go"},)"
      R"({"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"router","arguments":"{\"action\":\"fly\"}"}}]},)"
      R"({"role":"tool","tool_call_id":"call_1","content":"Error: params/action must be equal to one of the allowed values"}]})",
      s(body));
}

TEST(AppendRetryTurn, OpenAIUnparseableArgumentsBecomeEmptyObject) {
  json::Value body = j(R"({"messages":[]})");
  Candidate c = read_response(Protocol::OpenAiChat, j(R"({"choices":[{"message":{"role":"assistant",
      "tool_calls":[{"id":"call_1","type":"function","function":{"name":"router","arguments":"{\"action\": fly"}}]}}]})"),
      "router");
  append_retry_turn(Protocol::OpenAiChat, body, c, "params: unexpected character");
  EXPECT_EQ(
      R"({"messages":[{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"router","arguments":"{}"}}]},)"
      R"({"role":"tool","tool_call_id":"call_1","content":"Error: params: unexpected character\nThe arguments you sent were not a JSON object: {\"action\": fly"}]})",
      s(body));
}

TEST(AppendRetryTurn, OpenAITextAnswer) {
  json::Value body = j(R"({"messages":[]})");
  Candidate c = read_response(Protocol::OpenAiChat, j(R"({"choices":[{"message":{"role":"assistant","content":"search"}}]})"), "router");
  append_retry_turn(Protocol::OpenAiChat, body, c, "E");
  EXPECT_EQ(R"({"messages":[{"role":"assistant","content":"search"},{"role":"user","content":"E"}]})", s(body));
}

TEST(AppendRetryTurn, MissingMessagesArrayIsCreated) {
  json::Value body = j(R"({"messages":"junk"})");
  append_retry_turn(Protocol::OpenAiChat, body, Candidate{}, "E");
  EXPECT_EQ(R"({"messages":[{"role":"user","content":"E"}]})", s(body));
}

}  // namespace
}  // namespace weld::proxy
