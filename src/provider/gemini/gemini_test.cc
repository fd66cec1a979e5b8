// The Gemini generateContent codec: its reader on the shapes the API sends
// (ai.google.dev, "Generating content" and "Function calling"), its request
// body, and its writer read back by its reader.
#include <gtest/gtest.h>

#include "weld/json/parse.h"
#include "weld/json/serialize.h"
#include "weld/provider/codec.h"
#include "weld/provider/gemini.h"

namespace weld::provider {
namespace {

json::Value j(std::string_view text) { return *json::parse(text); }

Result<Response> read_stream(std::string_view text, std::size_t piece = 7) {
  GeminiStreamParser reader;
  for (std::size_t at = 0; at < text.size(); at += piece)
    if (Status st = reader.feed(text.substr(at, piece)); !st) return st.error();
  return reader.finish();
}

// What streamGenerateContent?alt=sse sends: whole responses as data events,
// text split across them, the finishReason and usage in the last.
constexpr std::string_view kTextStream =
    "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"{\\\"act\"}],\"role\": \"model\"},\"index\": 0}],"
    "\"usageMetadata\": {\"promptTokenCount\": 9,\"totalTokenCount\": 9},\"modelVersion\": \"gemini-2.5-flash\","
    "\"responseId\": \"r-1\"}\r\n\r\n"
    "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"ion\\\":\\\"refund\\\"}\"}],\"role\": \"model\"},"
    "\"finishReason\": \"STOP\",\"index\": 0}],\"usageMetadata\": {\"promptTokenCount\": 9,"
    "\"candidatesTokenCount\": 6,\"totalTokenCount\": 15},\"modelVersion\": \"gemini-2.5-flash\","
    "\"responseId\": \"r-1\"}\r\n\r\n";

TEST(GeminiStream, TextJoinedUsageAndHead) {
  for (std::size_t piece : {1u, 7u, 4096u}) {
    Result<Response> r = read_stream(kTextStream, piece);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->message.text, R"({"action":"refund"})");
    EXPECT_EQ(r->usage.input_tokens, 9);
    EXPECT_EQ(r->usage.output_tokens, 6);
    EXPECT_EQ(r->id, "r-1");
    EXPECT_EQ(r->model, "gemini-2.5-flash");
    EXPECT_EQ(r->stop_reason, "STOP");
  }
}

TEST(GeminiStream, FunctionCallsGetIdsAndKeepTheirArguments) {
  const std::string stream =
      "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"Looking.\"},"
      "{\"functionCall\":{\"name\":\"router\",\"args\":{\"action\":\"refund\"}}},"
      "{\"functionCall\":{\"id\":\"fc-2\",\"name\":\"search\",\"args\":{}}}]},\"finishReason\":\"STOP\"}]}\n\n";
  Result<Response> r = read_stream(stream);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->message.tool_calls.size(), 2u);
  EXPECT_EQ(r->message.tool_calls[0].id, "call_weld_1");
  EXPECT_EQ(r->message.tool_calls[0].name, "router");
  EXPECT_EQ(r->message.tool_calls[0].arguments, R"({"action":"refund"})");
  EXPECT_EQ(r->message.tool_calls[1].id, "fc-2");
  EXPECT_EQ(r->message.text, "Looking.");
  ASSERT_EQ(r->parts.size(), 3u);
  EXPECT_EQ(r->parts[0].kind, Part::Kind::Text);
}

TEST(GeminiStream, AStreamWithoutFinishReasonIsCutAndErrorsAreErrors) {
  Result<Response> cut = read_stream(kTextStream.substr(0, kTextStream.find("data:", 10)));
  ASSERT_FALSE(cut.ok());
  EXPECT_EQ(cut.error().code, ErrorCode::Protocol);
  EXPECT_TRUE(cut.error().temporary);
  EXPECT_NE(cut.error().message.find("no `finishReason` after 1 chunk"), std::string::npos) << cut.error().message;

  Result<Response> busy =
      read_stream("data: {\"error\":{\"code\":503,\"message\":\"The model is overloaded.\",\"status\":\"UNAVAILABLE\"}}\n\n");
  ASSERT_FALSE(busy.ok());
  EXPECT_EQ(busy.error().code, ErrorCode::RetryableStream);
  EXPECT_EQ(busy.error().message, "the server sent an error in the stream: The model is overloaded. (UNAVAILABLE)");

  Result<Response> bad = read_stream("data: {\"candidates\":[\n\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("malformed JSON in stream chunk 1"), std::string::npos);
}

TEST(GeminiWhole, ReadsACandidateAndRefusesWhatIsNotOne) {
  Result<Response> r = gemini_response_from_json(j(
      R"({"candidates":[{"content":{"parts":[{"text":"hi"}],"role":"model"},"finishReason":"MAX_TOKENS"}],)"
      R"("usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":1},"responseId":"x"})"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->message.text, "hi");
  EXPECT_EQ(r->stop_reason, "MAX_TOKENS");
  Result<Response> error = gemini_response_from_json(
      j(R"({"error":{"code":400,"message":"API key not valid.","status":"INVALID_ARGUMENT"}})"));
  ASSERT_FALSE(error.ok());
  EXPECT_EQ(error.error().message, "the server answered with an error: API key not valid. (INVALID_ARGUMENT)");
  EXPECT_EQ(gemini_response_from_json(j(R"({"promptFeedback":{}})")).error().message,
            "the response has no `candidates`");
}

TEST(GeminiRequest, BuildsTheExactBody) {
  Request request;
  request.model = "gemini-2.5-flash";
  request.system = "Be terse.";
  request.messages.push_back(Message{Role::User, "Route it.", {}, {}});
  request.messages.push_back(Message{Role::Assistant, "", {ToolCall{"c1", "router", "not json"}}, {}});
  request.messages.push_back(Message{Role::User, "", {}, {ToolResult{"c1", "must be an object", true}}});
  request.tools.push_back(ToolSpec{"router", "", j(R"({"properties":{"action":{"type":"string"}}})")});
  request.forced_tool = "router";
  request.max_tokens = 100;
  request.sampling.temperature = 0.5;
  request.sampling.stop = {"END"};
  EXPECT_EQ(json::serialize(gemini_request_body(request)),
            R"({"contents":[{"role":"user","parts":[{"text":"Route it."}]},)"
            R"({"role":"model","parts":[{"functionCall":{"name":"router","args":{},"id":"c1"}}]},)"
            R"({"role":"user","parts":[{"functionResponse":{"id":"c1","name":"router","response":{"error":"must be an object"}}}]}],)"
            R"("systemInstruction":{"parts":[{"text":"Be terse."}]},)"
            R"("tools":[{"functionDeclarations":[{"name":"router","parameters":{"type":"object","properties":{"action":{"type":"string"}}}}]}],)"
            R"("toolConfig":{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["router"]}},)"
            R"("generationConfig":{"maxOutputTokens":100,"temperature":0.5,"stopSequences":["END"]}})");
  EXPECT_EQ(gemini_stream_url("https://generativelanguage.googleapis.com/v1beta", "gemini-2.5-flash"),
            "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
}

TEST(GeminiCodec, NativeFormatAndTheRetryTurn) {
  const Codec& codec = codec_for(Protocol::GeminiGenerateContent);
  json::Value body = j(R"({"contents":[],"generationConfig":{"temperature":0}})");
  ResponseFormat format;
  format.schema = j(R"({"type":"object"})");
  codec.set_native_format(body, format);
  EXPECT_EQ(json::serialize(body),
            R"({"contents":[],"generationConfig":{"temperature":0,"responseMimeType":"application/json",)"
            R"("responseJsonSchema":{"type":"object"}}})");
  codec.drop_forced_conflicts(body);
  EXPECT_EQ(json::serialize(body), R"({"contents":[],"generationConfig":{"temperature":0}})");

  Result<Response> answer = gemini_response_from_json(
      j(R"({"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"id":"f1","name":"router","args":{"a":1}}},)"
        R"({"functionCall":{"id":"f2","name":"other","args":{}}}]},"finishReason":"STOP"}]})"));
  ASSERT_TRUE(answer.ok());
  ErrorResults results;
  results.failed_call = "f1";
  results.call_errors = "a: must be string";
  codec.append_error_results(body, *answer, results);
  EXPECT_EQ(json::serialize(*body.find("contents")),
            R"([{"role":"model","parts":[{"functionCall":{"id":"f1","name":"router","args":{"a":1}}},)"
            R"({"functionCall":{"id":"f2","name":"other","args":{}}}]},)"
            R"({"role":"user","parts":[{"functionResponse":{"id":"f1","name":"router","response":{"error":"a: must be string"}}},)"
            R"({"functionResponse":{"id":"f2","name":"other","response":{"error":"Error: this tool call was not run."}}}]}])");
  EXPECT_EQ(codec.tool_name(codec.tool(ToolSpec{"router", "", json::Object{}})), "router");
  EXPECT_EQ(codec.status_error_type(429), "RESOURCE_EXHAUSTED");
}

}  // namespace
}  // namespace weld::provider
