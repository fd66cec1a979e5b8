#include <gtest/gtest.h>

#include "test_util.h"
#include "weld/proxy/weld.h"

namespace weld::proxy {
namespace {

using testing::j;
using testing::s;

Agent router() {
  Agent a;
  a.name = "router";
  a.description = "Pick an action";
  a.input_schema = j(R"({"type":"object","properties":{"action":{"type":"string","enum":["search","refund"]}},"required":["action"]})");
  return a;
}

TEST(BuildUpstreamRequest, AnthropicForced) {
  json::Value client = j(R"({
    "model":"claude-x__schema=router","max_tokens":1024,"system":"be brief",
    "messages":[{"role":"user","content":"refund my order"}],
    "tools":[{"name":"Bash","description":"run","input_schema":{"type":"object"}}],
    "tool_choice":{"type":"auto"},
    "thinking":{"type":"enabled","budget_tokens":2048},
    "temperature":0.2,"metadata":{"user_id":"u1"},"stream":true})");
  json::Value up = build_upstream_request(Protocol::AnthropicMessages, client, router(), "claude-x", false, false);
  EXPECT_EQ(
      R"({"model":"claude-x","max_tokens":1024,"system":"be brief",)"
      R"("messages":[{"role":"user","content":"refund my order"}],)"
      R"("tools":[{"name":"router","description":"Pick an action","input_schema":{"type":"object","properties":{"action":{"type":"string","enum":["search","refund"]}},"required":["action"]}}],)"
      R"("tool_choice":{"type":"tool","name":"router"},)"
      R"("temperature":0.2,"metadata":{"user_id":"u1"},"stream":false})",
      s(up));
}

TEST(BuildUpstreamRequest, AnthropicAppendsToolsWhenAbsentAndSetsStream) {
  json::Value client = j(R"({"model":"m__schema=router","max_tokens":10,"messages":[]})");
  json::Value up = build_upstream_request(Protocol::AnthropicMessages, client, router(), "m", true, false);
  EXPECT_EQ(
      R"({"model":"m","max_tokens":10,"messages":[],)"
      R"("tools":[{"name":"router","description":"Pick an action","input_schema":{"type":"object","properties":{"action":{"type":"string","enum":["search","refund"]}},"required":["action"]}}],)"
      R"("tool_choice":{"type":"tool","name":"router"},"stream":true})",
      s(up));
}

TEST(BuildUpstreamRequest, AnthropicDropsOutputFormatKeepsEffort) {
  json::Value client = j(R"({"model":"m","messages":[],
    "output_config":{"effort":"low","format":{"type":"json_schema","schema":{}}},
    "output_format":{"type":"json_schema","schema":{}}})");
  json::Value up = build_upstream_request(Protocol::AnthropicMessages, client, router(), "m", false, false);
  EXPECT_EQ(R"({"effort":"low"})", s(*up.find("output_config")));
  EXPECT_EQ(nullptr, up.find("output_format"));

  json::Value only_format = j(R"({"model":"m","messages":[],"output_config":{"format":{"type":"json_schema"}}})");
  up = build_upstream_request(Protocol::AnthropicMessages, only_format, router(), "m", false, false);
  EXPECT_EQ(nullptr, up.find("output_config"));
}

TEST(BuildUpstreamRequest, AnthropicSchemaGetsRootTypeObject) {
  Agent a = router();
  a.input_schema = j(R"({"properties":{"x":{"type":"integer"}},"required":["x"]})");
  json::Value up = build_upstream_request(Protocol::AnthropicMessages, j(R"({"model":"m","messages":[]})"), a, "m", false, false);
  EXPECT_EQ(R"([{"name":"router","description":"Pick an action","input_schema":{"type":"object","properties":{"x":{"type":"integer"}},"required":["x"]}}])",
            s(*up.find("tools")));
  // The agent's own schema is untouched (validation uses it).
  EXPECT_EQ(R"({"properties":{"x":{"type":"integer"}},"required":["x"]})", s(a.input_schema));
}

