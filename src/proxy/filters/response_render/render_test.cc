#include <gtest/gtest.h>

#include "test_util.h"
#include "weld/base/clock.h"
#include "weld/json/parse.h"
#include "weld/proxy/weld.h"

namespace weld::proxy {
namespace {

using testing::j;
using testing::s;

// The upstream's last answer, as far as rendering reads it.
provider::Response upstream(std::string id, std::int64_t created = 0) {
  provider::Response c;
  c.id = std::move(id);
  c.created = created;
  return c;
}

TEST(RenderResponse, Anthropic) {
  EXPECT_EQ(
      R"({"id":"msg_1","type":"message","role":"assistant","model":"claude-x__schema=router",)"
      R"("content":[{"type":"text","text":"{\"action\":\"refund\"}"}],"stop_reason":"end_turn","stop_sequence":null,)"
      R"("usage":{"input_tokens":30,"output_tokens":12}})",
      render_response(Protocol::AnthropicMessages, upstream("msg_1"), R"({"action":"refund"})", Usage{30, 12},
                      "claude-x__schema=router"));
}

TEST(RenderResponse, OpenAI) {
  EXPECT_EQ(
      R"({"id":"chatcmpl-1","object":"chat.completion","created":1700000000,"model":"q__schema=router",)"
      R"("choices":[{"index":0,"message":{"role":"assistant","content":"{\"action\":\"refund\"}"},"logprobs":null,"finish_reason":"stop"}],)"
      R"("usage":{"prompt_tokens":30,"completion_tokens":12,"total_tokens":42}})",
      render_response(Protocol::OpenAiChat, upstream("chatcmpl-1", 1700000000), R"({"action":"refund"})", Usage{30, 12},
                      "q__schema=router"));
}

TEST(RenderResponse, EscapesTextModelAndIdAndStaysValidJson) {
  // The answer text, the client's model and the upstream's id are data: quotes,
  // backslashes, control characters and non-ASCII must come out escaped.
  const std::string text = "{\"q\":\"a\\\"b\\n\u00e9\u4e16\"}";
  provider::Response c = upstream("id\"1\n");
  for (Protocol api : {Protocol::AnthropicMessages, Protocol::OpenAiChat}) {
    json::Value v = j(render_response(api, c, text, Usage{1, 2}, "m\"x\t"));
    EXPECT_EQ("id\"1\n", v.find("id")->as_string());
    EXPECT_EQ("m\"x\t", v.find("model")->as_string());
    const json::Value& content = api == Protocol::AnthropicMessages ? *v.find("content")->as_array()[0].find("text")
                                                       : *v.find("choices")->as_array()[0].find("message")->find("content");
    EXPECT_EQ(text, content.as_string());
  }
}

// The head of every answer the proxy makes (welded or passed back): the
// upstream's `created`, as a transparent proxy passes it on; now only when the
// upstream said none.
TEST(AnswerHead, CreatedIsTheUpstreamsAndNowOnlyWhenItHasNone) {
  StreamHead head = answer_head(upstream("chatcmpl-1", 1700000000), "q__schema=router");
  EXPECT_EQ(head.id, "chatcmpl-1");
  EXPECT_EQ(head.model, "q__schema=router");
  EXPECT_EQ(head.created, 1700000000);
  const std::int64_t before = unix_seconds();
  head = answer_head(upstream("msg_1"), "m");
  const std::int64_t after = unix_seconds();
  EXPECT_GE(head.created, before);
  EXPECT_LE(head.created, after);
  json::Value chat = j(render_response(Protocol::OpenAiChat, upstream(""), "{}", Usage{}, "m"));
  EXPECT_GE(chat.find("created")->as_integer(), before);
}

TEST(RenderResponse, MakesAnIdWhenUpstreamHasNone) {
  json::Value a = j(render_response(Protocol::AnthropicMessages, provider::Response{}, "{}", Usage{}, "m"));
  json::Value b = j(render_response(Protocol::AnthropicMessages, provider::Response{}, "{}", Usage{}, "m"));
  ASSERT_TRUE(a.find("id")->is_string());
  EXPECT_EQ(0u, a.find("id")->as_string().rfind("msg_weld_", 0));
  EXPECT_EQ(33u, a.find("id")->as_string().size());
  EXPECT_EQ(s(a), s(b));
  json::Value o = j(render_response(Protocol::OpenAiChat, provider::Response{}, "{}", Usage{}, "m"));
  EXPECT_EQ(0u, o.find("id")->as_string().rfind("chatcmpl-weld", 0));
}

