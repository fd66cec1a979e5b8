// Runs the built weld binary (WELD_BINARY) as a user would; every run has a
// timeout, so a blocking read (FIFO, stdin) fails the test instead of hanging.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "child_process.h"
#include "weld/json/parse.h"

namespace {

using Outcome = weld::testing::ChildRun;

// Runs weld with `args`, feeding `input` on stdin; kills it after 30 s.
Outcome run_weld(const std::vector<std::string>& args, const std::string& input = "") {
  std::vector<std::string> argv{WELD_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  weld::testing::ChildOptions options;
  options.input = input;
  return weld::testing::run_child(std::move(argv), std::move(options));
}

class CliSchema : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/weld_cli_schema_XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  std::string write(const std::string& name, const std::string& content) {
    std::string path = dir_ + "/" + name;
    std::ofstream(path, std::ios::binary) << content;
    return path;
  }
  std::string dir_;
};

const char* kPerson = R"({"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer","minimum":0}},"required":["name"]})";

TEST_F(CliSchema, CheckPrintsOk) {
  std::string path = write("person.json", kPerson);
  Outcome run = run_weld({"schema", "check", path});
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.out, "ok\n");
  Outcome at = run_weld({"schema", "check", "@" + path});
  EXPECT_EQ(at.out, "ok\n");
  Outcome inline_schema = run_weld({"schema", "check", kPerson});
  EXPECT_EQ(inline_schema.out, "ok\n");
}

TEST_F(CliSchema, CheckReportsStrictErrors) {
  Outcome run = run_weld({"schema", "check", R"({"type":"object","propertees":{}})"});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.out, "schema is not a valid JSON Schema: strict mode: unknown keyword: \"propertees\" (did you mean \"properties\"?) at /propertees\n");
}

TEST_F(CliSchema, CheckSeveralSchemasNamesEach) {
  std::string good = write("good.json", kPerson);
  Outcome run = run_weld({"schema", "check", good, R"({"type":42})"});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.out.rfind(good + ": ok\n{\"type\":42}: schema is not a valid JSON Schema: ", 0), 0u) << run.out;
}

TEST_F(CliSchema, CheckJson) {
  Outcome run = run_weld({"schema", "check", "--json", kPerson, "{\"type\":\"strnig\"}"});
  EXPECT_EQ(run.exit_code, 1);
  std::size_t newline = run.out.find('\n');
  ASSERT_NE(newline, std::string::npos);
  auto first = weld::json::parse(run.out.substr(0, newline));
  auto second = weld::json::parse(run.out.substr(newline + 1));
  ASSERT_TRUE(first.ok() && second.ok()) << run.out;
  EXPECT_TRUE(first->find("valid")->as_bool());
  EXPECT_FALSE(second->find("valid")->as_bool());
  EXPECT_EQ(second->find("error")->find("pointer")->as_string(), "/type");
}

TEST_F(CliSchema, CheckWarnsOnUnknownFormat) {
  Outcome run = run_weld({"schema", "check", R"({"type":"string","format":"colour"})"});
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.out, "ok\n");
  EXPECT_NE(run.err.find("warning: "), std::string::npos);
  EXPECT_NE(run.err.find("/format"), std::string::npos);
}

TEST_F(CliSchema, ValidateValidFile) {
  std::string instance = write("ok.json", R"({"name":"Ada","age":36})");
  Outcome run = run_weld({"schema", "validate", kPerson, instance});
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.out, "");
}

TEST_F(CliSchema, ValidateInvalidFilePrintsAjvLines) {
  std::string instance = write("bad.json", R"({"age":-1})");
  Outcome run = run_weld({"schema", "validate", kPerson, instance});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.out, instance + ": must have required property 'name'\n" + instance + ": /age must be >= 0\n");
}

TEST_F(CliSchema, ValidateJsonLinesNamesTheLine) {
  std::string instances = write("many.jsonl", "{\"name\":\"a\"}\n\n{\"name\":1}\n{\"name\":\"c\"}\n");
  Outcome run = run_weld({"schema", "validate", kPerson, instances});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.out, instances + ":3: /name must be string\n");
}