TEST(BuildUpstreamRequest, OpenAIForced) {
  json::Value client = j(R"({
    "model":"qwen__schema=router","messages":[{"role":"system","content":"s"},{"role":"user","content":"hi"}],
    "tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object"}}}],
    "tool_choice":"auto","response_format":{"type":"json_object"},"reasoning_effort":"high",
    "functions":[{"name":"old"}],"function_call":"auto",
    "max_tokens":100,"temperature":0,"stream":true,"stream_options":{"include_usage":false},"user":"u"})");
  json::Value up = build_upstream_request(Protocol::OpenAiChat, client, router(), "qwen", false, false);
  EXPECT_EQ(
      R"({"model":"qwen","messages":[{"role":"system","content":"s"},{"role":"user","content":"hi"}],)"
      R"("tools":[{"type":"function","function":{"name":"router","description":"Pick an action","parameters":{"type":"object","properties":{"action":{"type":"string","enum":["search","refund"]}},"required":["action"]}}}],)"
      R"("tool_choice":{"type":"function","function":{"name":"router"}},)"
      R"("max_tokens":100,"temperature":0,"stream":false,"user":"u",)"
      R"("chat_template_kwargs":{"enable_thinking":false}})",
      s(up));
}

TEST(BuildUpstreamRequest, OpenAIStreamingAsksForUsage) {
  json::Value client = j(R"({"model":"q__schema=router","messages":[],"stream":true})");
  json::Value up = build_upstream_request(Protocol::OpenAiChat, client, router(), "q", true, false);
  EXPECT_EQ(
      R"({"model":"q","messages":[],"stream":true,)"
      R"("tools":[{"type":"function","function":{"name":"router","description":"Pick an action","parameters":{"type":"object","properties":{"action":{"type":"string","enum":["search","refund"]}},"required":["action"]}}}],)"
      R"("tool_choice":{"type":"function","function":{"name":"router"}},)"
      R"("chat_template_kwargs":{"enable_thinking":false},"stream_options":{"include_usage":true}})",
      s(up));
  json::Value with_options = j(R"({"model":"q","messages":[],"stream_options":{"include_usage":false,"x":1}})");
  up = build_upstream_request(Protocol::OpenAiChat, with_options, router(), "q", true, false);
  EXPECT_EQ(R"({"include_usage":true,"x":1})", s(*up.find("stream_options")));
}

TEST(BuildUpstreamRequest, OpenAIMergesClientTemplateKwargs) {
  json::Value client = j(R"({"model":"q","messages":[],"chat_template_kwargs":{"enable_thinking":true,"custom":"v"}})");
  json::Value up = build_upstream_request(Protocol::OpenAiChat, client, router(), "q", false, false);
  EXPECT_EQ(R"({"enable_thinking":false,"custom":"v"})", s(*up.find("chat_template_kwargs")));
}

TEST(BuildUpstreamRequest, OpenAIStrictUpstreamWithoutTemplateKwargs) {
  Agent a = router();
  a.chat_template_kwargs = false;
  json::Value up = build_upstream_request(Protocol::OpenAiChat, j(R"({"model":"q","messages":[]})"), a, "q", false, false);
  EXPECT_EQ(nullptr, up.find("chat_template_kwargs"));
}

