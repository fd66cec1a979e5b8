#include "weld/agent/run_loop.h"

#include <gtest/gtest.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <thread>

#include "test_model.h"
#include "weld/json/parse.h"
#include "weld/json/serialize.h"

namespace weld::agent {
namespace {

using testing::answer;
using testing::call;
using testing::ScriptedModel;

constexpr const char* kSchema =
    R"({"type":"object","properties":{"summary":{"type":"string"},"risk_level":{"type":"string","enum":["low","medium","high"]}},"required":["summary","risk_level"],"additionalProperties":false})";

json::Value parse_ok(std::string_view text) {
  auto v = json::parse(text);
  EXPECT_TRUE(v.ok()) << text;
  return v ? *v : json::Value();
}

class RunLoopTest : public ::testing::Test {
 protected:
  void SetUp() override {
    source_ = parse_ok(kSchema);
    schema_ = std::make_unique<schema::Schema>(schema::Schema::compile(source_));
    options_.prompt = "Assess the change";
    options_.model = "test-model";
    options_.schema = schema_.get();
    options_.schema_source = source_;
    options_.session_id = "s-1";
    dir_ = std::filesystem::temp_directory_path() / ("weld_run_loop_" + std::to_string(::getpid()) + "_" +
                                                      ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    options_.cwd = dir_.string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  RunOutcome run_with(std::vector<const Tool*> tools = {}) {
    return run(model_, tools, options_, {}, cancel_);
  }

  json::Value source_;
  std::unique_ptr<schema::Schema> schema_;
  RunOptions options_;
  ScriptedModel model_;
  provider::CancelToken cancel_;
  std::filesystem::path dir_;
};

TEST_F(RunLoopTest, FirstTurnSuccessOffersStructuredOutputWithTheUsersSchema) {
  model_.push(answer("", {call("c1", "structured_output", R"({"risk_level":"low","summary":"ok"})")}));
  RunOutcome out = run_with();
  EXPECT_EQ(out.subtype, Subtype::Success);
  EXPECT_EQ(out.exit_code, 0);
  ASSERT_TRUE(out.structured);
  // The model's key order is kept.
  EXPECT_EQ(json::serialize(*out.structured), R"({"risk_level":"low","summary":"ok"})");
  EXPECT_EQ(out.num_turns, 1);
  EXPECT_EQ(out.attempts, 1);
  EXPECT_EQ(out.usage.input_tokens, 10);
  ASSERT_EQ(model_.requests.size(), 1u);
  const auto& tools = model_.requests[0].tools;
  ASSERT_EQ(tools.size(), 1u);
  EXPECT_EQ(tools[0].name, "structured_output");
  EXPECT_EQ(tools[0].description, std::string(kStructuredOutputDescription));
  EXPECT_TRUE(tools[0].parameters == source_);
  ASSERT_EQ(model_.requests[0].messages.size(), 1u);
  EXPECT_EQ(model_.requests[0].messages[0].text, "Assess the change");
}

TEST_F(RunLoopTest, InvalidThenValidFeedsBackTheValidationMessageAsAnError) {
  model_.push(answer("", {call("c1", "structured_output", R"({"summary":"x"})")}));
  model_.push(answer("", {call("c2", "structured_output", R"({"summary":"x","risk_level":"high"})")}));
  RunOutcome out = run_with();
  EXPECT_EQ(out.subtype, Subtype::Success);
  EXPECT_EQ(out.num_turns, 2);
  EXPECT_EQ(out.attempts, 2);
  ASSERT_EQ(model_.requests.size(), 2u);
  const auto& messages = model_.requests[1].messages;
  ASSERT_EQ(messages.size(), 3u);
  ASSERT_EQ(messages[2].tool_results.size(), 1u);
  EXPECT_EQ(messages[2].tool_results[0].tool_call_id, "c1");
  EXPECT_TRUE(messages[2].tool_results[0].is_error);
  EXPECT_EQ(messages[2].tool_results[0].content, "params must have required property 'risk_level'");
  // Every request carries the tool.
  EXPECT_EQ(model_.requests[1].tools.back().name, "structured_output");
}

TEST_F(RunLoopTest, TwoCallsInOneTurnStopAtTheFirstValid) {
  model_.push(answer("", {call("a", "structured_output", R"({"summary":"x","risk_level":"extreme"})"),
                          call("b", "structured_output", R"({"summary":"y","risk_level":"medium"})"),
                          call("c", "structured_output", R"({"summary":"z","risk_level":"low"})")}));
  RunOutcome out = run_with();
  EXPECT_EQ(out.subtype, Subtype::Success);
  EXPECT_EQ(out.attempts, 2);
  EXPECT_EQ(json::serialize(*out.structured), R"({"summary":"y","risk_level":"medium"})");
}

TEST_F(RunLoopTest, SideEffectSiblingNeverRunsAndGetsTheSuccessText) {
  auto write = make_write_file_tool();
  model_.push(answer("", {call("w", "write_file", R"({"path":"made.txt","content":"x"})"),
                          call("s", "structured_output", R"({"summary":"x","risk_level":"low"})")}));
  struct Capture : RunObserver {
    std::vector<provider::Message> results;
    void on_tool_results(const provider::Message& m) override { results.push_back(m); }
  } capture;
  RunOutcome out = run(model_, {write.get()}, options_, {&capture}, cancel_);
  EXPECT_EQ(out.subtype, Subtype::Success);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "made.txt"));
  ASSERT_EQ(capture.results.size(), 1u);
  ASSERT_EQ(capture.results[0].tool_results.size(), 2u);
  EXPECT_EQ(capture.results[0].tool_results[0].content,
            "Skipped: this turn's structured_output contract took precedence as the terminal output.");
  EXPECT_FALSE(capture.results[0].tool_results[0].is_error);
  EXPECT_EQ(out.tool_calls, 0);
}

TEST_F(RunLoopTest, SideEffectSiblingOnTheRetryPathGetsTheReissueText) {
  auto write = make_write_file_tool();
  model_.push(answer("", {call("w", "write_file", R"({"path":"made.txt","content":"x"})"),
                          call("s", "structured_output", R"({"summary":1,"risk_level":"low"})")}));
  model_.push(answer("", {call("s2", "structured_output", R"({"summary":"x","risk_level":"low"})")}));
  RunOutcome out = run_with({write.get()});
  EXPECT_EQ(out.subtype, Subtype::Success);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "made.txt"));
  const auto& results = model_.requests[1].messages[2].tool_results;
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].tool_call_id, "w");
  EXPECT_EQ(results[0].content,
            "Skipped: this turn's structured_output contract took precedence as the terminal output. Re-issue this "
            "call in a separate turn if needed.");
  EXPECT_EQ(results[1].content, "params/summary must be string (got 1)");
  EXPECT_TRUE(results[1].is_error);
}