TEST_F(CliSchema, ValidateJsonOutputInInputOrder) {
  std::string instances = write("many.jsonl", "{\"name\":\"a\"}\n{\"age\":2}\n");
  std::string single = write("one.json", "{\"name\":\"b\"}");
  Outcome run = run_weld({"schema", "validate", "--json", kPerson, instances, single});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.out,
            "{\"file\":\"" + instances + "\",\"line\":1,\"valid\":true,\"errors\":[]}\n"
            "{\"file\":\"" + instances + "\",\"line\":2,\"valid\":false,\"errors\":[{\"instancePath\":\"\","
            "\"schemaPath\":\"#/required\",\"keyword\":\"required\",\"params\":{\"missingProperty\":\"name\"},"
            "\"message\":\"must have required property 'name'\"}]}\n"
            "{\"file\":\"" + single + "\",\"valid\":true,\"errors\":[]}\n");
}

TEST_F(CliSchema, ValidateRecursionWithoutProgressIsOneError) {
  // The depth limit stops the validation: one line saying so, not one more
  // per applicator it unwinds through (docs/schema.md, "What validates").
  const char* loop = R"({"required":["name"],"anyOf":[{"$ref":"#"}]})";
  std::string instance = write("one.json", "1");
  Outcome text = run_weld({"schema", "validate", loop, instance});
  EXPECT_EQ(text.exit_code, 1);
  const std::string message =
      "exceeds the maximum schema evaluation depth: the schema nests too deeply or recurses without consuming the "
      "instance";
  EXPECT_EQ(text.out, instance + ": " + message + "\n");
  Outcome json = run_weld({"schema", "validate", "--json", loop, "-"}, R"({"a":{"b":1}})");
  EXPECT_EQ(json.exit_code, 1);
  EXPECT_EQ(json.out, "{\"file\":\"-\",\"valid\":false,\"errors\":[{\"instancePath\":\"\",\"schemaPath\":\"#\","
                      "\"keyword\":\"depth limit\",\"params\":{},\"message\":\"" + message + "\"}]}\n");
}

TEST_F(CliSchema, ValidateStdin) {
  Outcome one = run_weld({"schema", "validate", kPerson, "-"}, "{\"name\":\"x\"}\n");
  EXPECT_EQ(one.exit_code, 0);
  Outcome lines = run_weld({"schema", "validate", "--jsonl", kPerson, "-"}, "{\"name\":\"x\"}\n{\"name\":false}\n");
  EXPECT_EQ(lines.exit_code, 1);
  EXPECT_EQ(lines.out, "-:2: /name must be string\n");
}

TEST_F(CliSchema, ValidateInstanceThatIsNotJson) {
  std::string instances = write("broken.jsonl", "{\"name\":\"a\"}\n{oops}\n");
  Outcome run = run_weld({"schema", "validate", kPerson, instances});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.out.rfind(instances + ":2: not valid JSON: ", 0), 0u) << run.out;
}

