// The Responses API reader and request (docs/protocols.md): streamed `response.*`
// events and whole `response` objects into the neutral Response.
#include <gtest/gtest.h>

#include "weld/json/parse.h"
#include "weld/json/serialize.h"
#include "weld/provider/responses.h"

namespace weld::provider {
namespace {

std::string event(std::string_view type, std::string_view data) {
  return "event: " + std::string(type) + "\ndata: " + std::string(data) + "\n\n";
}

// A stream as the API sends it: a message item with text, a function call
// with its arguments in deltas, and response.completed with usage.
std::string tool_stream(bool completed_output) {
  std::string out;
  out += event("response.created", R"({"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","created_at":1741290958,"status":"in_progress","model":"gpt-5-mini","output":[],"usage":null}})");
  out += event("response.output_item.added", R"({"type":"response.output_item.added","output_index":0,"item":{"id":"msg_1","type":"message","status":"in_progress","role":"assistant","content":[]}})");
  out += event("response.output_text.delta", R"({"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"Let me "})");
  out += event("response.output_text.delta", R"({"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"check."})");
  out += event("response.output_item.added", R"({"type":"response.output_item.added","output_index":1,"item":{"id":"fc_1","type":"function_call","call_id":"call_9","name":"router","arguments":"","status":"in_progress"}})");
  out += event("response.function_call_arguments.delta", R"({"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":1,"delta":"{\"action\":"})");
  out += event("response.function_call_arguments.delta", R"({"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":1,"delta":"\"search\"}"})");
  out += event("response.function_call_arguments.done", R"({"type":"response.function_call_arguments.done","item_id":"fc_1","output_index":1,"arguments":"{\"action\":\"search\"}"})");
  std::string output = completed_output
      ? R"([{"id":"msg_1","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Let me check.","annotations":[]}]},{"id":"fc_1","type":"function_call","call_id":"call_9","name":"router","arguments":"{\"action\":\"search\"}","status":"completed"}])"
      : "[]";
  out += event("response.completed", R"({"type":"response.completed","response":{"id":"resp_1","object":"response","created_at":1741290958,"status":"completed","model":"gpt-5-mini","output":)" + output + R"(,"usage":{"input_tokens":36,"input_tokens_details":{"cached_tokens":4},"output_tokens":12,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":48}}})");
  return out;
}

Result<Response> parse_stream(const std::string& text, std::size_t chunk) {
  ResponsesStreamParser parser;
  for (std::size_t i = 0; i < text.size(); i += chunk) {
    if (Status st = parser.feed(std::string_view(text).substr(i, chunk)); !st) return st.error();
  }
  return parser.finish();
}

TEST(ResponsesStream, TextAndFunctionCallAtEveryChunking) {
  for (bool completed_output : {true, false}) {
    std::string text = tool_stream(completed_output);
    for (std::size_t chunk : {text.size(), std::size_t{1}, std::size_t{7}, std::size_t{64}}) {
      auto response = parse_stream(text, chunk);
      ASSERT_TRUE(response) << response.error().message;
      EXPECT_EQ(response->message.text, "Let me check.");
      ASSERT_EQ(response->message.tool_calls.size(), 1u);
      EXPECT_EQ(response->message.tool_calls[0].id, "call_9");
      EXPECT_EQ(response->message.tool_calls[0].name, "router");
      EXPECT_EQ(response->message.tool_calls[0].arguments, R"({"action":"search"})");
      EXPECT_EQ(response->usage.input_tokens, 36);
      EXPECT_EQ(response->usage.output_tokens, 12);
      EXPECT_EQ(response->usage.cache_read_input_tokens, 4);
      EXPECT_EQ(response->stop_reason, "completed");
      EXPECT_EQ(response->id, "resp_1");
      EXPECT_EQ(response->model, "gpt-5-mini");
      EXPECT_EQ(response->created, 1741290958);
      ASSERT_EQ(response->parts.size(), 2u);
      EXPECT_EQ(response->parts[0].kind, Part::Kind::Text);
      EXPECT_EQ(response->parts[1].kind, Part::Kind::ToolCall);
    }
  }
}

TEST(ResponsesStream, NoCompletedEventIsAProtocolError) {
  std::string text = tool_stream(true);
  auto response = parse_stream(text.substr(0, text.find("event: response.completed")), 100);
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().code, ErrorCode::Protocol);
  EXPECT_EQ(response.error().message, "the response stream ended early: no `response.completed` event after 8 events");
}

