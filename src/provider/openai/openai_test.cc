#include <gtest/gtest.h>

#include <limits>

#include <fstream>
#include <sstream>

#include "weld/json/parse.h"
#include "weld/json/serialize.h"
#include "weld/provider/openai.h"

namespace weld::provider {
namespace {

json::Value parse(std::string_view text) {
  auto v = json::parse(text);
  EXPECT_TRUE(v) << v.error().message;
  return v ? *v : json::Value();
}

Request conversation() {
  Request request;
  request.model = "gpt-4o-mini";
  request.system = "You are terse.";
  request.messages.push_back(Message{Role::User, "List the files, then answer.", {}, {}});
  Message assistant{Role::Assistant, "Looking.", {}, {}};
  assistant.tool_calls.push_back(ToolCall{"call_1", "list_directory", R"({"path":"."})"});
  assistant.tool_calls.push_back(ToolCall{"call_2", "structured_output", R"({"summary":)"});
  request.messages.push_back(assistant);
  Message results{Role::User, "", {}, {}};
  results.tool_results.push_back(ToolResult{"call_1", "README.md\nsrc/", false});
  results.tool_results.push_back(ToolResult{"call_2", "Invalid JSON: unexpected end", true});
  request.messages.push_back(results);
  Message empty_args{Role::Assistant, "", {}, {}};
  empty_args.tool_calls.push_back(ToolCall{"call_3", "structured_output", ""});
  request.messages.push_back(empty_args);
  request.messages.push_back(Message{Role::User, "Try again.", {}, {}});
  request.tools.push_back(ToolSpec{"structured_output", "Deliver the answer.",
                                   parse(R"({"type":"object","properties":{"summary":{"type":"string"}},"required":["summary"]})")});
  request.tools.push_back(ToolSpec{"list_directory", "List a directory.", json::Value(true)});
  request.forced_tool = "structured_output";
  request.max_tokens = 4096;
  return request;
}

TEST(OpenAiRequest, BuildsTheExactBody) {
  std::string body = json::serialize(openai_request_body(conversation()));
  EXPECT_EQ(body,
            R"({"model":"gpt-4o-mini","messages":[)"
            R"({"role":"system","content":"You are terse."},)"
            R"({"role":"user","content":"List the files, then answer."},)"
            R"({"role":"assistant","content":"Looking.","tool_calls":[)"
            R"({"id":"call_1","type":"function","function":{"name":"list_directory","arguments":"{\"path\":\".\"}"}},)"
            R"({"id":"call_2","type":"function","function":{"name":"structured_output","arguments":"{}"}}]},)"
            R"({"role":"tool","tool_call_id":"call_1","content":"README.md\nsrc/"},)"
            R"({"role":"tool","tool_call_id":"call_2","content":"Invalid JSON: unexpected end"},)"
            R"({"role":"assistant","content":null,"tool_calls":[)"
            R"({"id":"call_3","type":"function","function":{"name":"structured_output","arguments":"{}"}}]},)"
            R"({"role":"user","content":"Try again."}],)"
            R"("tools":[{"type":"function","function":{"name":"structured_output","description":"Deliver the answer.",)"
            R"("parameters":{"type":"object","properties":{"summary":{"type":"string"}},"required":["summary"]}}},)"
            R"({"type":"function","function":{"name":"list_directory","description":"List a directory.","parameters":{"type":"object"}}}],)"
            R"("tool_choice":{"type":"function","function":{"name":"structured_output"}},)"
            R"("max_tokens":4096,"stream":true,"stream_options":{"include_usage":true}})");
}

TEST(OpenAiRequest, NoToolsNoSystemNoToolChoice) {
  Request request;
  request.model = "llama";
  request.messages.push_back(Message{Role::User, "hi", {}, {}});
  EXPECT_EQ(json::serialize(openai_request_body(request)),
            R"({"model":"llama","messages":[{"role":"user","content":"hi"}],"max_tokens":8192,)"
            R"("stream":true,"stream_options":{"include_usage":true}})");
}

TEST(OpenAiRequest, UserTextBesideToolResultsFollowsThem) {
  Request request;
  request.model = "m";
  Message message{Role::User, "Also: be brief.", {}, {}};
  message.tool_results.push_back(ToolResult{"c", "done", false});
  request.messages.push_back(message);
  json::Value body = openai_request_body(request);
  EXPECT_EQ(json::serialize(*body.find("messages")),
            R"([{"role":"tool","tool_call_id":"c","content":"done"},{"role":"user","content":"Also: be brief."}])");
}