TEST_F(CliSchema, UnreadableInstanceFiles) {
  Outcome missing = run_weld({"schema", "validate", kPerson, dir_ + "/absent.json"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_EQ(missing.out, dir_ + "/absent.json: could not read: No such file or directory\n");
  Outcome directory = run_weld({"schema", "validate", kPerson, dir_});
  EXPECT_EQ(directory.exit_code, 1);
  EXPECT_EQ(directory.out, dir_ + ": could not read: Is a directory\n");
}

TEST_F(CliSchema, BenchmarkPrintsMeanAsLastLine) {
  std::string instances = write("many.jsonl", "{\"name\":\"a\"}\n{\"name\":\"b\",\"age\":3}\n{\"name\":\"c\"}\n");
  Outcome run = run_weld({"schema", "validate", "--benchmark", "50", kPerson, instances});
  EXPECT_EQ(run.exit_code, 0);
  ASSERT_FALSE(run.out.empty());
  std::string last = run.out.substr(run.out.rfind('\n', run.out.size() - 2) == std::string::npos
                                        ? 0
                                        : run.out.rfind('\n', run.out.size() - 2) + 1);
  auto line = weld::json::parse(last);
  ASSERT_TRUE(line.ok()) << run.out;
  EXPECT_EQ(line->find("instances")->as_integer(), 3);
  EXPECT_EQ(line->find("iterations")->as_integer(), 50);
  EXPECT_GT(line->find("mean_ns")->as_double(), 0.0);
  EXPECT_GT(line->find("loop_mean_ns")->as_double(), 0.0);
  EXPECT_GE(line->find("compile_ns")->as_double(), 0.0);
}

TEST_F(CliSchema, SchemaThatFailsToLoadExits52) {
  Outcome run = run_weld({"schema", "validate", R"({"type":"object","required":"x"})", "-"}, "{}");
  EXPECT_EQ(run.exit_code, 52);
  EXPECT_EQ(run.err.rfind("weld schema validate: schema is not a valid JSON Schema: ", 0), 0u) << run.err;
  EXPECT_EQ(run.out, "");
  Outcome empty = run_weld({"schema", "validate", "  ", "-"}, "{}");
  EXPECT_EQ(empty.exit_code, 52);
  EXPECT_EQ(empty.err, "weld schema validate: schema cannot be empty.\n");
}

TEST_F(CliSchema, FifoAsSchemaDoesNotHang) {
  std::string fifo = dir_ + "/pipe";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  Outcome run = run_weld({"schema", "validate", "@" + fifo, "-"}, "{}");
  EXPECT_FALSE(run.timed_out);
  EXPECT_EQ(run.exit_code, 52);
  EXPECT_EQ(run.err, "weld schema validate: schema \"@" + fifo + "\" must be a regular file.\n");
  Outcome check = run_weld({"schema", "check", dir_});
  EXPECT_EQ(check.out, "schema \"@" + dir_ + "\" must be a regular file.\n");
}

TEST_F(CliSchema, SecretFileIsNeverPrinted) {
  std::string secret = write("key", "sk-live-0123456789abcdef\n");
  Outcome run = run_weld({"schema", "validate", secret, "-"}, "{}");
  EXPECT_EQ(run.exit_code, 52);
  EXPECT_EQ(run.err, "weld schema validate: schema content of \"" + secret +
                         "\" is not valid JSON: unexpected character at line 1 column 1.\n");
  EXPECT_EQ(run.out.find("sk-live"), std::string::npos);
}

TEST_F(CliSchema, RootRuleIsNotApplied) {
  Outcome run = run_weld({"schema", "validate", R"({"type":"string"})", "-"}, "\"text\"");
  EXPECT_EQ(run.exit_code, 0);
  Outcome ref = run_weld({"schema", "check", R"({"$ref":"#/$defs/a","$defs":{"a":{"type":"integer"}}})"});
  EXPECT_EQ(ref.out, "ok\n");
}

TEST_F(CliSchema, DialectFlag) {
  const char* draft4 = R"({"type":"object","properties":{"a":{"minimum":5,"exclusiveMinimum":true}}})";
  Outcome run = run_weld({"schema", "validate", "--dialect", "draft4", draft4, "-"}, "{\"a\":5}");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.out, "-: /a must be > 5\n");
  Outcome modern = run_weld({"schema", "validate", draft4, "-"}, "{\"a\":5}");  // 2020-12: boolean exclusiveMinimum
  EXPECT_EQ(modern.exit_code, 52);
  Outcome bad = run_weld({"schema", "check", "--dialect", "draft5", kPerson});
  EXPECT_EQ(bad.exit_code, 1);  // a usage error, as in every subcommand
  EXPECT_EQ(bad.err.rfind("weld schema check: --dialect: unknown dialect \"draft5\" (expected draft4, draft6, draft7, "
                          "2019-09, 2020-12 or v1)", 0), 0u) << bad.err;
  EXPECT_NE(bad.err.find("\nweld schema check: Usage: weld schema check [OPTIONS] SCHEMA..."), std::string::npos) << bad.err;
}

TEST_F(CliSchema, NoStrictFlag) {
  // markdownDescription (VS Code, zod-to-json-schema) is an annotation now;
  // a keyword nothing writes is not.
  const char* lenient = R"({"type":"object","markdownDescriptoin":"x","enumDescriptions":[]})";
  EXPECT_EQ(run_weld({"schema", "check", lenient}).exit_code, 1);
  Outcome run = run_weld({"schema", "check", "--no-strict", lenient});
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.out, "ok\n");
}

TEST_F(CliSchema, ResolveFlag) {
  std::filesystem::create_directory(dir_ + "/remotes");
  write("remotes/int.json", R"({"type":"integer"})");
  const char* schema = R"({"type":"object","properties":{"n":{"$ref":"http://example.test/schemas/int.json"}}})";
  Outcome without = run_weld({"schema", "check", schema});
  EXPECT_EQ(without.exit_code, 1);
  EXPECT_NE(without.out.find("http://example.test/schemas/int.json"), std::string::npos) << without.out;
  Outcome run = run_weld({"schema", "validate", "--resolve", "http://example.test/schemas/=" + dir_ + "/remotes", schema,
                      "-", "--jsonl"},
                     "{\"n\":1}\n{\"n\":\"x\"}\n");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.out, "-:2: /n must be integer\n");
  Outcome twice = run_weld({"schema", "validate", "--resolve", "http://a.test/=" + dir_, "--resolve",
                            "http://example.test/schemas/=" + dir_ + "/remotes", schema, "-"},
                           "{\"n\":\"x\"}");
  EXPECT_EQ(twice.out, "-: /n must be integer\n");
  Outcome bad = run_weld({"schema", "check", "--resolve", "nodir", schema});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(bad.err.rfind("weld schema check: --resolve: --resolve expects PREFIX=DIR, got \"nodir\"", 0), 0u) << bad.err;
}

TEST_F(CliSchema, JsonSchemaTestSuiteRemotes) {
  // The suite's own remote: a $ref into remotes/ served from disk.
  std::string remotes = std::string(WELD_TEST_SUITE_DIR) + "/remotes";
  Outcome run = run_weld({"schema", "validate", "--resolve", "http://localhost:1234/=" + remotes,
                      R"({"$ref":"http://localhost:1234/integer.json"})", "-"},
                     "\"a\"");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.out, "-: must be integer\n");
}

TEST_F(CliSchema, CatastrophicPatternIsDecidedNotHung) {
  std::string instance = write("long.json", "\"" + std::string(100000, 'a') + "\"");
  Outcome run = run_weld({"schema", "validate", R"({"pattern":"(a+)+b"})", instance});
  EXPECT_FALSE(run.timed_out);
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.out, instance + ": must match pattern \"(a+)+b\"\n");
}