TEST_F(RunLoopTest, PlainTextEndsWithExitOneAndAPreview) {
  model_.push(answer("I think it is \"low\" risk."));
  RunOutcome out = run_with();
  EXPECT_EQ(out.subtype, Subtype::ErrorPlainText);
  EXPECT_EQ(out.exit_code, 1);
  EXPECT_EQ(out.error_message,
            "Model produced plain text instead of calling the structured_output tool as required by schema "
            "after 1 turn(s). Output preview (25 chars): \"I think it is \\\"low\\\" risk.\".");
}

TEST_F(RunLoopTest, PlainTextWithoutAnyTextHasNoPreview) {
  model_.push(answer(""));
  RunOutcome out = run_with();
  EXPECT_EQ(out.error_message,
            "Model produced plain text instead of calling the structured_output tool as required by schema "
            "after 1 turn(s).");
}

TEST(PlainTextMessage, PreviewIsCutAt200CodePointsWithPlus) {
  std::string text(199, 'a');
  text += "é!";  // 201 code points
  std::string message = plain_text_message(3, text);
  std::string expected_preview = "\"" + std::string(199, 'a') + "é\"";
  EXPECT_EQ(message,
            "Model produced plain text instead of calling the structured_output tool as required by schema "
            "after 3 turn(s). Output preview (200+ chars): " +
                expected_preview + ".");
  EXPECT_NE(plain_text_message(1, std::string(200, 'b')).find("(200+ chars)"), std::string::npos);
  EXPECT_NE(plain_text_message(1, std::string(199, 'b')).find("(199 chars)"), std::string::npos);
}