TEST(OpenAiRequest, OpenAiItselfGetsMaxCompletionTokens) {
  Request request;
  request.model = "gpt-5";
  request.max_tokens = 100;
  request.messages.push_back(Message{Role::User, "hi", {}, {}});
  EXPECT_TRUE(openai_dialect_for("https://api.openai.com/v1").max_completion_tokens);
  EXPECT_FALSE(openai_dialect_for("http://127.0.0.1:8000/v1").max_completion_tokens);
  EXPECT_FALSE(openai_dialect_for("https://api.openai.com.evil.example/v1").max_completion_tokens);
  EXPECT_EQ(json::serialize(openai_request_body(request, openai_dialect_for("https://api.openai.com/v1"))),
            R"({"model":"gpt-5","messages":[{"role":"user","content":"hi"}],"max_completion_tokens":100,)"
            R"("stream":true,"stream_options":{"include_usage":true}})");
}

TEST(OpenAiUrl, AppendsChatCompletions) {
  EXPECT_EQ(openai_chat_url("http://127.0.0.1:8000/v1"), "http://127.0.0.1:8000/v1/chat/completions");
  EXPECT_EQ(openai_chat_url("https://api.openai.com/v1/"), "https://api.openai.com/v1/chat/completions");
}

std::string read_transcript(const std::string& name) {
  std::ifstream in(std::string(WELD_SOURCE_DIR) + "/tests/provider/transcripts/" + name, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_FALSE(ss.str().empty()) << name;
  return ss.str();
}

// Feeds `text` in pieces of `chunk` bytes (1 = byte by byte).
Result<Response> parse_stream(const std::string& text, std::size_t chunk, std::vector<std::string>* events = nullptr) {
  StreamObserver observer;
  observer.on_event = [&](const json::Value& event) {
    if (events) events->push_back(json::serialize(event));
  };
  OpenAiStreamParser parser(&observer);
  for (std::size_t i = 0; i < text.size(); i += chunk) {
    Status st = parser.feed(std::string_view(text).substr(i, chunk));
    if (!st) return st.error();
  }
  return parser.finish();
}

TEST(OpenAiStream, TwoToolCallsFromTheRealApiAtEveryChunking) {
  std::string text = read_transcript("openai_two_tool_calls.sse");
  for (std::size_t chunk : {text.size(), std::size_t{1}, std::size_t{3}, std::size_t{64}}) {
    auto response = parse_stream(text, chunk);
    ASSERT_TRUE(response) << response.error().message;
    ASSERT_EQ(response->message.tool_calls.size(), 2u);
    EXPECT_EQ(response->message.tool_calls[0].id, "call_kR3fCw0TYb1nUJ3K0wH4n8Xz");
    EXPECT_EQ(response->message.tool_calls[0].name, "read_file");
    EXPECT_EQ(response->message.tool_calls[0].arguments, R"({"path": "README.md"})");
    EXPECT_EQ(response->message.tool_calls[1].id, "call_Zf1N6wq6Gq8gU4h1b9Yd3sLk");
    EXPECT_EQ(response->message.tool_calls[1].arguments,
              "{\"summary\": \"caf\xC3\xA9 \xE2\x80\x93 ok\", \"risk_level\": \"low\"}");
    EXPECT_EQ(response->message.text, "");
    EXPECT_EQ(response->stop_reason, "tool_calls");
    EXPECT_EQ(response->usage.input_tokens, 312);
    EXPECT_EQ(response->usage.output_tokens, 58);
    EXPECT_EQ(response->message.role, Role::Assistant);
  }
}

TEST(OpenAiStream, TextWithEmojiAndTheUsageChunk) {
  std::vector<std::string> events;
  auto response = parse_stream(read_transcript("openai_text.sse"), 5, &events);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->message.text, "Hello, w\xC3\xB6rld \xF0\x9F\x8C\x8D.");
  EXPECT_TRUE(response->message.tool_calls.empty());
  EXPECT_EQ(response->stop_reason, "stop");
  EXPECT_EQ(response->usage.input_tokens, 9);
  EXPECT_EQ(response->usage.output_tokens, 6);
  ASSERT_EQ(events.size(), 6u);
  EXPECT_EQ(events[1].substr(0, 30), R"({"id":"chatcmpl-BxQ9aa","objec)");
}

// vLLM: CRLF line ends, the id and name only in the first fragment, the
// arguments split inside a \u escape and inside a \" escape.
TEST(OpenAiStream, VllmToolCallSplitMidEscape) {
  std::string text = read_transcript("vllm_tool_call_crlf.sse");
  for (std::size_t chunk : {text.size(), std::size_t{1}, std::size_t{2}, std::size_t{17}}) {
    auto response = parse_stream(text, chunk);
    ASSERT_TRUE(response) << response.error().message;
    ASSERT_EQ(response->message.tool_calls.size(), 1u);
    EXPECT_EQ(response->message.tool_calls[0].id, "chatcmpl-tool-5e1c0b9a7f3d4c2e");
    EXPECT_EQ(response->message.tool_calls[0].name, "structured_output");
    EXPECT_EQ(response->message.tool_calls[0].arguments,
              R"({"name": "Zo\u00eb", "quote": "say \"hi\""})");
    EXPECT_EQ(response->usage.input_tokens, 221);
    EXPECT_EQ(response->usage.output_tokens, 29);
  }
}