TEST(RenderStream, Anthropic) {
  EXPECT_EQ(
      "event: message_start\n"
      R"(data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m__schema=router","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":30,"output_tokens":0}}})"
      "\n\n"
      "event: content_block_start\n"
      R"(data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}})"
      "\n\n"
      "event: content_block_delta\n"
      R"(data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"{\"action\":\"refund\"}"}})"
      "\n\n"
      "event: content_block_stop\n"
      R"(data: {"type":"content_block_stop","index":0})"
      "\n\n"
      "event: message_delta\n"
      R"(data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"input_tokens":30,"output_tokens":12}})"
      "\n\n"
      "event: message_stop\n"
      R"(data: {"type":"message_stop"})"
      "\n\n",
      render_stream(Protocol::AnthropicMessages, upstream("msg_1"), R"({"action":"refund"})", Usage{30, 12}, "m__schema=router"));
}

TEST(RenderStream, OpenAIWithoutUsage) {
  EXPECT_EQ(
      R"(data: {"id":"c1","object":"chat.completion.chunk","created":7,"model":"q__schema=router","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]})"
      "\n\n"
      R"(data: {"id":"c1","object":"chat.completion.chunk","created":7,"model":"q__schema=router","choices":[{"index":0,"delta":{"content":"{\"a\":1}"},"finish_reason":null}]})"
      "\n\n"
      R"(data: {"id":"c1","object":"chat.completion.chunk","created":7,"model":"q__schema=router","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]})"
      "\n\n"
      "data: [DONE]\n\n",
      render_stream(Protocol::OpenAiChat, upstream("c1", 7), R"({"a":1})", Usage{3, 4}, "q__schema=router"));
}

TEST(RenderStream, OpenAIWithUsage) {
  EXPECT_EQ(
      R"(data: {"id":"c1","object":"chat.completion.chunk","created":7,"model":"q","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}],"usage":null})"
      "\n\n"
      R"(data: {"id":"c1","object":"chat.completion.chunk","created":7,"model":"q","choices":[{"index":0,"delta":{"content":"{}"},"finish_reason":null}],"usage":null})"
      "\n\n"
      R"(data: {"id":"c1","object":"chat.completion.chunk","created":7,"model":"q","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":null})"
      "\n\n"
      R"(data: {"id":"c1","object":"chat.completion.chunk","created":7,"model":"q","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}})"
      "\n\n"
      "data: [DONE]\n\n",
      render_stream(Protocol::OpenAiChat, upstream("c1", 7), "{}", Usage{3, 4}, "q", true));
}

TEST(RenderStream, StartPlusRestEqualsWhole) {
  for (Protocol api : {Protocol::AnthropicMessages, Protocol::OpenAiChat}) {
    StreamHead head{"id1", "m", 5, true, 9};
    std::string whole = render_stream(api, upstream("id1", 5), "{\"x\":true}", Usage{9, 2}, "m", true);
    EXPECT_EQ(whole, render_stream_start(api, head) + render_stream_rest(api, head, "{\"x\":true}", Usage{9, 2}));
  }
}

// Splits an SSE text into its data payloads (checks the framing as it goes).
std::vector<std::string> data_payloads(const std::string& sse) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos < sse.size()) {
    std::size_t end = sse.find("\n\n", pos);
    EXPECT_NE(std::string::npos, end);
    if (end == std::string::npos) break;
    std::string frame = sse.substr(pos, end - pos);
    std::size_t data = frame.find("data: ");
    EXPECT_NE(std::string::npos, data) << frame;
    if (data != std::string::npos) out.push_back(frame.substr(data + 6));
    pos = end + 2;
  }
  return out;
}

