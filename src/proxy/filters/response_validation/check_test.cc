// check_candidate over the real schema engine and repair module, with the
// source's shapes (seed 004: router, advisor, brief) and a ticket.

#include <gtest/gtest.h>

#include "test_util.h"
#include "weld/proxy/weld.h"

namespace weld::proxy {
namespace {

using testing::j;
using testing::read_response;

Agent make_agent(std::string name, const char* schema) {
  Agent a;
  a.name = std::move(name);
  a.input_schema = j(schema);
  a.schema = std::make_shared<const schema::Schema>(schema::Schema::compile(a.input_schema));
  return a;
}

Agent router() {
  return make_agent("router", R"({"type":"object","properties":{"action":{"type":"string",
      "enum":["search","calculator","translate","refund"]}},"required":["action"]})");
}

Agent advisor() {
  return make_agent("advisor", R"({"type":"object","properties":{
      "options":{"type":"array","items":{"type":"object","properties":{
        "label":{"type":"string"},"confidence":{"type":"number","minimum":0,"maximum":1},"reason":{"type":"string"}},
        "required":["label","confidence","reason"]}},
      "summary":{"type":"string"}},"required":["options","summary"]})");
}

Agent brief() {
  return make_agent("brief", R"({"type":"object","properties":{
      "options":{"type":"array","minItems":1,"maxItems":3,"items":{"type":"object","properties":{
        "label":{"type":"string"},"confidence":{"type":"number","minimum":0,"maximum":1},
        "reason":{"type":"string","maxLength":80}},"required":["label","confidence","reason"]}},
      "summary":{"type":"string","maxLength":120}},"required":["options","summary"]})");
}

Agent ticket() {
  return make_agent("ticket", R"({"type":"object","properties":{
      "title":{"type":"string"},"priority":{"type":"string","enum":["low","medium","high"]},
      "urgent":{"type":"boolean"},"estimate_hours":{"type":"integer","minimum":1}},
      "required":["title","priority","urgent"],"additionalProperties":false})");
}

// An answer that called `tool` with `arguments`.
Candidate call(std::string arguments, std::string tool = "router") {
  Candidate c;
  c.response.message.tool_calls.push_back(provider::ToolCall{"toolu_1", std::move(tool), std::move(arguments)});
  c.agent_call = 0;
  return c;
}

// An answer that said `text` and called no tool.
Candidate said(std::string text) {
  Candidate c;
  c.response.message.text = std::move(text);
  return c;
}

// The check as the proxy makes it for an OpenAI Chat client (whose lowering,
// openai-strict, a native answer maps back through).
Verdict check(const Candidate& candidate, const Agent& agent, bool allow_repair = true) {
  return check_candidate(Protocol::OpenAiChat, candidate, agent, allow_repair);
}

TEST(CheckCandidate, ValidTextIsCompactInModelKeyOrder) {
  Verdict v = check(call(R"({ "summary": "go with A",
      "options": [ {"reason": "cheap", "label": "A", "confidence": 0.75} ] })"), advisor());
  EXPECT_TRUE(v.valid);
  EXPECT_EQ(R"({"summary":"go with A","options":[{"reason":"cheap","label":"A","confidence":0.75}]})", v.text);
  EXPECT_TRUE(v.repairs.empty());
  EXPECT_EQ("", v.errors);
  EXPECT_EQ(v.text, testing::s(v.value));
}

TEST(CheckCandidate, UnicodeStaysUnescaped) {
  Verdict v = check(call(R"({"action":"refund","note":"\u00e9t\u00e9 ✓"})"), router());
  EXPECT_TRUE(v.valid);
  EXPECT_EQ("{\"action\":\"refund\",\"note\":\"été ✓\"}", v.text);
}