TEST_F(RunLoopTest, TurnLimitEndsWith53AndTheNote) {
  auto read = make_list_directory_tool();
  model_.push(answer("looking", {call("l", "list_directory", "{}")}));
  model_.repeat_last();
  options_.max_session_turns = 2;
  RunOutcome out = run_with({read.get()});
  EXPECT_EQ(out.subtype, Subtype::ErrorMaxTurns);
  EXPECT_EQ(out.exit_code, 53);
  EXPECT_EQ(out.num_turns, 2);
  EXPECT_EQ(model_.requests.size(), 2u);
  EXPECT_EQ(out.error_message, "Reached max session turns (2). Increase max_session_turns to allow more.");
  EXPECT_EQ(out.error_note,
            "Note: schema is active. If the model never called structured_output, verify that the schema is "
            "satisfiable.");
}

TEST_F(RunLoopTest, RetriesExhaustedOnTheNPlusFirstInvalidCall) {
  model_.push(answer("", {call("c", "structured_output", R"({"summary":"x"})")}));
  model_.repeat_last();
  options_.max_structured_retries = 2;
  RunOutcome out = run_with();
  EXPECT_EQ(out.subtype, Subtype::ErrorMaxStructuredOutputRetries);
  EXPECT_EQ(out.exit_code, 1);
  EXPECT_EQ(out.num_turns, 3);
  EXPECT_EQ(out.attempts, 3);
  ASSERT_TRUE(out.last_candidate);
  EXPECT_EQ(json::serialize(*out.last_candidate), R"({"summary":"x"})");
  EXPECT_EQ(out.error_message,
            "structured_output arguments failed validation 3 time(s); max_structured_retries=2 allows 2 retries. "
            "Last validation error: params must have required property 'risk_level'");
}

// The command line names the limits by its flags (the CLI's names).
TEST_F(RunLoopTest, LimitMessagesNameTheSettingsAsTheCallerSays) {
  model_.push(answer("", {call("c", "structured_output", R"({"summary":"x"})")}));
  model_.repeat_last();
  options_.names.max_session_turns = "--max-session-turns";
  options_.names.max_structured_retries = "--max-structured-retries";
  options_.names.assign = " ";
  options_.max_structured_retries = 2;
  RunOutcome out = run_with();
  EXPECT_EQ(out.error_message,
            "structured_output arguments failed validation 3 time(s); --max-structured-retries 2 allows 2 retries. "
            "Last validation error: params must have required property 'risk_level'");
  options_.max_structured_retries = 5;
  options_.max_session_turns = 1;
  out = run_with();
  EXPECT_EQ(out.error_message, "Reached max session turns (1). Increase --max-session-turns to allow more.");
}

// The schema and the tool exclusion by the CLI's flags: the run's text of old.
TEST_F(RunLoopTest, SchemaMessagesNameTheSettingsAsTheCallerSays) {
  options_.names.json_schema = "--json-schema";
  options_.names.exclude_tools = "--exclude-tools";
  model_.push(answer("prose"));
  RunOutcome out = run_with();
  EXPECT_EQ(out.error_message,
            "Model produced plain text instead of calling the structured_output tool as required by --json-schema "
            "after 1 turn(s). Output preview (5 chars): \"prose\".");
  model_.push(answer("", {call("c", "structured_output", R"({"summary":"x"})")}));
  options_.max_session_turns = 1;
  out = run_with();
  EXPECT_EQ(out.error_note,
            "Note: --json-schema is active. If the model never called structured_output, verify it isn't denied by "
            "permissions.deny / --exclude-tools and that the schema is satisfiable.");
}

TEST_F(RunLoopTest, InvalidCallsInOneTurnCountOneEach) {
  model_.push(answer("", {call("a", "structured_output", "{}"), call("b", "structured_output", "{}")}));
  options_.max_structured_retries = 1;
  RunOutcome out = run_with();
  EXPECT_EQ(out.subtype, Subtype::ErrorMaxStructuredOutputRetries);
  EXPECT_EQ(out.num_turns, 1);
  EXPECT_EQ(out.attempts, 2);
}

