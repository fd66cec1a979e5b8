#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "weld/json/parse.h"
#include "weld/json/serialize.h"
#include "weld/provider/anthropic.h"
#include "weld/provider/codec.h"

namespace weld::provider {
namespace {

json::Value parse(std::string_view text) {
  auto v = json::parse(text);
  EXPECT_TRUE(v) << v.error().message;
  return v ? *v : json::Value();
}

TEST(AnthropicRequest, BuildsTheExactBody) {
  Request request;
  request.model = "claude-sonnet-4-5";
  request.system = "You are terse.";
  request.messages.push_back(Message{Role::User, "List the files, then answer.", {}, {}});
  Message assistant{Role::Assistant, "Looking.", {}, {}};
  assistant.tool_calls.push_back(ToolCall{"toolu_1", "list_directory", R"({"path":"."})"});
  assistant.tool_calls.push_back(ToolCall{"toolu_2", "structured_output", R"({"summary":)"});
  assistant.tool_calls.push_back(ToolCall{"toolu_3", "structured_output", R"([1,2])"});
  request.messages.push_back(assistant);
  Message results{Role::User, "Keep going.", {}, {}};
  results.tool_results.push_back(ToolResult{"toolu_1", "README.md", false});
  results.tool_results.push_back(ToolResult{"toolu_2", "Invalid JSON", true});
  results.tool_results.push_back(ToolResult{"toolu_3", "must be object", true});
  request.messages.push_back(results);
  request.messages.push_back(Message{Role::Assistant, "", {}, {}});  // dropped: nothing to say
  request.tools.push_back(ToolSpec{"structured_output", "Deliver the answer.",
                                   parse(R"({"properties":{"a":{"type":"integer"}},"required":["a"]})")});
  request.tools.push_back(ToolSpec{"list_directory", "", parse(R"({"type":"object"})")});
  request.forced_tool = "structured_output";
  request.max_tokens = 2048;
  EXPECT_EQ(json::serialize(anthropic_request_body(request)),
            R"({"model":"claude-sonnet-4-5","max_tokens":2048,"system":"You are terse.","messages":[)"
            R"({"role":"user","content":[{"type":"text","text":"List the files, then answer."}]},)"
            R"({"role":"assistant","content":[{"type":"text","text":"Looking."},)"
            R"({"type":"tool_use","id":"toolu_1","name":"list_directory","input":{"path":"."}},)"
            R"({"type":"tool_use","id":"toolu_2","name":"structured_output","input":{}},)"
            R"({"type":"tool_use","id":"toolu_3","name":"structured_output","input":{}}]},)"
            R"({"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"README.md"},)"
            R"({"type":"tool_result","tool_use_id":"toolu_2","content":"Invalid JSON","is_error":true},)"
            R"({"type":"tool_result","tool_use_id":"toolu_3","content":"must be object","is_error":true},)"
            R"({"type":"text","text":"Keep going."}]}],)"
            R"("tools":[{"name":"structured_output","description":"Deliver the answer.",)"
            R"("input_schema":{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]}},)"
            R"({"name":"list_directory","input_schema":{"type":"object"}}],)"
            R"("tool_choice":{"type":"tool","name":"structured_output"},"stream":true})");
}

TEST(AnthropicRequest, InputSchemaKeepsAnExistingTypeAndWrapsBooleans) {
  EXPECT_EQ(json::serialize(object_root(parse(R"({"type":"array"})"))), R"({"type":"array"})");
  EXPECT_EQ(json::serialize(object_root(parse("true"))), R"({"type":"object"})");
  EXPECT_EQ(json::serialize(object_root(parse("{}"))), R"({"type":"object"})");
  EXPECT_EQ(json::serialize(object_root(parse(R"({"$schema":"x","anyOf":[]})"))),
            R"({"type":"object","$schema":"x","anyOf":[]})");
}

TEST(AnthropicUrl, AcceptsHostOrV1) {
  EXPECT_EQ(anthropic_messages_url("https://api.anthropic.com"), "https://api.anthropic.com/v1/messages");
  EXPECT_EQ(anthropic_messages_url("https://api.anthropic.com/"), "https://api.anthropic.com/v1/messages");
  EXPECT_EQ(anthropic_messages_url("http://127.0.0.1:8080/v1"), "http://127.0.0.1:8080/v1/messages");
  EXPECT_EQ(anthropic_messages_url("http://h/proxy/v1/"), "http://h/proxy/v1/messages");
}