TEST(RenderStream, LongTextSplitOnCodePointsAndReadsBack) {
  // 3-byte code points so that a 512-byte cut falls inside one.
  std::string text = "{\"summary\":\"";
  for (int i = 0; i < 600; ++i) text += "\xE2\x82\xAC";  // €
  text += "\"}";
  for (Protocol api : {Protocol::AnthropicMessages, Protocol::OpenAiChat}) {
    std::string sse = render_stream(api, upstream("x"), text, Usage{1, 2}, "m");
    int deltas = 0;
    for (const std::string& payload : data_payloads(sse)) {
      if (payload == "[DONE]") continue;
      auto event = json::parse(payload);
      ASSERT_TRUE(event.ok()) << payload;  // every piece is valid UTF-8 JSON
      if (payload.find("text_delta") != std::string::npos || payload.find("\"delta\":{\"content\"") != std::string::npos) {
        ++deltas;
      }
    }
    EXPECT_EQ(text, testing::read_stream(api, sse, "router").response.message.text);
    EXPECT_EQ(4, deltas);  // 1814 bytes in pieces of at most 512
  }
}

TEST(KeepaliveFrame, BothApis) {
  EXPECT_EQ("event: ping\ndata: {\"type\": \"ping\"}\n\n", keepalive_frame(Protocol::AnthropicMessages));
  EXPECT_EQ(": keep-alive\n\n", keepalive_frame(Protocol::OpenAiChat));
}

TEST(RenderError, Anthropic) {
  EXPECT_EQ(R"({"type":"error","error":{"type":"invalid_request_error","message":"unknown agent 'x'"}})",
            s(render_error(Protocol::AnthropicMessages, "invalid_request_error", "unknown agent 'x'")));
  json::Value candidate = j(R"({"action":"fly"})");
  EXPECT_EQ(R"({"type":"error","error":{"type":"structured_output_error",)"
            R"("message":"params/action must be equal to one of the allowed values","candidate":{"action":"fly"}}})",
            s(render_error(Protocol::AnthropicMessages, "structured_output_error",
                           "params/action must be equal to one of the allowed values", &candidate)));
}

TEST(RenderError, OpenAI) {
  EXPECT_EQ(R"({"error":{"message":"upstream timed out","type":"api_error","param":null,"code":null}})",
            s(render_error(Protocol::OpenAiChat, "api_error", "upstream timed out")));
  json::Value raw = "{\"action\": fl";
  EXPECT_EQ(R"({"error":{"message":"m","type":"structured_output_error","param":null,"code":null,"candidate":"{\"action\": fl"}})",
            s(render_error(Protocol::OpenAiChat, "structured_output_error", "m", &raw)));
}

TEST(RenderStreamError, BothApis) {
  EXPECT_EQ("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"busy\"}}\n\n",
            render_stream_error(Protocol::AnthropicMessages, "overloaded_error", "busy"));
  EXPECT_EQ("data: {\"error\":{\"message\":\"busy\",\"type\":\"api_error\",\"param\":null,\"code\":null}}\n\n",
            render_stream_error(Protocol::OpenAiChat, "api_error", "busy"));
}

}  // namespace
}  // namespace weld::proxy

namespace weld::proxy {
namespace {

TEST(RenderResponse, TotalTokensSaturates) {
  json::Value o =
      testing::j(render_response(Protocol::OpenAiChat, provider::Response{}, "{}", Usage{INT64_MAX, 5}, "m"));
  EXPECT_EQ(R"({"prompt_tokens":9223372036854775807,"completion_tokens":5,"total_tokens":9223372036854775807})",
            testing::s(*o.find("usage")));
}

}  // namespace
}  // namespace weld::proxy

namespace weld::proxy {
namespace {

TEST(Usage, SumsOverAttemptsSaturate) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  Usage sum;
  sum += Usage{kMax - 10, 7};
  sum += Usage{100, 5};
  EXPECT_EQ(kMax, sum.input_tokens);
  EXPECT_EQ(12, sum.output_tokens);
  EXPECT_EQ(kMax, sum.total());
  Usage low{std::numeric_limits<std::int64_t>::min() + 1, -5};
  EXPECT_EQ(std::numeric_limits<std::int64_t>::min(), low.total());
  // What the client reads: total_tokens saturated too.
  std::string stream =
      render_stream(Protocol::OpenAiChat, provider::Response{}, "{}", sum, "m", /*include_usage=*/true);
  EXPECT_NE(std::string::npos, stream.find("\"total_tokens\":9223372036854775807")) << stream;
}

}  // namespace
}  // namespace weld::proxy