TEST_F(RunLoopTest, ZeroRetriesEndsOnTheFirstInvalidCall) {
  model_.push(answer("", {call("a", "structured_output", "{}")}));
  options_.max_structured_retries = 0;
  RunOutcome out = run_with();
  EXPECT_EQ(out.subtype, Subtype::ErrorMaxStructuredOutputRetries);
  EXPECT_EQ(out.attempts, 1);
}

TEST_F(RunLoopTest, ToolCallBudgetEndsWith55AndStructuredOutputDoesNotCount) {
  auto list = make_list_directory_tool();
  model_.push(answer("", {call("l1", "list_directory", "{}")}));
  model_.push(answer("", {call("s", "structured_output", R"({"summary":"x"})")}));
  model_.push(answer("", {call("l2", "list_directory", "{}")}));
  options_.max_tool_calls = 1;
  RunOutcome out = run_with({list.get()});
  EXPECT_EQ(out.subtype, Subtype::ErrorBudget);
  EXPECT_EQ(out.exit_code, 55);
  EXPECT_EQ(out.tool_calls, 1);
  EXPECT_EQ(out.num_turns, 3);
  EXPECT_EQ(out.error_message, "Exceeded max_tool_calls (1).");
}

TEST_F(RunLoopTest, WallTimeBudgetInterruptsARequestInFlight) {
  model_.push_step([](const provider::Request&, provider::CancelToken& cancel) -> Result<provider::Response> {
    for (int i = 0; i < 500 && !cancel.cancelled.load(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return Error{ErrorCode::Cancelled, "cancelled", ""};
  });
  options_.max_wall_time_seconds = 0.2;
  auto started = std::chrono::steady_clock::now();
  RunOutcome out = run_with();
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(3));
  EXPECT_EQ(out.subtype, Subtype::ErrorBudget);
  EXPECT_EQ(out.exit_code, 55);
  EXPECT_EQ(out.error_message, "Exceeded max_wall_time (0.2 s).");
}

TEST_F(RunLoopTest, CancellationEndsWith130) {
  model_.push_step([](const provider::Request&, provider::CancelToken& cancel) -> Result<provider::Response> {
    cancel.cancelled = true;
    return Error{ErrorCode::Cancelled, "cancelled", ""};
  });
  RunOutcome out = run_with();
  EXPECT_EQ(out.subtype, Subtype::ErrorCancelled);
  EXPECT_EQ(out.exit_code, 130);
  EXPECT_EQ(out.error_message, "Operation cancelled.");
}

TEST_F(RunLoopTest, AuthErrorIs41AndOtherApiErrorsAre1) {
  model_.push_error(ErrorCode::Auth, "The provider refused the credentials (HTTP 401).");
  RunOutcome out = run_with();
  EXPECT_EQ(out.subtype, Subtype::ErrorApi);
  EXPECT_EQ(out.exit_code, 41);
  EXPECT_EQ(out.error_message, "The provider refused the credentials (HTTP 401).");
  ScriptedModel other;
  other.push_error(ErrorCode::Http, "HTTP 500");
  RunOutcome out2 = run(other, {}, options_, {}, cancel_);
  EXPECT_EQ(out2.exit_code, 1);
  EXPECT_EQ(out2.subtype, Subtype::ErrorApi);
}

TEST_F(RunLoopTest, WithoutSchemaTheFinalTextIsTheResult) {
  options_.schema = nullptr;
  model_.push(answer("Hello there"));
  RunOutcome out = run_with();
  EXPECT_EQ(out.subtype, Subtype::Success);
  EXPECT_EQ(out.final_text, "Hello there");
  EXPECT_TRUE(model_.requests[0].tools.empty());
}

TEST_F(RunLoopTest, EmptySchemaWithEmptyArgumentsGivesEmptyObject) {
  json::Value empty = json::Object{};
  schema::Schema schema = schema::Schema::compile(empty);
  options_.schema = &schema;
  options_.schema_source = empty;
  model_.push(answer("", {call("c", "structured_output", "")}));
  RunOutcome out = run_with();
  EXPECT_EQ(out.subtype, Subtype::Success);
  EXPECT_EQ(json::serialize(*out.structured), "{}");
}

TEST_F(RunLoopTest, ExcludedStructuredOutputIsNotOfferedAndACallToItIsAnError) {
  options_.offer_structured_output = false;
  model_.push(answer("", {call("c", "structured_output", R"({"summary":"x","risk_level":"low"})")}));
  model_.push(answer("fine"));
  RunOutcome out = run_with();
  EXPECT_TRUE(model_.requests[0].tools.empty());
  EXPECT_EQ(out.subtype, Subtype::ErrorPlainText);
  EXPECT_EQ(out.num_turns, 2);
  EXPECT_EQ(model_.requests[1].messages[2].tool_results[0].content,
            "Tool \"structured_output\" is not available in this run.");
}

TEST_F(RunLoopTest, RepairsAreAppliedAndReportedUnlessTurnedOff) {
  const char* fenced = "```json\n{\"summary\":\"x\",\"risk_level\":\"low\",}\n```";
  model_.push(answer("", {call("c", "structured_output", fenced)}));
  RunOutcome out = run_with();
  EXPECT_EQ(out.subtype, Subtype::Success);
  EXPECT_FALSE(out.repairs.empty());
  EXPECT_EQ(json::serialize(*out.structured), R"({"summary":"x","risk_level":"low"})");

  ScriptedModel strict;
  strict.push(answer("", {call("c", "structured_output", fenced)}));
  options_.repair = {false, false, false};
  options_.max_structured_retries = 0;
  RunOutcome out2 = run(strict, {}, options_, {}, cancel_);
  EXPECT_EQ(out2.subtype, Subtype::ErrorMaxStructuredOutputRetries);
  EXPECT_TRUE(out2.repairs.empty());
}

TEST_F(RunLoopTest, OrdinaryToolResultsGoBackToTheModel) {
  std::filesystem::create_directories(dir_ / "sub");
  auto list = make_list_directory_tool();
  model_.push(answer("", {call("l", "list_directory", R"({"path":"sub"})"), call("x", "nope", "{}"),
                          call("b", "list_directory", "not json")}));
  model_.push(answer("", {call("s", "structured_output", R"({"summary":"x","risk_level":"low"})")}));
  RunOutcome out = run_with({list.get()});
  EXPECT_EQ(out.subtype, Subtype::Success);
  const auto& results = model_.requests[1].messages[2].tool_results;
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].content, "Directory " + (dir_ / "sub").string() + " (0 entries)\n");
  EXPECT_FALSE(results[0].is_error);
  EXPECT_EQ(results[1].content, "Tool \"nope\" is not available in this run.");
  EXPECT_TRUE(results[1].is_error);
  EXPECT_TRUE(results[2].is_error);
  EXPECT_EQ(results[2].content.rfind("Invalid arguments for list_directory: ", 0), 0u) << results[2].content;
  EXPECT_EQ(out.tool_calls, 2);
}

}  // namespace
}  // namespace weld::agent