TEST(CheckCandidate, EnumViolationInAjvWording) {
  Verdict v = check(call(R"({"action":"fly"})"), router());
  EXPECT_FALSE(v.valid);
  EXPECT_EQ("params/action must be equal to one of the allowed values: \"search\", \"calculator\", \"translate\", \"refund\" (got \"fly\")", v.errors);
  EXPECT_EQ("", v.text);
}

TEST(CheckCandidate, SeveralErrorsOnePerLine) {
  Verdict v = check(call(R"({"title":"t","priority":"urgent","extra":1})"), ticket());
  EXPECT_FALSE(v.valid);
  EXPECT_EQ("params must have required property 'urgent'\n"
            "params/priority must be equal to one of the allowed values: \"low\", \"medium\", \"high\" (got \"urgent\")\n"
            "params must NOT have additional properties: \"extra\"",
            v.errors);
}

TEST(CheckCandidate, EmptyArgumentsAreAnEmptyObject) {
  Verdict v = check(call(""), router());
  EXPECT_FALSE(v.valid);
  EXPECT_EQ("params must have required property 'action'", v.errors);
}

TEST(CheckCandidate, ClampsPerAgent) {
  const char* args = R"({"options":[{"label":"A","confidence":1.4,"reason":"r"}],"summary":"s"})";
  Verdict clamped = check(call(args), advisor());
  EXPECT_TRUE(clamped.valid);
  // A real clamped to the bound stays a real (weld's serializer keeps ".0").
  EXPECT_EQ(R"({"options":[{"label":"A","confidence":1.0,"reason":"r"}],"summary":"s"})", clamped.text);
  ASSERT_EQ(1u, clamped.repairs.size());
  EXPECT_EQ("clamp", clamped.repairs[0].kind);
  EXPECT_EQ("/options/0/confidence", clamped.repairs[0].path);

  Agent strict = advisor();
  strict.clamp = false;
  Verdict refused = check(call(args), strict);
  EXPECT_FALSE(refused.valid);
  EXPECT_EQ("params/options/0/confidence must be <= 1 (got 1.4)", refused.errors);
}

TEST(CheckCandidate, ClampStillAppliesWithoutRepair) {
  Verdict v = check(call(R"({"options":[{"label":"A","confidence":-0.5,"reason":"r"}],"summary":"s"})"),
                              brief(), /*allow_repair=*/false);
  EXPECT_TRUE(v.valid);
  EXPECT_EQ(R"({"options":[{"label":"A","confidence":0.0,"reason":"r"}],"summary":"s"})", v.text);
}

TEST(CheckCandidate, ParseRepairOnlyWhenAllowed) {
  const char* fenced = "```json\n{\"action\": \"search\",}\n```";
  Verdict repaired = check(call(fenced), router());
  EXPECT_TRUE(repaired.valid);
  EXPECT_EQ(R"({"action":"search"})", repaired.text);
  ASSERT_FALSE(repaired.repairs.empty());
  EXPECT_EQ("code_fence", repaired.repairs[0].kind);

  Verdict refused = check(call(fenced), router(), /*allow_repair=*/false);
  EXPECT_FALSE(refused.valid);
  EXPECT_EQ(0u, refused.errors.rfind("params must be valid JSON (", 0)) << refused.errors;
  EXPECT_EQ(std::string::npos, refused.errors.find('\n'));
}

TEST(CheckCandidate, CoercionOnlyWhenAllowed) {
  const char* args = R"({"title":"t","priority":"high","urgent":"true","estimate_hours":"3"})";
  Verdict coerced = check(call(args), ticket());
  EXPECT_TRUE(coerced.valid);
  EXPECT_EQ(R"({"title":"t","priority":"high","urgent":true,"estimate_hours":3})", coerced.text);
  EXPECT_EQ(2u, coerced.repairs.size());

  Verdict refused = check(call(args), ticket(), /*allow_repair=*/false);
  EXPECT_FALSE(refused.valid);
  EXPECT_EQ("params/urgent must be boolean (got \"true\")\nparams/estimate_hours must be integer (got \"3\")", refused.errors);
}