TEST_F(CliSchema, StepBudgetOverrunIsAValidationError) {
  Outcome run = run_weld({"schema", "validate", R"({"pattern":"^(a|a)+\\1?$"})", "-"},
                         "\"" + std::string(40, 'a') + "b\"");
  EXPECT_FALSE(run.timed_out);
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.out.find("exceeded its step budget"), std::string::npos) << run.out;
}

TEST_F(CliSchema, UsageErrors) {
  Outcome none = run_weld({"schema"});
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("Usage: weld schema [OPTIONS] SUBCOMMAND"), std::string::npos) << none.err;
  Outcome missing = run_weld({"schema", "validate", kPerson});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_EQ(missing.out, "");
  EXPECT_EQ(missing.err.rfind("weld schema validate: FILE is required", 0), 0u) << missing.err;
  EXPECT_NE(missing.err.find("\nweld schema validate: Usage: weld schema validate [OPTIONS] SCHEMA FILE..."), std::string::npos) << missing.err;
  Outcome unknown = run_weld({"schema", "validate", "--frobnicate", kPerson, "-"});
  EXPECT_EQ(unknown.exit_code, 1);  // CLI11's own code (109) never leaks
  EXPECT_NE(unknown.err.find("--frobnicate"), std::string::npos) << unknown.err;
  Outcome help = run_weld({"schema", "validate", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("--benchmark"), std::string::npos);
}