TEST(BuildUpstreamRequest, OpenAIAgentTemplateKwargsReplaceTheDefault) {
  Agent a = router();
  a.template_kwargs = j(R"({"enable_thinking":false,"thinking_budget":0})");
  json::Value client = j(R"({"model":"q","messages":[],"chat_template_kwargs":{"enable_thinking":true,"custom":"v"}})");
  json::Value up = build_upstream_request(Protocol::OpenAiChat, client, a, "q", false, false);
  EXPECT_EQ(R"({"enable_thinking":false,"custom":"v","thinking_budget":0})", s(*up.find("chat_template_kwargs")));
  // Sent in two-phase mode too (the default only goes with a forced tool).
  a.mode = Mode::TwoPhase;
  up = build_upstream_request(Protocol::OpenAiChat, j(R"({"model":"q","messages":[]})"), a, "q", false, false);
  EXPECT_EQ(R"({"enable_thinking":false,"thinking_budget":0})", s(*up.find("chat_template_kwargs")));
  Agent plain = router();
  plain.mode = Mode::TwoPhase;
  up = build_upstream_request(Protocol::OpenAiChat, j(R"({"model":"q","messages":[]})"), plain, "q", false, false);
  EXPECT_EQ(nullptr, up.find("chat_template_kwargs"));
  // Never on the Anthropic shape.
  up = build_upstream_request(Protocol::AnthropicMessages, j(R"({"model":"q","messages":[]})"), a, "q", false, false);
  EXPECT_EQ(nullptr, up.find("chat_template_kwargs"));
}

TEST(BuildUpstreamRequest, OpenAIDropsThinkingToo) {
  json::Value up = build_upstream_request(Protocol::OpenAiChat, j(R"({"model":"q","messages":[],"thinking":{"type":"enabled"}})"),
                                          router(), "q", false, false);
  EXPECT_EQ(nullptr, up.find("thinking"));
}

TEST(BuildUpstreamRequest, AnthropicTwoPhaseKeepsClientToolsAndChoice) {
  Agent a = router();
  a.mode = Mode::TwoPhase;
  json::Value client = j(R"({"model":"m__schema=router","messages":[],
    "tools":[{"name":"Bash","input_schema":{"type":"object"}},{"name":"router","input_schema":{}}],
    "tool_choice":{"type":"auto"},"thinking":{"type":"enabled","budget_tokens":1024}})");
  json::Value up = build_upstream_request(Protocol::AnthropicMessages, client, a, "m", false, false);
  EXPECT_EQ(
      R"({"model":"m","messages":[],)"
      R"("tools":[{"name":"Bash","input_schema":{"type":"object"}},{"name":"router","description":"Pick an action","input_schema":{"type":"object","properties":{"action":{"type":"string","enum":["search","refund"]}},"required":["action"]}}],)"
      R"("tool_choice":{"type":"auto"},"thinking":{"type":"enabled","budget_tokens":1024},"stream":false})",
      s(up));
}

TEST(BuildUpstreamRequest, AnthropicTwoPhaseForcedSecondAsk) {
  Agent a = router();
  a.mode = Mode::TwoPhase;
  json::Value client = j(R"({"model":"m__schema=router","messages":[],
    "tools":[{"name":"Bash","input_schema":{"type":"object"}}],
    "tool_choice":{"type":"auto"},"thinking":{"type":"enabled","budget_tokens":1024}})");
  json::Value up = build_upstream_request(Protocol::AnthropicMessages, client, a, "m", true, true);
  EXPECT_EQ(
      R"({"model":"m","messages":[],)"
      R"("tools":[{"name":"Bash","input_schema":{"type":"object"}},{"name":"router","description":"Pick an action","input_schema":{"type":"object","properties":{"action":{"type":"string","enum":["search","refund"]}},"required":["action"]}}],)"
      R"("tool_choice":{"type":"tool","name":"router"},"stream":true})",
      s(up));
}

TEST(BuildUpstreamRequest, OpenAITwoPhase) {
  Agent a = router();
  a.mode = Mode::TwoPhase;
  json::Value client = j(R"({"model":"q__schema=router","messages":[],
    "tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object"}}}]})");
  json::Value up = build_upstream_request(Protocol::OpenAiChat, client, a, "q", false, false);
  EXPECT_EQ(
      R"({"model":"q","messages":[],)"
      R"("tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object"}}},)"
      R"({"type":"function","function":{"name":"router","description":"Pick an action","parameters":{"type":"object","properties":{"action":{"type":"string","enum":["search","refund"]}},"required":["action"]}}}],)"
      R"("stream":false})",
      s(up));
  up = build_upstream_request(Protocol::OpenAiChat, client, a, "q", false, true);
  EXPECT_EQ(R"({"type":"function","function":{"name":"router"}})", s(*up.find("tool_choice")));
  EXPECT_EQ(R"({"enable_thinking":false})", s(*up.find("chat_template_kwargs")));
}