TEST(ResponsesStream, FailedResponseAndErrorEventsAreErrors) {
  auto failed = parse_stream(
      event("response.failed", R"({"type":"response.failed","response":{"id":"r","status":"failed","error":{"code":"server_error","message":"The model crashed"}}})"),
      5);
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().code, ErrorCode::Http);
  EXPECT_EQ(failed.error().message, "the server sent an error in the stream: The model crashed (server_error)");
  auto error = parse_stream(event("error", R"({"type":"error","code":"rate_limit_exceeded","message":"Slow down","param":null})"), 9);
  ASSERT_FALSE(error);
  EXPECT_EQ(error.error().code, ErrorCode::RetryableStream);
  EXPECT_EQ(error.error().message, "the server sent an error in the stream: Slow down (rate_limit_exceeded)");
}

TEST(ResponsesStream, RefusalIsKeptAndIncompleteNamesItsReason) {
  std::string text =
      event("response.output_item.added", R"({"type":"response.output_item.added","output_index":0,"item":{"id":"m","type":"message","role":"assistant","content":[]}})") +
      event("response.refusal.delta", R"({"type":"response.refusal.delta","item_id":"m","output_index":0,"content_index":0,"delta":"I can't help."})") +
      event("response.incomplete", R"({"type":"response.incomplete","response":{"id":"r","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"output":[]}})");
  auto response = parse_stream(text, 13);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->refusal, "I can't help.");
  EXPECT_EQ(response->message.text, "I can't help.");
  EXPECT_EQ(response->stop_reason, "max_output_tokens");
}

TEST(ResponsesBody, WholeResponseWithReasoningKeptVerbatim) {
  auto body = json::parse(R"({"id":"resp_2","object":"response","created_at":5,"status":"completed","model":"m",
    "output":[{"type":"reasoning","id":"rs_1","summary":[]},
              {"type":"function_call","id":"fc_2","call_id":"call_2","name":"router","arguments":"{}"}],
    "usage":{"input_tokens":3,"output_tokens":4}})");
  ASSERT_TRUE(body);
  auto response = responses_response_from_json(*body);
  ASSERT_TRUE(response) << response.error().message;
  ASSERT_EQ(response->parts.size(), 2u);
  EXPECT_EQ(response->parts[0].kind, Part::Kind::Other);
  EXPECT_EQ(json::serialize(response->parts[0].raw), R"({"type":"reasoning","id":"rs_1","summary":[]})");
  EXPECT_EQ(response->message.tool_calls.at(0).id, "call_2");
  EXPECT_EQ(response->usage.output_tokens, 4);
  auto error = responses_response_from_json(*json::parse(R"({"error":{"message":"bad key","code":"invalid_api_key"}})"));
  ASSERT_FALSE(error);
  EXPECT_EQ(error.error().message, "the server answered with an error: bad key (invalid_api_key)");
}

TEST(ResponsesRequest, BuildsInputItemsToolsAndFormat) {
  Request request;
  request.model = "gpt-5-mini";
  request.system = "Be brief.";
  request.messages.push_back(Message{Role::User, "Assess.", {}, {}});
  request.messages.push_back(Message{Role::Assistant, "", {ToolCall{"call_1", "read_file", "not json"}}, {}});
  request.messages.push_back(Message{Role::User, "", {}, {ToolResult{"call_1", "contents", false}}});
  request.tools.push_back(ToolSpec{"structured_output", "Answer", *json::parse(R"({"type":"object"})")});
  request.forced_tool = "structured_output";
  request.response_format = ResponseFormat{"structured_output", *json::parse(R"({"type":"object"})"), true};
  request.max_tokens = 100;
  EXPECT_EQ(json::serialize(responses_request_body(request)),
            R"({"model":"gpt-5-mini","instructions":"Be brief.","input":[{"role":"user","content":"Assess."},)"
            R"({"type":"function_call","call_id":"call_1","name":"read_file","arguments":"{}"},)"
            R"({"type":"function_call_output","call_id":"call_1","output":"contents"}],)"
            R"("tools":[{"type":"function","name":"structured_output","description":"Answer","parameters":{"type":"object"},"strict":false}],)"
            R"("tool_choice":{"type":"function","name":"structured_output"},)"
            // The schema and strictness as the caller gave them.
            R"("text":{"format":{"type":"json_schema","name":"structured_output","schema":{"type":"object"},"strict":true}},)"
            R"("max_output_tokens":100,"stream":true,"store":false})");
  EXPECT_EQ(responses_url("https://api.openai.com/v1/"), "https://api.openai.com/v1/responses");
}

}  // namespace
}  // namespace weld::provider
