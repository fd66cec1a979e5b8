#include "weld/batch/input.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "weld/json/parse.h"

namespace weld::batch {
namespace {

// The command line's names for the settings the messages name.
constexpr SettingNames kCliNames{.json_schema = "--json-schema",
                                 .core_tools = "--core-tools",
                                 .id_field = "--id-field",
                                 .assign = " "};

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
  // 1-based, as editors, sed -n and grep -n count.
  EXPECT_EQ(lines[0], (std::pair<std::uint64_t, std::string>{1, "a"}));
  EXPECT_EQ(lines[1], (std::pair<std::uint64_t, std::string>{4, "b"}));
  EXPECT_EQ(lines[2], (std::pair<std::uint64_t, std::string>{5, "c"}));
}

TEST(LineReader, ALineSpanningManyReadsComesBackWhole) {
  std::string big(700 * 1024, 'x');
  auto lines = all_lines("first\n" + big + "\nlast\n");
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[1].second, big);
  EXPECT_EQ(lines[2], (std::pair<std::uint64_t, std::string>{3, "last"}));
}

TEST(LineReader, ALineOverTheLimitIsSkippedUnreadAndCounted) {
  std::string big(600 * 1024, 'y');
  auto lines = all_lines("a\n" + big + "\nb\n" + big, 300 * 1024);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[1], (std::pair<std::uint64_t, std::string>{2, "<too long>"}));
  EXPECT_EQ(lines[2], (std::pair<std::uint64_t, std::string>{3, "b"}));
  EXPECT_EQ(lines[3], (std::pair<std::uint64_t, std::string>{4, "<too long>"}));
}

TEST(LineReader, ASourceErrorIsReturned) {
  LineReader reader([](char*, std::size_t) -> Result<std::size_t> { return Error{ErrorCode::Io, "disk gone", ""}; });
  auto line = reader.next();
  ASSERT_FALSE(line);
  EXPECT_EQ(line.error().message, "disk gone");
}

TEST(LineReader, AByteOrderMarkAtTheStartIsSkipped) {
  auto lines = all_lines("\xEF\xBB\xBF{\"a\":1}\n\xEF\xBB\xBF{\"b\":2}\n");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].second, "{\"a\":1}");
  EXPECT_EQ(lines[1].second, "\xEF\xBB\xBF{\"b\":2}");  // only at the start of the stream
  // Delivered a byte at a time (a pipe), the mark is still seen whole.
  std::string_view bytes = "\xEF\xBB\xBFx\n";
  std::size_t at = 0;
  LineReader reader([&](char* buffer, std::size_t) -> Result<std::size_t> {
    if (at == bytes.size()) return std::size_t{0};
    buffer[0] = bytes[at++];
    return std::size_t{1};
  });
  auto start = reader.peek_start();
  ASSERT_TRUE(start);
  EXPECT_EQ(*start, "x\n");
  EXPECT_TRUE(reader.had_byte_order_mark());
  auto line = reader.next();
  ASSERT_TRUE(line && *line);
  EXPECT_EQ((*line)->text, "x");
  EXPECT_EQ((*line)->number, 1u);
}

TEST(CheckInputStart, CompressedInputIsRefusedWithTheCommandThatReadsIt) {
  Status gzip = check_input_start("\x1F\x8B\x08\x00", "rows.jsonl.gz");
  ASSERT_FALSE(gzip);
  EXPECT_EQ(gzip.error().message,
            "the input \"rows.jsonl.gz\" is compressed input (gzip), not JSON Lines; pipe it through zcat: zcat "
            "rows.jsonl.gz | weld batch … -");
  EXPECT_FALSE(check_input_start("\x28\xB5\x2F\xFD\x00", "-"));
  EXPECT_FALSE(check_input_start(std::string_view("\xFD" "7zXZ\x00\x00", 8), "x"));
  EXPECT_FALSE(check_input_start("BZh91AY", "x"));
  EXPECT_TRUE(check_input_start("{\"id\":1}", "x"));
  EXPECT_TRUE(check_input_start("", "x"));
}