// ---- mechanisms (docs/run.md, "Mechanisms") ----

namespace weld::agent {
namespace {

TEST_F(RunLoopTest, NativeSendsTheFormatAndNoToolAndValidatesTheText) {
  options_.mechanism = Mechanism::Native;
  model_.push(answer(R"({"summary":"s"})"));
  model_.push(answer(R"({"summary":"s","risk_level":"low"})"));
  RunOutcome out = run_with();
  EXPECT_EQ(out.subtype, Subtype::Success);
  EXPECT_EQ(out.mechanism, "native");
  EXPECT_EQ(json::serialize(*out.structured), R"({"summary":"s","risk_level":"low"})");
  EXPECT_EQ(out.attempts, 2);
  ASSERT_EQ(model_.requests.size(), 2u);
  for (const auto& request : model_.requests) {
    EXPECT_TRUE(request.tools.empty());
    ASSERT_TRUE(request.response_format.has_value());
    EXPECT_EQ(request.response_format->schema, source_);
    EXPECT_TRUE(request.response_format->strict);
  }
  const provider::Message& feedback = model_.requests[1].messages.back();
  EXPECT_EQ(feedback.role, provider::Role::User);
  EXPECT_EQ(feedback.text,
            "Your answer did not validate against the required JSON schema: answer must have required property "
            "'risk_level'. Reply again with only the corrected JSON value.");
}

TEST_F(RunLoopTest, NativeRetriesExhaustedCountsEachAnswer) {
  options_.mechanism = Mechanism::Native;
  options_.max_structured_retries = 2;
  model_.push(answer("not json at all"));
  model_.repeat_last();
  RunOutcome out = run_with();
  EXPECT_EQ(out.subtype, Subtype::ErrorMaxStructuredOutputRetries);
  EXPECT_EQ(out.exit_code, 1);
  EXPECT_EQ(out.attempts, 3);
  EXPECT_EQ(model_.requests.size(), 3u);
  ASSERT_TRUE(out.last_candidate.has_value());
  EXPECT_EQ(*out.last_candidate, json::Value("not json at all"));
  EXPECT_EQ(out.error_message.rfind("The structured answer (mechanism=native) failed validation 3 time(s); "
                                    "max_structured_retries=2 allows 2 retries. Last validation error: answer must be "
                                    "valid JSON",
                                    0),
            0u)
      << out.error_message;
}

TEST_F(RunLoopTest, NativeWithStructuredOutputDeniedIsAnOrdinaryContractlessTurn) {
  options_.mechanism = Mechanism::Native;
  options_.offer_structured_output = false;
  model_.push(answer("plain words"));
  RunOutcome out = run_with();
  EXPECT_EQ(out.subtype, Subtype::ErrorPlainText);
  EXPECT_FALSE(model_.requests[0].response_format.has_value());
}

TEST_F(RunLoopTest, AutoProbesOnceAndRemembersPerUpstream) {
  const std::string cache = (dir_ / "home/.weld/mechanisms.json").string();
  options_.mechanism = Mechanism::Auto;
  options_.mechanism_cache_path = cache;
  options_.mechanism_cache_key = "openai http://h/v1 m";
  // An enforcing upstream answers the probe with the constrained object.
  model_.push_step([](const provider::Request& request, provider::CancelToken&) -> Result<provider::Response> {
    EXPECT_TRUE(request.tools.empty());
    EXPECT_TRUE(request.response_format.has_value());
    return answer(R"({"weld_probe":"enforced-7c1e9a"})");
  });
  model_.push(answer(R"({"summary":"s","risk_level":"low"})"));
  RunOutcome out = run_with();
  EXPECT_EQ(out.subtype, Subtype::Success);
  EXPECT_EQ(out.mechanism, "native");
  EXPECT_EQ(out.num_turns, 1);
  EXPECT_EQ(out.usage.input_tokens, 20);  // the probe's tokens count
  // The run stamps the entry with system_clock; std::time() reads the coarse
  // clock, which can still show the previous second (a "future" entry).
  const std::int64_t now =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  EXPECT_EQ(read_mechanism_cache(cache, "openai http://h/v1 m", now), std::optional<bool>(true));
  EXPECT_EQ(read_mechanism_cache(cache, "openai http://h/v1 other", now), std::nullopt);

  // Remembered: the next run does not probe.
  ScriptedModel second;
  second.push(answer(R"({"summary":"s","risk_level":"low"})"));
  RunOutcome again = run(second, {}, options_, {}, cancel_);
  EXPECT_EQ(again.subtype, Subtype::Success);
  EXPECT_EQ(second.requests.size(), 1u);
  EXPECT_TRUE(second.requests[0].response_format.has_value());
}

TEST_F(RunLoopTest, AutoFallsBackToTheToolWhenTheProbeIsAnsweredInProseOrRejected) {
  options_.mechanism = Mechanism::Auto;
  model_.push(answer("hello"));
  model_.push(answer("", {call("c1", "structured_output", R"({"summary":"s","risk_level":"low"})")}));
  RunOutcome out = run_with();
  EXPECT_EQ(out.subtype, Subtype::Success);
  EXPECT_EQ(out.mechanism, "tool");
  EXPECT_FALSE(model_.requests[1].response_format.has_value());
  EXPECT_EQ(model_.requests[1].tools.back().name, "structured_output");

  ScriptedModel rejecting;
  rejecting.push_step([](const provider::Request&, provider::CancelToken&) -> Result<provider::Response> {
    Error refused{ErrorCode::Http, "HTTP 400: response_format is not supported", ""};
    refused.http_status = 400;
    return refused;
  });
  rejecting.push(answer("", {call("c1", "structured_output", R"({"summary":"s","risk_level":"low"})")}));
  RunOutcome after_400 = run(rejecting, {}, options_, {}, cancel_);
  EXPECT_EQ(after_400.subtype, Subtype::Success);
  EXPECT_EQ(after_400.mechanism, "tool");

  ScriptedModel unreachable;
  unreachable.push_error(ErrorCode::Network, "connection refused");
  RunOutcome failed = run(unreachable, {}, options_, {}, cancel_);
  EXPECT_EQ(failed.subtype, Subtype::ErrorApi);
  EXPECT_EQ(failed.exit_code, 1);
  EXPECT_EQ(failed.error_message, "mechanism=auto: the probe request failed: connection refused");
}

// A probe answered 429 or 5xx (after the retries) said nothing about the
// server: the run ends as a temporary failure and nothing is remembered (it
// used to remember "not native" for 7 days). The proxy judges it the same
// way (judge_probe).
TEST_F(RunLoopTest, AProbeThatSaidNothingIsNeverRemembered) {
  const std::string cache = (dir_ / "home/.weld/mechanisms.json").string();
  options_.mechanism = Mechanism::Auto;
  options_.mechanism_cache_path = cache;
  options_.mechanism_cache_key = "openai http://h/v1 m";
  for (int status : {429, 503}) {
    ScriptedModel busy;
    busy.push_step([status](const provider::Request&, provider::CancelToken&) -> Result<provider::Response> {
      Error error{ErrorCode::Http, "HTTP " + std::to_string(status) + ": busy", ""};
      error.http_status = status;
      error.temporary = true;
      return error;
    });
    RunOutcome out = run(busy, {}, options_, {}, cancel_);
    EXPECT_EQ(out.subtype, Subtype::ErrorApi) << status;
    EXPECT_EQ(out.exit_code, ExitCode::Temporary) << status;
    EXPECT_FALSE(std::filesystem::exists(cache)) << status;
  }
  // A final refusal of the field is remembered as "not native".
  ScriptedModel refusing;
  refusing.push_step([](const provider::Request&, provider::CancelToken&) -> Result<provider::Response> {
    Error error{ErrorCode::Http, "HTTP 422: unknown field response_format", ""};
    error.http_status = 422;
    return error;
  });
  refusing.push(answer("", {call("c1", "structured_output", R"({"summary":"s","risk_level":"low"})")}));
  RunOutcome out = run(refusing, {}, options_, {}, cancel_);
  EXPECT_EQ(out.mechanism, "tool");
  const std::int64_t now =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  EXPECT_EQ(read_mechanism_cache(cache, "openai http://h/v1 m", now), std::optional<bool>(false));
}

TEST(ProbeVerdict, OneJudgementOfEveryOutcome) {
  using provider::judge_probe;
  using provider::ProbeVerdict;
  auto http = [](int status) {
    Error error{ErrorCode::Http, "x", ""};
    error.http_status = status;
    return Result<provider::Response>(error);
  };
  EXPECT_EQ(judge_probe(answer(R"({"weld_probe":"enforced-7c1e9a"})")), ProbeVerdict::Native);
  EXPECT_EQ(judge_probe(answer("hello")), ProbeVerdict::NotNative);
  for (int status : {400, 404, 409, 413, 422}) EXPECT_EQ(judge_probe(http(status)), ProbeVerdict::NotNative) << status;
  for (int status : {401, 403, 408, 429, 500, 502, 503, 504, 529})
    EXPECT_EQ(judge_probe(http(status)), ProbeVerdict::Unknown) << status;
  EXPECT_EQ(judge_probe(Result<provider::Response>(Error{ErrorCode::Network, "refused", ""})), ProbeVerdict::Unknown);
  EXPECT_EQ(judge_probe(Result<provider::Response>(Error{ErrorCode::Auth, "no", ""})), ProbeVerdict::Unknown);
}

}  // namespace
}  // namespace weld::agent