TEST(BuildUpstreamRequest, AnthropicNative) {
  Agent a = router();
  a.mechanism = Mechanism::Native;
  json::Value client = j(R"({"model":"m__schema=router","max_tokens":5,"messages":[],
    "tools":[{"name":"Bash","input_schema":{"type":"object"}}],"tool_choice":{"type":"auto"},
    "thinking":{"type":"enabled","budget_tokens":1024},"output_config":{"effort":"low"}})");
  json::Value up = build_upstream_request(Protocol::AnthropicMessages, client, a, "m", true, false);
  EXPECT_EQ(
      R"({"model":"m","max_tokens":5,"messages":[],)"
      // The schema lowered for Anthropic (its objects must be closed).
      R"("output_config":{"effort":"low","format":{"type":"json_schema","schema":{"type":"object","properties":{"action":{"type":"string","enum":["search","refund"]}},"required":["action"],"additionalProperties":false}}},)"
      R"("stream":true})",
      s(up));
}

TEST(BuildUpstreamRequest, OpenAINative) {
  Agent a = router();
  a.mechanism = Mechanism::Native;
  json::Value client = j(R"({"model":"q__schema=router","messages":[],"response_format":{"type":"text"},
    "tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":"auto"})");
  json::Value up = build_upstream_request(Protocol::OpenAiChat, client, a, "q", false, false);
  EXPECT_EQ(
      R"({"model":"q","messages":[],"response_format":{"type":"json_schema","json_schema":{"name":"router","description":"Pick an action",)"
      R"("schema":{"type":"object","properties":{"action":{"type":"string","enum":["search","refund"]}},"required":["action"],)"
      R"("additionalProperties":false},"strict":true}},)"
      R"("chat_template_kwargs":{"enable_thinking":false},"stream":false})",
      s(up));
}

TEST(BuildUpstreamRequest, AutoMechanismUsesTheTool) {
  Agent a = router();
  a.mechanism = Mechanism::Auto;
  json::Value up = build_upstream_request(Protocol::OpenAiChat, j(R"({"model":"q","messages":[]})"), a, "q", false, false);
  EXPECT_EQ(R"({"type":"function","function":{"name":"router"}})", s(*up.find("tool_choice")));
}

TEST(BuildUpstreamRequest, PreparedAgentSendsTheSameToolsAsAnUnpreparedOne) {
  // load_registry prepares agents (tools built once); the request must not
  // tell the difference, in either API, forced or two-phase.
  Agent prepared = router();
  prepare_agent(prepared);
  ASSERT_FALSE(prepared.tools[static_cast<std::size_t>(Protocol::OpenAiChat)].is_null());
  ASSERT_FALSE(prepared.tools[static_cast<std::size_t>(Protocol::AnthropicMessages)].is_null());
  Agent two_phase = router();
  two_phase.mode = Mode::TwoPhase;
  Agent two_phase_prepared = two_phase;
  prepare_agent(two_phase_prepared);
  json::Value client = j(R"({"model":"m__schema=router","messages":[],"tools":[{"name":"Bash","input_schema":{}}]})");
  for (Protocol api : {Protocol::AnthropicMessages, Protocol::OpenAiChat}) {
    EXPECT_EQ(s(build_upstream_request(api, client, router(), "m", false, false)),
              s(build_upstream_request(api, client, prepared, "m", false, false)));
    EXPECT_EQ(s(build_upstream_request(api, client, two_phase, "m", true, false)),
              s(build_upstream_request(api, client, two_phase_prepared, "m", true, false)));
  }
  // A description changed after preparing is only sent once prepared again.
  prepared.description = "Choose";
  prepare_agent(prepared);
  EXPECT_NE(s(build_upstream_request(Protocol::OpenAiChat, client, prepared, "m", false, false)).find("\"Choose\""),
            std::string::npos);
}