TEST_F(CliSchema, Issue16BooleanSchemasAndAnyRootAreSchemas) {
  Outcome accept = run_weld({"schema", "validate", "true", "-"}, "[1,2]");
  EXPECT_EQ(accept.exit_code, 0) << accept.err;
  EXPECT_EQ(accept.out, "");
  Outcome reject = run_weld({"schema", "validate", "false", "-"}, "{}");
  EXPECT_EQ(reject.exit_code, 1) << reject.err;
  EXPECT_EQ(reject.out, "-: boolean schema is false\n");
  std::string file = write("false.json", " false\n");
  Outcome from_file = run_weld({"schema", "check", file});
  EXPECT_EQ(from_file.exit_code, 0);
  EXPECT_EQ(from_file.out, "ok\n");
  Outcome array_root = run_weld({"schema", "validate", R"({"type":"array","items":{"type":"integer"}})", "-"}, "[1,\"x\"]");
  EXPECT_EQ(array_root.exit_code, 1);
  EXPECT_EQ(array_root.out, "-: /1 must be integer\n");
}

TEST_F(CliSchema, Issue16FormatAssertOrAnnotate) {
  const char* email = R"({"format":"email"})";
  Outcome asserted = run_weld({"schema", "validate", email, "-"}, "\"not an address\"");
  EXPECT_EQ(asserted.exit_code, 1);
  EXPECT_EQ(asserted.out, "-: must match format \"email\"\n");
  Outcome explicit_assert = run_weld({"schema", "validate", "--format", "assert", email, "-"}, "\"not an address\"");
  EXPECT_EQ(explicit_assert.exit_code, 1);
  Outcome annotated = run_weld({"schema", "validate", "--format", "annotate", email, "-"}, "\"not an address\"");
  EXPECT_EQ(annotated.exit_code, 0) << annotated.out;
  EXPECT_EQ(annotated.out, "");
  Outcome bad = run_weld({"schema", "validate", "--format", "loose", email, "-"}, "\"x\"");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("--format"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("Usage: weld schema validate"), std::string::npos) << bad.err;
}

TEST_F(CliSchema, Issue16JsonLinesNameTheFileOfAnUnparsableInstance) {
  std::string instances = write("bad.jsonl", "{\"name\":\"a\"}\n{nope\n");
  Outcome run = run_weld({"schema", "validate", "--json", kPerson, instances});
  EXPECT_EQ(run.exit_code, 1);
  std::size_t second = run.out.find('\n') + 1;
  weld::Result<weld::json::Value> line = weld::json::parse(run.out.substr(second, run.out.find('\n', second) - second));
  ASSERT_TRUE(line.ok()) << run.out;
  EXPECT_EQ(line->find("file")->as_string(), instances);
  EXPECT_EQ(line->find("line")->as_integer(), 2);
  EXPECT_FALSE(line->find("valid")->as_bool());
  EXPECT_EQ(line->find("error")->as_string().rfind(instances + ":2: not valid JSON: ", 0), 0u) << run.out;
}

TEST(CliHelp, Issue16MainHelpListsSubcommandsExitCodesAndEnvironment) {
  Outcome help = run_weld({"--help"});
  EXPECT_EQ(help.exit_code, 0);
  for (const char* expected : {"weld schema validate SCHEMA FILE...", "weld sample SCHEMA", "weld proxy",
                               "weld agents check|export", "Exit codes", "52   schema or configuration error",
                               "75   temporary failure", "WELD_API_KEY", "OPENAI_API_KEY", "WELD_MECHANISM"}) {
    EXPECT_NE(help.out.find(expected), std::string::npos) << expected;
  }
}