std::string read_transcript(const std::string& name) {
  std::ifstream in(std::string(WELD_SOURCE_DIR) + "/tests/provider/transcripts/" + name, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_FALSE(ss.str().empty()) << name;
  return ss.str();
}

Result<Response> parse_stream(const std::string& text, std::size_t chunk,
                              std::vector<std::string>* events = nullptr) {
  StreamObserver observer;
  observer.on_event = [&](const json::Value& event) {
    if (events) events->push_back(json::serialize(event));
  };
  AnthropicStreamParser parser(&observer);
  for (std::size_t i = 0; i < text.size(); i += chunk) {
    Status st = parser.feed(std::string_view(text).substr(i, chunk));
    if (!st) return st.error();
  }
  return parser.finish();
}

TEST(AnthropicStream, TextAndTwoToolUsesAtEveryChunking) {
  std::string text = read_transcript("anthropic_text_and_tools.sse");
  for (std::size_t chunk : {text.size(), std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{100}}) {
    std::vector<std::string> events;
    auto response = parse_stream(text, chunk, &events);
    ASSERT_TRUE(response) << response.error().message;
    EXPECT_EQ(response->id, "msg_01XFDUDYJgAACzvnptvVoYEL");
    EXPECT_EQ(response->message.text, "I'll record the answer \xE2\x80\x94 \xE2\x9C\x93.");
    ASSERT_EQ(response->message.tool_calls.size(), 2u);
    EXPECT_EQ(response->message.tool_calls[0].id, "toolu_01T1x1fJ34qAmk2tNTrN7Up6");
    EXPECT_EQ(response->message.tool_calls[0].name, "structured_output");
    EXPECT_EQ(response->message.tool_calls[0].arguments,
              "{\"summary\": \"Caf\xC3\xA9 menu \\\"special\\\"\", \"risk_level\": \"low\"}");
    EXPECT_EQ(response->message.tool_calls[1].arguments, "");  // empty: the caller treats it as {}
    EXPECT_EQ(response->stop_reason, "tool_use");
    EXPECT_EQ(response->usage.input_tokens, 472);
    EXPECT_EQ(response->usage.output_tokens, 89);
    EXPECT_EQ(response->usage.cache_read_input_tokens, 256);
    EXPECT_EQ(events.size(), 19u);  // ping included
  }
}

TEST(AnthropicStream, CompatibleServerWithWholeInputAndNoEventLines) {
  auto response = parse_stream(read_transcript("anthropic_compat_whole_input.sse"), 9);
  ASSERT_TRUE(response) << response.error().message;
  ASSERT_EQ(response->message.tool_calls.size(), 1u);
  EXPECT_EQ(response->message.tool_calls[0].id, "toolu_local_0");
  EXPECT_EQ(response->message.tool_calls[0].arguments, R"({"n":1})");
  EXPECT_EQ(response->usage.input_tokens, 30);
  EXPECT_EQ(response->usage.output_tokens, 9);
}

TEST(AnthropicStream, OverloadedBeforeContentIsRetryable) {
  auto response = parse_stream(read_transcript("anthropic_overloaded.sse"), 13);
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().code, ErrorCode::RetryableStream);
  EXPECT_EQ(response.error().message, "the server sent an error in the stream: Overloaded (overloaded_error)");
}

TEST(AnthropicStream, ErrorAfterContentIsFinal) {
  std::string text = read_transcript("anthropic_text_and_tools.sse");
  text = text.substr(0, text.find("event: content_block_stop")) +
         "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n";
  auto response = parse_stream(text, 64);
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().code, ErrorCode::Http);
}

TEST(AnthropicStream, TruncatedStreamIsAProtocolError) {
  std::string text = read_transcript("anthropic_text_and_tools.sse");
  auto response = parse_stream(text.substr(0, text.find("event: message_stop") + 30), 64);
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().code, ErrorCode::Protocol);
  EXPECT_EQ(response.error().message,
            "the response stream ended early: no `message_stop` event; the last event was cut off");
  response = parse_stream("", 1);
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().message,
            "the response stream ended early: no `message_stop` event (not even `message_start`)");
}

TEST(AnthropicStream, DeltaForAnUnknownBlockIsAProtocolError) {
  std::string text =
      "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\"}}\n\n"
      "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":3,\"delta\":{\"type\":\"text_delta\",\"text\":\"x\"}}\n\n";
  auto response = parse_stream(text, 1000);
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().code, ErrorCode::Protocol);
  EXPECT_EQ(response.error().message, "content_block_delta for block 3 without content_block_start");
}

TEST(AnthropicStream, ThinkingBlocksAreSkipped) {
  std::string text =
      "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}\n\n"
      "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}\n\n"
      "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"hmm\"}}\n\n"
      "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"signature_delta\",\"signature\":\"EqQ\"}}\n\n"
      "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
      "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
      "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"Done.\"}}\n\n"
      "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n"
      "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":12}}\n\n"
      "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
  auto response = parse_stream(text, 10);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->message.text, "Done.");
  EXPECT_EQ(response->stop_reason, "end_turn");
  EXPECT_EQ(response->usage.output_tokens, 12);
}

// Found by fuzz/sse_fuzz.cc: a token count too large for int64 was converted
// with undefined behaviour.
TEST(AnthropicStream, huge_real_token_count) {
  std::string text =
      "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"usage\":{\"input_tokens\":2.5e111,\"output_tokens\":3.0}}}\n\n"
      "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
  auto response = parse_stream(text, 7);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->usage.input_tokens, 0);
  EXPECT_EQ(response->usage.output_tokens, 3);
}

TEST(AnthropicStream, MalformedJsonNamesTheEvent) {
  auto response = parse_stream("event: message_start\ndata: {\"type\":\n\n", 100);
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().code, ErrorCode::Protocol);
  EXPECT_EQ(response.error().message.rfind("malformed JSON in stream event `message_start` (", 0), 0u)
      << response.error().message;
}

TEST(AnthropicRequest, ResponseFormatIsOutputConfigFormatWithAnObjectRoot) {
  Request request;
  request.model = "m";
  request.messages.push_back(Message{Role::User, "x", {}, {}});
  ResponseFormat format;
  format.schema = json::parse(R"({"properties":{"a":{"type":"string"}},"required":["a"]})").value();
  request.response_format = format;
  json::Value body = anthropic_request_body(request);
  EXPECT_EQ(json::serialize(*body.find("output_config")),
            R"({"format":{"type":"json_schema","schema":{"type":"object","properties":{"a":{"type":"string"}},)"
            R"("required":["a"]}}})");
  EXPECT_EQ(body.find("tools"), nullptr);
}

}  // namespace
}  // namespace weld::provider