TEST(BuildUpstreamRequest, EmptyDescriptionLeftOut) {
  Agent a = router();
  a.description.clear();
  a.input_schema = j(R"({"type":"object"})");
  json::Value body = j(R"({"model":"q","messages":[]})");
  EXPECT_EQ(R"([{"name":"router","input_schema":{"type":"object"}}])",
            s(*build_upstream_request(Protocol::AnthropicMessages, body, a, "q", false, false).find("tools")));
  EXPECT_EQ(R"([{"type":"function","function":{"name":"router","parameters":{"type":"object"}}}])",
            s(*build_upstream_request(Protocol::OpenAiChat, body, a, "q", false, false).find("tools")));
}

TEST(BuildUpstreamRequest, MovedBodyGivesTheSameRequestAsACopiedOne) {
  // schema_injection passes the parsed client body by std::move; the
  // result must not depend on whether the body was copied or moved.
  Agent two_phase = router();
  two_phase.mode = Mode::TwoPhase;
  const json::Value client = j(R"({"model":"m__schema=router","messages":[{"role":"user","content":"hi"}],
    "tools":[{"name":"Bash","input_schema":{}},{"type":"function","function":{"name":"router"}},{"name":"router"}],
    "thinking":{"type":"enabled"},"stream_options":{"include_usage":false}})");
  for (Protocol api : {Protocol::AnthropicMessages, Protocol::OpenAiChat}) {
    for (const Agent& agent : {router(), two_phase}) {
      for (bool force : {false, true}) {
        json::Value moved = client;
        EXPECT_EQ(s(build_upstream_request(api, client, agent, "m", true, force)),
                  s(build_upstream_request(api, std::move(moved), agent, "m", true, force)));
      }
    }
  }
}

TEST(BuildUpstreamRequest, RewritingItsOwnOutputChangesNothing) {
  // The two-phase forced follow-up rewrites the request it just sent.
  Agent two_phase = router();
  two_phase.mode = Mode::TwoPhase;
  Agent native = router();
  native.mechanism = Mechanism::Native;
  const json::Value client = j(R"({"model":"m__schema=router","messages":[{"role":"user","content":"hi"}],
    "tools":[{"name":"Bash","input_schema":{}},{"type":"function","function":{"name":"Bash"}}],
    "tool_choice":"auto","thinking":{"type":"enabled"},"response_format":{"type":"text"}})");
  for (Protocol api : {Protocol::AnthropicMessages, Protocol::OpenAiChat}) {
    for (const Agent& agent : {router(), two_phase, native}) {
      for (bool stream : {false, true}) {
        json::Value once = build_upstream_request(api, client, agent, "m", stream, true);
        json::Value twice = build_upstream_request(api, once, agent, "m", stream, true);
        EXPECT_TRUE(once == twice) << s(once) << "\n" << s(twice);  // members may move to the end
      }
    }
  }
  // Two-phase, first ask then forced follow-up: the same as forcing at once.
  for (Protocol api : {Protocol::AnthropicMessages, Protocol::OpenAiChat}) {
    json::Value first = build_upstream_request(api, client, two_phase, "m", true, false);
    json::Value at_once = build_upstream_request(api, client, two_phase, "m", true, true);
    json::Value followup = build_upstream_request(api, std::move(first), two_phase, "m", true, true);
    EXPECT_TRUE(at_once == followup) << s(at_once) << "\n" << s(followup);
  }
}

TEST(BuildUpstreamRequest, NonObjectBodyBecomesObject) {
  json::Value up = build_upstream_request(Protocol::AnthropicMessages, j("[1,2]"), router(), "m", false, false);
  EXPECT_EQ("m", up.find("model")->as_string());
  EXPECT_TRUE(up.find("tools")->is_array());
}

}  // namespace
}  // namespace weld::proxy