TEST(CliExitCodes, Issue16NoSubcommandLeaksCli11Codes) {
  // A usage error is 1 everywhere, with the message and the usage line.
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"sample"}, {"sample", "{}", "-n", "lots"}, {"agents"},
                                             {"agents", "check", "--nope"}, {"proxy", "--idle-timeout", "x"},
                                             {"schema", "check"}}) {
    Outcome run = run_weld(args);
    EXPECT_EQ(run.exit_code, 1) << args[0] << " " << run.err;
    EXPECT_NE(run.err.find("Usage: weld " + args[0]), std::string::npos) << run.err;
    EXPECT_EQ(run.out, "");
  }
}

}  // namespace

namespace {

TEST_F(CliSchema, LowerPrintsTheLoweredSchemaAndTheChangesOnStderr) {
  Outcome run = run_weld({"schema", "lower", "--for", "openai-strict", kPerson});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out,
            R"({"type":"object","properties":{"name":{"type":"string"},"age":{"type":["integer","null"],"minimum":0}},)"
            R"("required":["name","age"],"additionalProperties":false})"
            "\n");
  EXPECT_EQ(run.err,
            "weld schema lower: /properties/age: optional property made required and nullable (openai-strict needs "
            "every property in required)\n"
            "weld schema lower: (root): closed (additionalProperties: false) (openai-strict needs closed objects; an answer with only the "
            "listed properties is valid here too)\n");
  Outcome json = run_weld({"schema", "lower", "--for", "gemini", "--json", kPerson});
  EXPECT_EQ(json.exit_code, 0);
  auto line = weld::json::parse(json.out);
  ASSERT_TRUE(line.ok()) << json.out;
  EXPECT_EQ(line->find("target")->as_string(), "gemini");
  EXPECT_EQ(line->find("schema")->find("type")->as_string(), "OBJECT");
  EXPECT_TRUE(line->find("changes")->is_array());
  EXPECT_EQ(json.err, "");
}

TEST_F(CliSchema, LowerMapsAnAnswerBackAndValidatesItAgainstTheOriginal) {
  std::string answer = write("answer.json", R"({"name":"Ann","age":null})");
  Outcome back = run_weld({"schema", "lower", "--for", "openai-strict", kPerson, "--map-back", answer});
  EXPECT_EQ(back.exit_code, 0) << back.err;
  EXPECT_EQ(back.out, "{\"name\":\"Ann\"}\n");
  std::string bad = write("bad.json", R"({"name":"Ann","age":-3})");
  Outcome invalid = run_weld({"schema", "lower", "--for", "openai-strict", kPerson, "--map-back", bad});
  EXPECT_EQ(invalid.exit_code, 1);
  EXPECT_EQ(invalid.out, bad + ": /age must be >= 0\n");
  Outcome piped = run_weld({"schema", "lower", "--for", "anthropic", "--json", kPerson, "--map-back", "-"},
                           R"({"name":"Bo"})");
  EXPECT_EQ(piped.exit_code, 0);
  EXPECT_EQ(piped.out, "{\"answer\":{\"name\":\"Bo\"},\"valid\":true,\"errors\":[]}\n");
}

TEST_F(CliSchema, LowerUsageAndSchemaErrors) {
  Outcome target = run_weld({"schema", "lower", "--for", "openai", kPerson});
  EXPECT_EQ(target.exit_code, 1);
  EXPECT_NE(target.err.find("--for: openai not in {openai-strict,anthropic,gemini,vllm,tool}"), std::string::npos)
      << target.err;
  Outcome missing = run_weld({"schema", "lower", kPerson});
  EXPECT_EQ(missing.exit_code, 1);
  Outcome bad = run_weld({"schema", "lower", "--for", "vllm", R"({"type":42})"});
  EXPECT_EQ(bad.exit_code, 52);
  EXPECT_EQ(bad.err.rfind("weld schema lower: schema is not a valid JSON Schema: ", 0), 0u) << bad.err;
}

}  // namespace