TEST(CheckCandidate, BriefLimits) {
  Verdict v = check(call(R"({"options":[],"summary":"s"})"), brief());
  EXPECT_FALSE(v.valid);
  EXPECT_EQ("params/options must NOT have fewer than 1 items (got an array of 0)", v.errors);
}

TEST(CheckCandidate, NoToolCall) {
  Candidate c = said(R"({"action":"refund"})");
  Verdict v = check(c, router());
  EXPECT_FALSE(v.valid);
  EXPECT_EQ("the answer did not call the tool 'router': call it with arguments that match its input schema",
            v.errors);
}

TEST(CheckCandidate, NativeChecksTheText) {
  Agent a = router();
  a.mechanism = Mechanism::Native;
  Candidate c = read_response(Protocol::OpenAiChat, j(R"({"choices":[{"message":{"role":"assistant",
      "content":"```json\n{\"action\": \"search\"}\n```"}}]})"), "router");
  Verdict v = check(c, a);
  EXPECT_TRUE(v.valid);
  EXPECT_EQ(R"({"action":"search"})", v.text);

  c.response.message.text = R"({"action":"fly"})";
  v = check(c, a);
  EXPECT_FALSE(v.valid);
  EXPECT_EQ("params/action must be equal to one of the allowed values: \"search\", \"calculator\", \"translate\", \"refund\" (got \"fly\")", v.errors);

  c.response.message.text = " \n";
  v = check(c, a);
  EXPECT_FALSE(v.valid);
  EXPECT_EQ("the answer was empty: answer with only a JSON value that matches the schema", v.errors);
}

// docs/run.md, "Mechanisms": the native strict rewrite made the optional `reason` nullable; a
// null the user's schema refuses is dropped again (repair "drop_null"),
// whatever the repair switch, since weld asked for it.
TEST(CheckCandidate, NativeDropsANullOnlyTheStrictRewriteAllowed) {
  Agent a = make_agent("pick", R"({"type":"object","properties":{"action":{"type":"string"},"reason":{"type":"string"}},)"
                               R"("required":["action"]})");
  a.mechanism = Mechanism::Native;
  Candidate c = said(R"({"action":"search","reason":null})");
  for (bool allow_repair : {true, false}) {
    Verdict v = check(c, a, allow_repair);
    EXPECT_TRUE(v.valid) << v.errors;
    EXPECT_EQ(R"({"action":"search"})", v.text);
    ASSERT_EQ(1u, v.repairs.size());
    EXPECT_EQ("drop_null", v.repairs[0].kind);
    EXPECT_EQ("/reason", v.repairs[0].path);
  }
  // A null for a required property is the model's own error.
  c.response.message.text = R"({"action":null})";
  EXPECT_FALSE(check(c, a).valid);
  // The tool mechanism sends no rewrite: nothing to undo.
  a.mechanism = Mechanism::Tool;
  EXPECT_FALSE(check(call(R"({"action":"search","reason":null})", "pick"), a).valid);
}

TEST(CheckCandidate, StreamedAndWholeAnswersGiveTheSameVerdict) {
  Candidate streamed = testing::read_stream(Protocol::OpenAiChat,
      "data: " R"({"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"router","arguments":"{\"action\":"}}]}}]})" "\n\n"
      "data: " R"({"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"refund\"}"}}]},"finish_reason":"tool_calls"}]})" "\n\n",
      "router");
  Candidate whole = read_response(Protocol::OpenAiChat, j(R"({"choices":[{"message":{"tool_calls":[
      {"id":"c","function":{"name":"router","arguments":"{\"action\":\"refund\"}"}}]}}]})"), "router");
  Verdict a = check(streamed, router());
  Verdict b = check(whole, router());
  EXPECT_TRUE(a.valid);
  EXPECT_EQ(R"({"action":"refund"})", a.text);
  EXPECT_EQ(a.text, b.text);
}

}  // namespace
}  // namespace weld::proxy
