#include "weld/batch/input.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace weld::batch {
namespace {

std::vector<std::pair<std::uint64_t, std::string>> all_lines(std::string_view bytes, std::size_t max_line = 1 << 20) {
  LineReader reader(memory_source(bytes), max_line);
  std::vector<std::pair<std::uint64_t, std::string>> out;
  for (;;) {
    auto line = reader.next();
    EXPECT_TRUE(line);
    if (!line || !*line) break;
    out.emplace_back((*line)->number, (*line)->too_long ? std::string("<too long>") : std::string((*line)->text));
  }
  return out;
}

TEST(LineReader, SplitsLinesCountsBlankOnesAndKeepsAnUnterminatedLast) {
  auto lines = all_lines("a\r\n\n  \nb\nc");
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], (std::pair<std::uint64_t, std::string>{0, "a"}));
  EXPECT_EQ(lines[1], (std::pair<std::uint64_t, std::string>{3, "b"}));
  EXPECT_EQ(lines[2], (std::pair<std::uint64_t, std::string>{4, "c"}));
}

TEST(LineReader, ALineSpanningManyReadsComesBackWhole) {
  std::string big(700 * 1024, 'x');
  auto lines = all_lines("first\n" + big + "\nlast\n");
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[1].second, big);
  EXPECT_EQ(lines[2], (std::pair<std::uint64_t, std::string>{2, "last"}));
}

TEST(LineReader, ALineOverTheLimitIsSkippedUnreadAndCounted) {
  std::string big(600 * 1024, 'y');
  auto lines = all_lines("a\n" + big + "\nb\n" + big, 300 * 1024);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[1], (std::pair<std::uint64_t, std::string>{1, "<too long>"}));
  EXPECT_EQ(lines[2], (std::pair<std::uint64_t, std::string>{2, "b"}));
  EXPECT_EQ(lines[3], (std::pair<std::uint64_t, std::string>{3, "<too long>"}));
}

TEST(LineReader, ASourceErrorIsReturned) {
  LineReader reader([](char*, std::size_t) -> Result<std::size_t> { return Error{ErrorCode::Io, "disk gone", ""}; });
  auto line = reader.next();
  ASSERT_FALSE(line);
  EXPECT_EQ(line.error().message, "disk gone");
}

TEST(ReadRow, OpenAiBatchLine) {
  Row row = read_row(R"({"custom_id":"r1","method":"POST","url":"/v1/chat/completions","body":{"model":"m1",)"
                     R"("messages":[{"role":"system","content":"Be terse."},{"role":"user","content":"Hi"},)"
                     R"({"role":"assistant","content":"Hello"},{"role":"user","content":[{"type":"text","text":"Extract"}]}]}})",
                     4, {});
  ASSERT_FALSE(row.error) << row.error_message;
  EXPECT_EQ(row.shape, RowShape::OpenAiBatch);
  EXPECT_EQ(row.id, "r1");
  EXPECT_EQ(row.request.model, "m1");
  EXPECT_EQ(row.request.system, "Be terse.");
  ASSERT_EQ(row.request.history.size(), 2u);
  EXPECT_EQ(row.request.history[1].role, provider::Role::Assistant);
  EXPECT_EQ(row.request.history[1].text, "Hello");
  EXPECT_EQ(row.request.prompt, "Extract");
}

TEST(ReadRow, AnthropicBatchEntry) {
  Row row = read_row(R"({"custom_id":"a-7","params":{"model":"claude","max_tokens":100,)"
                     R"("system":[{"type":"text","text":"S"}],"messages":[{"role":"user","content":"Q"}]}})",
                     0, {});
  ASSERT_FALSE(row.error) << row.error_message;
  EXPECT_EQ(row.shape, RowShape::AnthropicBatch);
  EXPECT_EQ(row.id, "a-7");
  EXPECT_EQ(row.request.system, "S");
  EXPECT_EQ(row.request.prompt, "Q");
  EXPECT_TRUE(row.request.history.empty());
}

TEST(ReadRow, DataRowIsItsJsonABlankLineThenThePrompt) {
  InputOptions options{.id_field = "ticket", .prompt = "Classify"};
  Row row = read_row(R"(  {"ticket":42,"id":"x","text":"broken"} )", 9, options);
  ASSERT_FALSE(row.error);
  EXPECT_EQ(row.shape, RowShape::Data);
  EXPECT_EQ(row.id, "42");
  EXPECT_EQ(row.request.prompt, "{\"ticket\":42,\"id\":\"x\",\"text\":\"broken\"}\n\nClassify");
}

TEST(ReadRow, IdsFallBackToIdThenTheLineNumber) {
  EXPECT_EQ(read_row(R"({"id":"abc"})", 3, {.id_field = "missing", .prompt = ""}).id, "abc");
  EXPECT_EQ(read_row(R"({"id":1.5,"x":1})", 3, {}).id, "3");
  EXPECT_EQ(read_row(R"({"x":1})", 17, {}).id, "17");
}

TEST(ReadRow, InvalidLinesNameTheLineAndTheField) {
  Row not_json = read_row("{\"a\":", 5, {});
  ASSERT_TRUE(not_json.error);
  EXPECT_EQ(*not_json.error, InputErrorKind::InvalidLine);
  EXPECT_EQ(not_json.id, "5");
  EXPECT_EQ(not_json.error_message.rfind("line 5: not valid JSON: ", 0), 0u) << not_json.error_message;

  EXPECT_EQ(read_row("[1,2]", 1, {}).error_message, "line 1: expected a JSON object, got array");
  EXPECT_EQ(read_row(R"({"custom_id":7,"body":{}})", 2, {}).error_message, "line 2: custom_id: must be a non-empty string");
  EXPECT_EQ(read_row(R"({"custom_id":"r","body":{"messages":[{"role":"tool","content":"x"}]}})", 3, {}).error_message,
            "line 3: body.messages[0].role: \"tool\" is not supported (a row is one request of text messages)");
  EXPECT_EQ(read_row(R"({"custom_id":"r","body":{"messages":[{"role":"user","content":[{"type":"image_url"}]}]}})", 4, {})
                .error_message,
            "line 4: body.messages[0].content[0]: only text content is supported");
  EXPECT_EQ(read_row(R"({"custom_id":"r","params":{"messages":[{"role":"user","content":"q"},{"role":"assistant","content":"a"}]}})",
                     6, {})
                .error_message,
            "line 6: params.messages: the last message must be the user's");
  EXPECT_EQ(read_row(R"({"custom_id":"r","url":"/v1/embeddings","body":{"messages":[]}})", 7, {}).error_message,
            "line 7: url: weld batch runs \"/v1/chat/completions\" requests");
  Row keeps_id = read_row(R"({"custom_id":"r9","body":"nope"})", 8, {});
  EXPECT_EQ(keeps_id.id, "r9");
  EXPECT_EQ(keeps_id.error_message, "line 8: body: must be an object (a chat completion request)");
}

}  // namespace
}  // namespace weld::batch