// llama.cpp: usage (and timings) in the finish chunk, no separate usage chunk.
TEST(OpenAiStream, LlamaCppUsageInTheFinishChunk) {
  auto response = parse_stream(read_transcript("llamacpp_tool_call.sse"), 11);
  ASSERT_TRUE(response) << response.error().message;
  ASSERT_EQ(response->message.tool_calls.size(), 1u);
  EXPECT_EQ(response->message.tool_calls[0].arguments, R"({"count": 3})");
  EXPECT_EQ(response->usage.input_tokens, 180);
  EXPECT_EQ(response->usage.output_tokens, 12);
}

TEST(OpenAiStream, ArgumentsSplitMidUtf8AcrossChunks) {
  // The fragment boundary falls inside the two bytes of "é" in the raw
  // stream: the SSE decoder must join the bytes before JSON sees them.
  std::string text =
      "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c\",\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"k\\\":\\\"caf\xC3\xA9\\\"}\"}}]}}]}\n\n"
      "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n";
  std::size_t cut = text.find("\xA9");
  OpenAiStreamParser parser;
  ASSERT_TRUE(parser.feed(std::string_view(text).substr(0, cut)));
  ASSERT_TRUE(parser.feed(std::string_view(text).substr(cut)));
  auto response = parser.finish();
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->message.tool_calls[0].arguments, "{\"k\":\"caf\xC3\xA9\"}");
}

TEST(OpenAiStream, CallsWithoutIndexOrIdGetSlotsAndSyntheticIds) {
  std::string text =
      "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"function\":{\"name\":\"a\",\"arguments\":\"{}\"}}]}}]}\n\n"
      "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"id\":\"x\",\"function\":{\"name\":\"b\",\"arguments\":{\"n\":1}}}]}}]}\n\n"
      "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n";
  auto response = parse_stream(text, text.size());
  ASSERT_TRUE(response) << response.error().message;
  ASSERT_EQ(response->message.tool_calls.size(), 2u);
  EXPECT_EQ(response->message.tool_calls[0].id, "call_weld_1");
  EXPECT_EQ(response->message.tool_calls[0].name, "a");
  EXPECT_EQ(response->message.tool_calls[1].id, "x");
  EXPECT_EQ(response->message.tool_calls[1].arguments, R"({"n":1})");
}

TEST(OpenAiStream, ErrorObjectInTheStream) {
  std::string text =
      "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n"
      "data: {\"error\":{\"message\":\"The model produced invalid content.\",\"type\":\"model_error\",\"param\":null,\"code\":null}}\n\n";
  auto response = parse_stream(text, 4);
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().code, ErrorCode::Http);
  EXPECT_EQ(response.error().message, "the server sent an error in the stream: The model produced invalid content.");
}

TEST(OpenAiStream, VllmErrorObjectBeforeContentIsRetryable) {
  std::string text =
      "data: {\"object\":\"error\",\"message\":\"The engine is overloaded\",\"type\":\"ServiceUnavailableError\",\"param\":null,\"code\":503}\n\n";
  auto response = parse_stream(text, text.size());
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().code, ErrorCode::RetryableStream);
  EXPECT_EQ(response.error().message, "the server sent an error in the stream: The engine is overloaded");
}

// End of stream, decided once for the run and the proxy (docs/protocols.md):
// the answer is complete when the model finished (`finish_reason`) or the
// server ended the stream (`data: [DONE]`). The run used to require [DONE]
// and the proxy a finish_reason; each accepted what the other rejected.
TEST(OpenAiStream, FinishReasonWithoutDoneIsComplete) {
  std::string text = read_transcript("openai_text.sse");
  auto response = parse_stream(text.substr(0, text.find("data: [DONE]")), 100);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->stop_reason, "stop");
  EXPECT_EQ(response->usage.input_tokens, 9);
}

TEST(OpenAiStream, DoneWithoutFinishReasonIsComplete) {
  auto response = parse_stream("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"{}\"}}]}\n\ndata: [DONE]\n\n", 7);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->message.text, "{}");
  EXPECT_EQ(response->stop_reason, "");
}

TEST(OpenAiStream, NeitherFinishReasonNorDoneIsAProtocolError) {
  std::string text = read_transcript("openai_text.sse");
  std::size_t finish = text.find("\"finish_reason\":\"stop\"");
  auto response = parse_stream(text.substr(0, text.rfind("data: ", finish)), 100);
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().code, ErrorCode::Protocol);
  EXPECT_EQ(response.error().message,
            "the response stream ended early: no `finish_reason` and no `data: [DONE]` after 4 chunks");
  response = parse_stream(text.substr(0, 300), 100);
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().message,
            "the response stream ended early: no `finish_reason` and no `data: [DONE]` after 1 chunk "
            "(the last event was cut off)");
}

