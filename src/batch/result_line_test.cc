#include "weld/batch/result_line.h"

#include <gtest/gtest.h>

#include "weld/json/parse.h"
#include "weld/json/serialize.h"

namespace weld::batch {
namespace {

agent::RunOutcome success() {
  agent::RunOutcome outcome;
  outcome.subtype = agent::Subtype::Success;
  outcome.exit_code = 0;
  outcome.structured = json::parse(R"({"b":1,"a":"x"})").value();
  outcome.attempts = 1;
  outcome.usage.input_tokens = 12;
  outcome.usage.output_tokens = 5;
  outcome.duration_ms = 3;
  return outcome;
}

Row row(std::string id, std::uint64_t line) {
  Row r;
  r.id = std::move(id);
  r.line = line;
  return r;
}

TEST(ResultLine, WeldShapeSucceeded) {
  EXPECT_EQ(run_result_line(OutputFormat::Weld, row("r1", 1), success(), "m"),
            R"({"custom_id":"r1","line":1,"status":"succeeded","structured_result":{"b":1,"a":"x"},"attempts":1,)"
            R"("repairs":[],"usage":{"input_tokens":12,"output_tokens":5,"cache_read_input_tokens":0,"cache_creation_input_tokens":0},)"
            R"("duration_ms":3})"
            "\n");
}

TEST(ResultLine, WeldShapeErroredCarriesTheSubtypeAndLastCandidate) {
  agent::RunOutcome outcome;
  outcome.subtype = agent::Subtype::ErrorMaxStructuredOutputRetries;
  outcome.exit_code = 1;
  outcome.error_message = "params must have required property 'a'";
  outcome.last_candidate = json::parse(R"({"b":2})").value();
  outcome.attempts = 6;
  std::string line = run_result_line(OutputFormat::Weld, row("r2", 4), outcome, "m");
  auto doc = json::parse(line);
  ASSERT_TRUE(doc);
  EXPECT_EQ(doc->find("status")->as_string(), "errored");
  EXPECT_EQ(doc->find("error")->find("type")->as_string(), "error_max_structured_output_retries");
  EXPECT_EQ(doc->find("error")->find("message")->as_string(), "params must have required property 'a'");
  EXPECT_EQ(json::serialize(*doc->find("last_candidate")), R"({"b":2})");
  EXPECT_EQ(doc->find("attempts")->as_integer(), 6);
}

TEST(ResultLine, OpenAiShapeIsABatchOutputLineWithAChatCompletion) {
  auto doc = json::parse(run_result_line(OutputFormat::OpenAi, row("r1", 3), success(), "qwen"));
  ASSERT_TRUE(doc);
  EXPECT_EQ(doc->find("id")->as_string().rfind("batch_req_", 0), 0u);
  EXPECT_EQ(doc->find("custom_id")->as_string(), "r1");
  EXPECT_EQ(doc->find("line")->as_integer(), 3);
  EXPECT_TRUE(doc->find("error")->is_null());
  const json::Value& response = *doc->find("response");
  EXPECT_EQ(response.find("status_code")->as_integer(), 200);
  const json::Value& body = *response.find("body");
  EXPECT_EQ(body.find("object")->as_string(), "chat.completion");
  EXPECT_EQ(body.find("model")->as_string(), "qwen");
  const json::Value& choice = body.find("choices")->as_array().at(0);
  EXPECT_EQ(choice.find("message")->find("content")->as_string(), R"({"b":1,"a":"x"})");
  EXPECT_EQ(choice.find("finish_reason")->as_string(), "stop");
  EXPECT_EQ(body.find("usage")->find("total_tokens")->as_integer(), 17);
}

TEST(ResultLine, KeysRoundTripInBothShapes) {
  for (OutputFormat format : {OutputFormat::Weld, OutputFormat::OpenAi}) {
    std::string ok = run_result_line(format, row("r1", 1), success(), "m");
    auto info = read_result_line(ok);
    ASSERT_TRUE(info) << ok;
    EXPECT_TRUE(info->key == key_of_id("r1"));
    EXPECT_EQ(info->format, format);
    EXPECT_FALSE(info->errored);
    std::string bad = input_error_line(format, line_row(7), InputErrorKind::InvalidLine, "line 7: nope");
    info = read_result_line(bad);
    ASSERT_TRUE(info) << bad;
    EXPECT_TRUE(info->key == key_of_line(7));
    EXPECT_FALSE(info->key == key_of_id("7"));
    EXPECT_TRUE(info->errored);
    std::string duplicate = input_error_line(format, row("r1", 9), InputErrorKind::DuplicateId, "dup");
    EXPECT_TRUE(read_result_line(duplicate)->key == key_of_duplicate(9));
  }
}

// A result line is recognised by its whole shape: the request lines of
// OpenAI's and Anthropic's batch APIs (which have a string custom_id too),
// their result lines, and lines that only start like ours are not.
TEST(ResultLine, OnlyWholeResultLinesAreRecognised) {
  for (const char* text : {
           R"({"custom_id":"r1","method":"POST","url":"/v1/chat/completions","body":{"model":"m","messages":[]}})",
           R"({"custom_id":"r1","params":{"model":"m","max_tokens":10,"messages":[]}})",
           R"({"custom_id":"r1","result":{"type":"succeeded","message":{}}})",
           R"({"id":"batch_req_1","custom_id":"r1","response":{"status_code":200,"body":{}},"error":null})",
           R"({"custom_id":"r1","line":1,"status":"succeeded","attempts":1})",
           R"({"custom_id":"r1","line":0,"status":"succeeded","structured_result":{},"attempts":1})",
           R"({"custom_id":"r1","line":1,"status":"done","structured_result":{},"attempts":1})",
           R"({"custom_id":"r1","line":1,"status":"errored","error":{"type":"x"},"attempts":1})",
           R"({"custom_id":1,"line":1,"status":"succeeded","structured_result":{},"attempts":1})",
           R"({"id":"batch_req_1","custom_id":"r1","line":1,"response":null,"error":null})",
           R"( {"custom_id":"r1","line":1,"status":"succeeded","structured_result":{},"attempts":1})",
           "{\"no\":1}", "garbage", ""}) {
    EXPECT_FALSE(read_result_line(text)) << text;
  }
  EXPECT_TRUE(read_result_line(R"({"custom_id":null,"line":4,"status":"succeeded","structured_result":1,"attempts":1})"));
}

TEST(ResultLine, ATornLineIsRecognisedByItsStart) {
  std::string line = run_result_line(OutputFormat::OpenAi, row("r1", 1), success(), "m");
  for (std::size_t n = 1; n < line.size(); n += 7) EXPECT_TRUE(is_result_line_start(line.substr(0, n))) << n;
  EXPECT_TRUE(is_result_line_start(R"({"cus)"));
  EXPECT_FALSE(is_result_line_start(""));
  EXPECT_FALSE(is_result_line_start(R"({"a":1})"));
  // A request line starts like ours; read whole, it is refused (above).
  EXPECT_TRUE(is_result_line_start(R"({"custom_id":"r1","method":"POST")"));
}

TEST(ResultLine, InputErrorLineInWeldShape) {
  EXPECT_EQ(input_error_line(OutputFormat::Weld, line_row(3), InputErrorKind::InvalidLine, "line 3: expected a JSON object, got array"),
            R"({"custom_id":null,"line":3,"status":"errored","error":{"type":"error_invalid_input",)"
            R"("message":"line 3: expected a JSON object, got array"},"attempts":0})"
            "\n");
}

}  // namespace
}  // namespace weld::batch