TEST(CheckInputStart, OneJsonDocumentOrUtf16TextIsRefusedWithTheCommandThatConvertsIt) {
  auto message = [](std::string_view start, std::string_view name = "rows.json") {
    Status status = check_input_start(start, name);
    return status ? std::string() : status.error().message;
  };
  EXPECT_EQ(message("[\n  {\"id\""),
            "the input \"rows.json\" starts with \"[\": one JSON array, not JSON Lines (one object a line); convert it "
            "with jq: jq -c '.[]' rows.json | weld batch … -");
  EXPECT_EQ(message("  [{\"a\":1"), message("[\n  {\"id\""));
  EXPECT_EQ(message("{\r\n  \"id\"", "-"),
            "the input standard input starts with \"{\" alone on its line: pretty-printed JSON, not JSON Lines (one "
            "object a line); convert it with jq: jq -c . FILE | weld batch … -");
  EXPECT_EQ(message(std::string_view("\xFF\xFE{\0\"\0", 6)),
            "the input \"rows.json\" is UTF-16LE text, not UTF-8 JSON Lines; convert it with iconv: iconv -f UTF-16LE "
            "-t UTF-8 rows.json | weld batch … -");
  EXPECT_NE(message(std::string_view("{\0\"\0i\0", 6)).find("UTF-16LE"), std::string::npos);
  EXPECT_NE(message(std::string_view("\xFE\xFF\0{", 4)).find("UTF-16BE"), std::string::npos);
  EXPECT_NE(message(std::string_view("\xFF\xFE\0\0{\0\0\0", 8)).find("UTF-32LE"), std::string::npos);
  // JSON Lines, however its first object is spaced, is not refused.
  EXPECT_EQ(message("{ \"id\": 1"), "");
  EXPECT_EQ(message("\n\n{\"a\":"), "");
  EXPECT_EQ(message("{}\n{}\n"), "");
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

TEST(ReadRow, IdsFallBackToIdThenTheLine) {
  EXPECT_EQ(read_row(R"({"id":"abc"})", 3, {.id_field = "missing", .prompt = ""}).id, "abc");
  Row fraction = read_row(R"({"id":1.5,"x":1})", 3, {});
  EXPECT_TRUE(fraction.id_from_line);
  EXPECT_TRUE(key_of_row(fraction) == key_of_line(3));
  Row none = read_row(R"({"x":1})", 17, {});
  EXPECT_TRUE(none.id_from_line);
  EXPECT_EQ(none.id, "");
  // A row without an id never has the key of a row whose id is "17".
  EXPECT_FALSE(key_of_row(none) == key_of_row(read_row(R"({"id":"17"})", 2, {})));
  // An id is text: 1 and "1" are one id.
  EXPECT_TRUE(key_of_row(read_row(R"({"id":1})", 1, {})) == key_of_row(read_row(R"({"id":"1"})", 2, {})));
  // A --id-field the row has must be usable.
  EXPECT_EQ(read_row(R"({"ticket":true})", 5, {.id_field = "ticket", .prompt = ""}).error_message,
            "line 5: ticket: must be a non-empty string or a whole number (the id_field)");
  EXPECT_EQ(read_row(R"({"ticket":true})", 5, {.id_field = "ticket", .prompt = "", .names = kCliNames}).error_message,
            "line 5: ticket: must be a non-empty string or a whole number (the --id-field)");
}

TEST(ReadRow, SamplingFieldsAreReadFromEveryShape) {
  Row chat = read_row(R"({"custom_id":"r","body":{"messages":[{"role":"user","content":"q"}],"temperature":0,)"
                      R"("max_tokens":100,"top_p":0.5,"seed":7,"stop":"END","presence_penalty":0.1,"frequency_penalty":0.2,)"
                      R"("logit_bias":{},"user":"u","stream":true}})",
                      1, {});
  ASSERT_FALSE(chat.error) << chat.error_message;
  EXPECT_EQ(chat.request.sampling.temperature, 0.0);
  EXPECT_EQ(chat.request.max_tokens, 100);
  EXPECT_EQ(chat.request.sampling.top_p, 0.5);
  EXPECT_EQ(chat.request.sampling.seed, 7);
  EXPECT_EQ(chat.request.sampling.stop, std::vector<std::string>{"END"});
  EXPECT_EQ(chat.request.sampling.presence_penalty, 0.1);
  EXPECT_EQ(chat.request.sampling.frequency_penalty, 0.2);
  EXPECT_EQ(chat.request.unsent, (std::vector<std::string>{"body.logit_bias", "body.user"}));

  // Generated files often carry unset fields as null: nothing to send, nothing to say.
  Row nulls = read_row(R"({"custom_id":"r","body":{"messages":[{"role":"user","content":"q"}],"temperature":null,)"
                       R"("max_tokens":null,"stop":null,"logit_bias":null,"response_format":null,"tools":null}})",
                       1, {});
  ASSERT_FALSE(nulls.error) << nulls.error_message;
  EXPECT_EQ(nulls.request.sampling, provider::Sampling{});
  EXPECT_FALSE(nulls.request.max_tokens);
  EXPECT_TRUE(nulls.request.unsent.empty());

  Row newer = read_row(R"({"custom_id":"r","body":{"messages":[{"role":"user","content":"q"}],"max_completion_tokens":9,"max_tokens":5}})", 1, {});
  EXPECT_EQ(newer.request.max_tokens, 9);

  Row anthropic = read_row(R"({"custom_id":"a","params":{"max_tokens":64,"temperature":0.3,"top_k":40,)"
                           R"("stop_sequences":["x","y"],"metadata":{},"messages":[{"role":"user","content":"q"}]}})",
                           1, {});
  ASSERT_FALSE(anthropic.error) << anthropic.error_message;
  EXPECT_EQ(anthropic.request.max_tokens, 64);
  EXPECT_EQ(anthropic.request.sampling.top_k, 40);
  EXPECT_EQ(anthropic.request.sampling.stop, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(anthropic.request.unsent, std::vector<std::string>{"params.metadata"});

  Row responses = read_row(R"({"custom_id":"p","method":"POST","url":"/v1/responses","body":{"instructions":"S",)"
                           R"("input":[{"role":"user","content":[{"type":"input_text","text":"q"}]}],"max_output_tokens":77,"temperature":1}})",
                           1, {});
  ASSERT_FALSE(responses.error) << responses.error_message;
  EXPECT_EQ(responses.request.system, "S");
  EXPECT_EQ(responses.request.prompt, "q");
  EXPECT_EQ(responses.request.max_tokens, 77);
  EXPECT_EQ(responses.request.sampling.temperature, 1.0);

  EXPECT_EQ(read_row(R"({"custom_id":"r","body":{"messages":[{"role":"user","content":"q"}],"temperature":"hot"}})", 4, {})
                .error_message,
            "line 4: body.temperature: must be a number");
  EXPECT_EQ(read_row(R"({"custom_id":"r","body":{"messages":[{"role":"user","content":"q"}],"max_tokens":0}})", 4, {})
                .error_message,
            "line 4: body.max_tokens: must be a whole number of at least 1");
}

TEST(ReadRow, AResponseFormatOrToolsThatConflictWithTheSchemaAreErrored) {
  const json::Value schema = json::parse(R"({"type":"object","properties":{"a":{"type":"string"}}})").value();
  InputOptions options{.id_field = "", .prompt = "", .schema = &schema};
  auto error = [&](const std::string& body) {
    return read_row(R"({"custom_id":"r","body":{"messages":[{"role":"user","content":"q"}],)" + body + "}}", 2, options)
        .error_message;
  };
  // The library's (and Python's) names: the schema argument, no tool settings.
  EXPECT_EQ(error(R"("response_format":{"type":"json_schema","json_schema":{"name":"x","schema":{"type":"object"}}})"),
            "line 2: body.response_format: asks for another JSON schema than schema; weld batch answers every "
            "row with schema's (remove it from the line, or make it the same schema)");
  EXPECT_EQ(error(R"("tools":[{"type":"function","function":{"name":"f"}}])"),
            "line 2: body.tools: the line offers tools of its own, which weld batch does not run (each row gets the "
            "structured_output contract only); remove them from the line");
  EXPECT_EQ(error(R"("tool_choice":"none")"),
            "line 2: body.tool_choice: conflicts with schema (weld batch chooses the tool: structured_output)");
}

// The command line's names: what `weld batch` prints.
TEST(ReadRow, ConflictsNameTheCommandLinesFlagsForTheCli) {
  const json::Value schema = json::parse(R"({"type":"object","properties":{"a":{"type":"string"}}})").value();
  InputOptions options{.id_field = "", .prompt = "", .schema = &schema, .names = kCliNames};
  auto error = [&](const std::string& body) {
    return read_row(R"({"custom_id":"r","body":{"messages":[{"role":"user","content":"q"}],)" + body + "}}", 2, options)
        .error_message;
  };
  EXPECT_EQ(error(R"("response_format":{"type":"json_schema","json_schema":{"name":"x","schema":{"type":"object"}}})"),
            "line 2: body.response_format: asks for another JSON schema than --json-schema; weld batch answers every "
            "row with --json-schema's (remove it from the line, or make it the same schema)");
  // The same schema (in another key order), JSON mode or text: no conflict.
  EXPECT_EQ(error(R"("response_format":{"type":"json_schema","json_schema":{"name":"x","schema":{"properties":{"a":{"type":"string"}},"type":"object"}}})"), "");
  EXPECT_EQ(error(R"("response_format":{"type":"json_object"})"), "");
  EXPECT_EQ(error(R"("tools":[{"type":"function","function":{"name":"f"}}])"),
            "line 2: body.tools: the line offers tools of its own, which weld batch does not run (each row gets the "
            "structured_output contract and --core-tools only); remove them from the line");
  EXPECT_EQ(error(R"("tool_choice":"none")"),
            "line 2: body.tool_choice: conflicts with --json-schema (weld batch chooses the tool: structured_output)");
  EXPECT_EQ(error(R"("tool_choice":"auto","tools":[])"), "");
  EXPECT_EQ(error(R"("n":3)"), "line 2: body.n: weld batch gives one answer per row (n must be 1)");
  EXPECT_EQ(read_row(R"({"custom_id":"p","url":"/v1/responses","body":{"input":"q","text":{"format":{"type":"json_schema","name":"x","schema":{}}}}})", 3, options)
                .error_message,
            "line 3: body.text.format: asks for another JSON schema than --json-schema; weld batch answers every row "
            "with --json-schema's (remove it from the line, or make it the same schema)");
  EXPECT_EQ(read_row(R"({"custom_id":"a","params":{"messages":[{"role":"user","content":"q"}],"output_config":{"format":{"type":"json_schema","schema":{"type":"object"}}}}})", 3, options)
                .error_message,
            "line 3: params.output_config.format: asks for another JSON schema than --json-schema; weld batch answers "
            "every row with --json-schema's (remove it from the line, or make it the same schema)");
  EXPECT_EQ(read_row(R"({"custom_id":"a","params":{"messages":[{"role":"user","content":"q"}],"tool_choice":{"type":"tool","name":"f"}}})", 3, options)
                .error_message,
            "line 3: params.tool_choice: conflicts with --json-schema (weld batch chooses the tool: structured_output)");
}

TEST(ReadRow, InvalidLinesNameTheLineAndTheField) {
  Row not_json = read_row("{\"a\":", 5, {});
  ASSERT_TRUE(not_json.error);
  EXPECT_EQ(*not_json.error, InputErrorKind::InvalidLine);
  EXPECT_TRUE(not_json.id_from_line);
  EXPECT_EQ(not_json.line, 5u);
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
            "line 7: url: weld batch runs \"/v1/chat/completions\" and \"/v1/responses\" requests");
  Row keeps_id = read_row(R"({"custom_id":"r9","body":"nope"})", 8, {});
  EXPECT_EQ(keeps_id.id, "r9");
  EXPECT_EQ(keeps_id.error_message, "line 8: body: must be an object (a chat completion request)");
}

}  // namespace
}  // namespace weld::batch
