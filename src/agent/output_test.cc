#include "weld/agent/output.h"

#include <gtest/gtest.h>

#include "test_model.h"
#include "weld/json/parse.h"
#include "weld/json/serialize.h"

namespace weld::agent {
namespace {

RunOutcome success_outcome() {
  RunOutcome out;
  out.subtype = Subtype::Success;
  out.exit_code = 0;
  out.structured = *json::parse(R"({"summary":"é ok","risk_level":"low"})");
  out.num_turns = 2;
  out.attempts = 1;
  out.usage.input_tokens = 3;
  out.usage.output_tokens = 4;
  out.duration_ms = 12;
  out.duration_api_ms = 10;
  out.session_id = "sid";
  out.stop_reason = "tool_use";
  return out;
}

TEST(ResultEnvelope, SuccessHasEveryFieldInOrder) {
  std::string text = json::serialize(result_envelope(success_outcome()));
  EXPECT_EQ(text,
            R"({"type":"result","subtype":"success","is_error":false,"result":"{\"summary\":\"é ok\",\"risk_level\":\"low\"}",)"
            R"("structured_result":{"summary":"é ok","risk_level":"low"},)"
            R"("structured_output":{"summary":"é ok","risk_level":"low"},"num_turns":2,"attempts":1,"repairs":[],)"
            R"("usage":{"input_tokens":3,"output_tokens":4,"cache_read_input_tokens":0,"cache_creation_input_tokens":0},)"
            R"("duration_ms":12,"duration_api_ms":10,"api_error_status":null,"session_id":"sid","stop_reason":"tool_use"})");
}

TEST(ResultEnvelope, CostAndTimeToFirstTokenOnlyWhenKnown) {
  RunOutcome out = success_outcome();
  out.usage.input_tokens = 2'000'000;
  out.usage.output_tokens = 500'000;
  out.ttft_ms = 42;
  Prices prices{0.15, 0.60, std::nullopt, std::nullopt};
  json::Value env = result_envelope(out, &prices);
  ASSERT_NE(env.find("total_cost_usd"), nullptr);
  EXPECT_DOUBLE_EQ(env.find("total_cost_usd")->as_double(), 2 * 0.15 + 0.5 * 0.60);
  EXPECT_EQ(env.find("ttft_ms")->as_integer(), 42);
  // No prices given: no cost at all, never a guessed one.
  EXPECT_EQ(result_envelope(out).find("total_cost_usd"), nullptr);
  // Cached tokens without their price: the cost would be wrong, so it is left out.
  out.usage.cache_read_input_tokens = 1'000'000;
  EXPECT_EQ(result_envelope(out, &prices).find("total_cost_usd"), nullptr);
  prices.cache_read = 0.075;
  EXPECT_DOUBLE_EQ(result_envelope(out, &prices).find("total_cost_usd")->as_double(), 0.30 + 0.30 + 0.075);
}

TEST(ResultEnvelope, ApiErrorStatusIsTheHttpStatusThatEndedTheRun) {
  RunOutcome out;
  out.subtype = Subtype::ErrorApi;
  out.error_message = "HTTP 404 Not Found";
  out.api_error_status = 404;
  EXPECT_EQ(result_envelope(out).find("api_error_status")->as_integer(), 404);
  EXPECT_EQ(result_envelope(out).find("structured_output"), nullptr);
}

TEST(OutputWriter, ResultModeWritesOnlyTheEnvelope) {
  std::string out;
  OutputWriter writer(OutputFormat::Result, true, [&](std::string_view s) { out += s; });
  writer.on_start({"sid", "m", "p", "/", {"structured_output"}, true});
  writer.on_stream_event(json::Object{{"type", "ping"}});
  writer.on_assistant(testing::answer("prose"), 1);
  writer.finish(success_outcome());
  ASSERT_EQ(out.back(), '\n');
  EXPECT_EQ(out.find('\n'), out.size() - 1);
  Result<json::Value> env = json::parse(out);
  ASSERT_TRUE(env);
  EXPECT_EQ(env->find("type")->as_string(), "result");
  EXPECT_EQ(json::serialize(*env->find("structured_output")), R"({"summary":"é ok","risk_level":"low"})");
}

TEST(ResultEnvelope, FailureCarriesErrorAndLastCandidateButNoStructuredResult) {
  RunOutcome out;
  out.subtype = Subtype::ErrorMaxTurns;
  out.exit_code = 53;
  out.error_message = "Reached max session turns (1). Increase --max-session-turns to allow more.";
  out.error_note = "Note: x";
  out.last_candidate = json::Value(json::Object{{"a", 1}});
  json::Value env = result_envelope(out);
  EXPECT_EQ(env.find("subtype")->as_string(), "error_max_turns");
  EXPECT_TRUE(env.find("is_error")->as_bool());
  EXPECT_EQ(env.find("structured_result"), nullptr);
  EXPECT_EQ(env.find("error")->find("message")->as_string(),
            "Reached max session turns (1). Increase --max-session-turns to allow more.\nNote: x");
  EXPECT_EQ(json::serialize(*env.find("last_candidate")), R"({"a":1})");
}

TEST(OutputWriter, TextModePrintsExactlyThePayloadAndANewline) {
  std::string out;
  OutputWriter writer(OutputFormat::Text, false, [&](std::string_view s) { out += s; });
  writer.on_start({"sid", "m", "p", "/", {"structured_output"}, true});
  writer.on_assistant(testing::answer("prose"), 1);
  writer.finish(success_outcome());
  EXPECT_EQ(out, "{\"summary\":\"é ok\",\"risk_level\":\"low\"}\n");
}

TEST(OutputWriter, TextModeFailureWritesNothing) {
  std::string out;
  OutputWriter writer(OutputFormat::Text, false, [&](std::string_view s) { out += s; });
  RunOutcome failed;
  failed.subtype = Subtype::ErrorPlainText;
  writer.finish(failed);
  EXPECT_EQ(out, "");
}

TEST(OutputWriter, JsonModeIsOneArrayEndingInTheEnvelope) {
  std::string out;
  OutputWriter writer(OutputFormat::Json, true, [&](std::string_view s) { out += s; });
  writer.on_start({"sid", "m", "p", "/", {"read_file", "structured_output"}, true});
  writer.on_stream_event(json::Object{{"type", "ping"}});  // not in json mode
  writer.on_assistant(testing::answer("", {testing::call("c", "structured_output", R"({"b":1,"a":2})")}), 1);
  provider::Message results;
  results.tool_results.push_back({"c", "Structured output accepted; the session is complete.", false});
  writer.on_tool_results(results);
  EXPECT_EQ(out, "");  // nothing before the end
  EXPECT_TRUE(writer.finish(success_outcome()));
  EXPECT_FALSE(writer.finish(success_outcome()));
  ASSERT_EQ(out.back(), '\n');
  auto doc = json::parse(out);
  ASSERT_TRUE(doc.ok());
  const auto& array = doc->as_array();
  ASSERT_EQ(array.size(), 4u);
  EXPECT_EQ(json::serialize(array[0]),
            R"({"type":"system","subtype":"init","session_id":"sid","cwd":"/","model":"m","provider":"p","tools":["read_file","structured_output"],"json_schema":true})");
  EXPECT_EQ(array[1].find("type")->as_string(), "assistant");
  EXPECT_EQ(json::serialize(*array[1].find("message")->find("content")),
            R"([{"type":"tool_use","id":"c","name":"structured_output","input":{"b":1,"a":2}}])");
  EXPECT_EQ(json::serialize(*array[2].find("message")),
            R"({"role":"user","content":[{"type":"tool_result","tool_use_id":"c","content":"Structured output accepted; the session is complete.","is_error":false}]})");
  EXPECT_EQ(array[3].find("type")->as_string(), "result");
}

TEST(OutputWriter, StreamJsonWritesOneLinePerEventAndPartialMessagesWhenAsked) {
  std::vector<std::string> lines;
  OutputWriter writer(OutputFormat::StreamJson, true, [&](std::string_view s) { lines.emplace_back(s); });
  writer.on_start({"sid", "m", "p", "/", {}, false});
  writer.on_stream_event(json::Object{{"type", "content_block_delta"}});
  writer.on_assistant(testing::answer("hi"), 1);
  RunOutcome out = success_outcome();
  writer.finish(out);
  ASSERT_EQ(lines.size(), 4u);
  for (const auto& line : lines) {
    ASSERT_EQ(line.back(), '\n');
    EXPECT_EQ(line.find('\n'), line.size() - 1);
  }
  EXPECT_EQ(lines[1],
            "{\"type\":\"stream_event\",\"event\":{\"type\":\"content_block_delta\"},\"parent_tool_use_id\":null,"
            "\"session_id\":\"sid\"}\n");
  EXPECT_EQ(json::parse(lines[3])->find("type")->as_string(), "result");
}

TEST(OutputWriter, SnapshotTracksTurnsAndUsageForAForcedEnding) {
  OutputWriter writer(OutputFormat::StreamJson, false, [](std::string_view) {});
  writer.on_start({"sid", "m", "p", "/", {}, true});
  writer.on_assistant(testing::answer("a"), 1);
  writer.on_assistant(testing::answer("b"), 2);
  RunOutcome snap = writer.snapshot();
  EXPECT_EQ(snap.num_turns, 2);
  EXPECT_EQ(snap.usage.input_tokens, 20);
  EXPECT_EQ(snap.session_id, "sid");
}

TEST(ArgumentsValue, ParsedEmptyOrRaw) {
  EXPECT_EQ(json::serialize(arguments_value(R"({"a":1})")), R"({"a":1})");
  EXPECT_EQ(json::serialize(arguments_value("  ")), "{}");
  EXPECT_EQ(json::serialize(arguments_value("{oops")), R"("{oops")");
}

}  // namespace
}  // namespace weld::agent