// A server that closes right after its last data line, without the blank
// line (the proxy read such a last event, the run dropped it).
TEST(OpenAiStream, LastEventWithoutItsBlankLineIsRead) {
  auto response = parse_stream(
      "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n", 9);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->message.text, "ok");
}

// Refusals, decided once (docs/protocols.md): kept apart and in the text,
// so neither the run nor the proxy loses what the model said.
TEST(OpenAiStream, RefusalIsKeptAndEndsTheText) {
  auto response = parse_stream(
      "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":null,\"refusal\":\"No.\"},\"finish_reason\":\"stop\"}]}\n\n"
      "data: [DONE]\n\n",
      11);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->refusal, "No.");
  EXPECT_EQ(response->message.text, "No.");
}

TEST(OpenAiStream, MalformedJsonNamesTheChunk) {
  auto response = parse_stream("data: {\"choices\":[}\n\n", 100);
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().code, ErrorCode::Protocol);
  EXPECT_EQ(response.error().message.rfind("malformed JSON in stream chunk 1 (", 0), 0u);
  EXPECT_NE(response.error().message.find(R"(: "{\"choices\":[}")"), std::string::npos) << response.error().message;
}

// Found by fuzz/sse_fuzz.cc (Anthropic side; the OpenAI parser had the same
// conversion): a huge real token count must not be converted to int64.
TEST(OpenAiStream, huge_real_token_count) {
  auto response = parse_stream(
      "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":-1e300,\"completion_tokens\":7.0}}\n\ndata: [DONE]\n\n", 5);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->usage.input_tokens, 0);
  EXPECT_EQ(response->usage.output_tokens, 7);
}

TEST(OpenAiStream, DataAfterDoneIsIgnored) {
  auto response = parse_stream("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\ndata: [DONE]\n\ndata: {bad\n\n", 100);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->message.text, "a");
}

TEST(OpenAiRequest, ResponseFormatCarriesTheSchemaAndStrictness) {
  Request request;
  request.model = "m";
  request.messages.push_back(Message{Role::User, "x", {}, {}});
  ResponseFormat format;
  format.schema = parse(R"({"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false})");
  format.strict = true;
  request.response_format = format;
  json::Value body = openai_request_body(request);
  EXPECT_EQ(json::serialize(*body.find("response_format")),
            R"({"type":"json_schema","json_schema":{"name":"structured_output","schema":{"type":"object","properties":)"
            R"({"a":{"type":"string"}},"required":["a"],"additionalProperties":false},"strict":true}})");
  EXPECT_EQ(body.find("tools"), nullptr);
  request.response_format.reset();
  EXPECT_EQ(openai_request_body(request).find("response_format"), nullptr);
}

// The schema goes as the caller gives it: a caller asking for strict mode
// lowers it first (weld/schema/lower.h); a boolean schema goes as {}.
TEST(OpenAiRequest, TheSchemaIsSentAsGiven) {
  Request request;
  request.model = "m";
  request.messages.push_back(Message{Role::User, "x", {}, {}});
  ResponseFormat format;
  format.schema = parse(R"({"type":"object","additionalProperties":{"type":"integer"}})");
  format.strict = false;
  request.response_format = format;
  EXPECT_EQ(json::serialize(*openai_request_body(request).find("response_format")),
            R"({"type":"json_schema","json_schema":{"name":"structured_output","schema":)"
            R"({"type":"object","additionalProperties":{"type":"integer"}},"strict":false}})");
  request.response_format->schema = json::Value(true);
  EXPECT_EQ(json::serialize(*openai_request_body(request).find("response_format")),
            R"({"type":"json_schema","json_schema":{"name":"structured_output","schema":{},"strict":false}})");
}

}  // namespace
}  // namespace weld::provider

namespace weld::provider {
namespace {

// Usage, decided once (docs/protocols.md): the run's sum overflowed (signed
// overflow, undefined behaviour) on counts near the int64 range, the
// proxy's saturated; both now add with the same saturating sum.
TEST(Usage, sum_saturates_instead_of_overflowing) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  Usage sum{kMax - 1, 5, kMax, 0};
  sum += Usage{10, 6, 1, 2};
  EXPECT_EQ(sum.input_tokens, kMax);
  EXPECT_EQ(sum.output_tokens, 11);
  EXPECT_EQ(sum.cache_read_input_tokens, kMax);
  EXPECT_EQ(sum.cache_creation_input_tokens, 2);
  EXPECT_EQ(sum.total(), kMax);
}

}  // namespace
}  // namespace weld::provider
