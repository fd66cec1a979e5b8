// The Responses API in the proxy (docs/protocols.md): the request rewrite, the
// candidate from an answer, the retry turn and what the client receives,
// read back through the provider's Responses reader.
#include <gtest/gtest.h>

#include "test_util.h"
#include "weld/proxy/weld.h"

namespace weld::proxy {
namespace {

using testing::j;
using testing::read_response;
using testing::read_stream;
using testing::s;

Agent router() {
  Agent a;
  a.name = "router";
  a.description = "Pick an action";
  a.input_schema = j(R"({"properties":{"action":{"type":"string","enum":["search","refund"]}},"required":["action"]})");
  return a;
}

TEST(Responses, ForcedRequestOffersOnlyTheAgentsFunctionToolNotStrict) {
  json::Value client = j(R"({"model":"gpt-5__schema=router","instructions":"be brief","input":"refund my order",
    "tools":[{"type":"function","name":"shell","parameters":{"type":"object"}},{"type":"custom","name":"apply_patch"}],
    "tool_choice":"auto","parallel_tool_calls":true,"text":{"format":{"type":"json_schema","name":"x","schema":{}},"verbosity":"low"},
    "store":false,"stream":true})");
  json::Value up = build_upstream_request(Protocol::OpenAiResponses, client, router(), "gpt-5", true, false);
  EXPECT_EQ(R"({"model":"gpt-5","instructions":"be brief","input":"refund my order",)"
            R"("tools":[{"type":"function","name":"router","description":"Pick an action",)"
            R"("parameters":{"type":"object","properties":{"action":{"type":"string","enum":["search","refund"]}},"required":["action"]},"strict":false}],)"
            R"("tool_choice":{"type":"function","name":"router"},"parallel_tool_calls":true,"text":{"verbosity":"low"},)"
            R"("store":false,"stream":true})",
            s(up));
}

TEST(Responses, NativeSetsTextFormatAndNoTool) {
  Agent agent = router();
  agent.mechanism = Mechanism::Native;
  json::Value up = build_upstream_request(Protocol::OpenAiResponses, j(R"({"model":"m__schema=router","input":"x","text":{"verbosity":"low"}})"),
                                          agent, "m", false, false);
  EXPECT_EQ(R"({"model":"m","input":"x","text":{"verbosity":"low","format":{"type":"json_schema","name":"router",)"
            R"("description":"Pick an action","schema":{"type":"object","properties":{"action":{"type":"string","enum":["search","refund"]}},"required":["action"],)"
            R"("additionalProperties":false},"strict":true}},"stream":false})",
            s(up));
}

TEST(Responses, CandidateFromAWholeAnswerKeepsItemsForTheRetryTurn) {
  Candidate c = read_response(Protocol::OpenAiResponses, j(R"({"id":"resp_1","object":"response","created_at":7,"status":"completed","model":"gpt-5",
    "output":[{"type":"reasoning","id":"rs_1","summary":[]},
              {"type":"function_call","id":"fc_1","call_id":"call_1","name":"router","arguments":"{\"action\":\"later\"}"}],
    "usage":{"input_tokens":5,"output_tokens":6}})"), "router");
  ASSERT_NE(nullptr, c.call());
  EXPECT_EQ("call_1", c.call()->id);
  EXPECT_EQ(R"({"action":"later"})", c.call()->arguments);
  EXPECT_EQ(5, c.response.usage.input_tokens);
  EXPECT_EQ(R"([{"type":"reasoning","id":"rs_1","summary":[]},)"
            R"({"type":"function_call","call_id":"call_1","name":"router","arguments":"{\"action\":\"later\"}"}])",
            s(provider::codec_for(Protocol::OpenAiResponses).assistant_turn(c.response)));
  json::Value body = j(R"({"model":"gpt-5","input":"refund my order"})");
  append_retry_turn(Protocol::OpenAiResponses, body, c, "params/action must be equal to one of the allowed values");
  EXPECT_EQ(R"({"model":"gpt-5","input":[{"role":"user","content":"refund my order"},)"
            R"({"type":"reasoning","id":"rs_1","summary":[]},)"
            R"({"type":"function_call","call_id":"call_1","name":"router","arguments":"{\"action\":\"later\"}"},)"
            R"({"type":"function_call_output","call_id":"call_1","output":"Error: params/action must be equal to one of the allowed values"}]})",
            s(body));
}

TEST(Responses, TextAnswerGoesBackAsAUserItem) {
  Candidate c = read_response(Protocol::OpenAiResponses, j(R"({"status":"completed","output":[{"type":"message","role":"assistant",
    "content":[{"type":"output_text","text":"I think refund."}]}]})"), "router");
  EXPECT_FALSE(c.agent_call.has_value());
  EXPECT_EQ("I think refund.", c.response.message.text);
  json::Value body = j(R"({"input":[{"role":"user","content":"x"}]})");
  append_retry_turn(Protocol::OpenAiResponses, body, c, "E");
  EXPECT_EQ(R"({"input":[{"role":"user","content":"x"},)"
            R"({"type":"message","role":"assistant","content":[{"type":"output_text","text":"I think refund.","annotations":[]}]},)"
            R"({"role":"user","content":"E"}]})",
            s(body));
}

TEST(Responses, RenderedAnswerReadsBackThroughTheReader) {
  provider::Response last;
  last.id = "resp_9";
  last.created = 1700000000;
  const std::string text = R"({"action":"refund"})";
  Usage usage{30, 12};
  json::Value body = j(render_response(Protocol::OpenAiResponses, last, text, usage, "gpt-5__schema=router"));
  EXPECT_EQ("resp_9", body.find("id")->as_string());
  EXPECT_EQ(R"("completed")", s(*body.find("status")));
  EXPECT_EQ(R"({"input_tokens":30,"input_tokens_details":{"cached_tokens":0},"output_tokens":12,)"
            R"("output_tokens_details":{"reasoning_tokens":0},"total_tokens":42})",
            s(*body.find("usage")));
  EXPECT_EQ(text, read_response(Protocol::OpenAiResponses, body, "router").response.message.text);
  std::string sse = render_stream(Protocol::OpenAiResponses, last, text, usage, "gpt-5__schema=router");
  EXPECT_EQ(0u, sse.find("event: response.created\ndata: {\"type\":\"response.created\","));
  EXPECT_NE(std::string::npos, sse.find("event: response.output_text.delta\n"));
  EXPECT_NE(std::string::npos, sse.find("\"sequence_number\":7}\n\nevent: response.completed\n"));
  Candidate back = read_stream(Protocol::OpenAiResponses, sse, "router");
  EXPECT_EQ(text, back.response.message.text);
  EXPECT_EQ(30, back.response.usage.input_tokens);
  EXPECT_EQ("resp_9", back.response.id);
}

TEST(Responses, StreamErrorIsAnErrorEventTheSdkRaises) {
  EXPECT_EQ("event: error\ndata: {\"type\":\"error\",\"code\":\"structured_output_error\",\"message\":\"bad\",\"param\":null,"
            "\"error\":{\"message\":\"bad\",\"type\":\"structured_output_error\",\"param\":null,\"code\":null}}\n\n",
            render_stream_error(Protocol::OpenAiResponses, "structured_output_error", "bad"));
}

}  // namespace
}  // namespace weld::proxy
