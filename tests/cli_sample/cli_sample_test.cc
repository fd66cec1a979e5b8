// Runs the built weld binary (WELD_BINARY) as `weld sample …`, with a
// timeout on every run so a hang fails the test instead of blocking it.
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "child_process.h"
#include "weld/json/parse.h"
#include "weld/json/serialize.h"
#include "weld/schema/schema.h"

namespace {

using Outcome = weld::testing::ChildRun;

// Runs weld with `args` (stdin empty); kills it after 30 s.
Outcome run_weld(const std::vector<std::string>& args) {
  std::vector<std::string> argv{WELD_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  Outcome run = weld::testing::run_child(std::move(argv));
  if (run.timed_out) ADD_FAILURE() << "weld sample timed out";
  return run;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

const char* kSchema = R"({"type":"object","properties":{"risk_level":{"enum":["low","medium","high"]},
  "summary":{"type":"string","minLength":1},"when":{"type":"string","format":"date-time"},
  "code":{"type":"string","pattern":"^[A-Z]{3}-\\d{3}$"},"score":{"type":"integer","minimum":0,"maximum":100}},
  "required":["risk_level","summary","code","score"],"additionalProperties":false})";

TEST(CliSample, PrintsNValidInstancesOnePerLine) {
  Outcome run = run_weld({"sample", kSchema, "-n", "5", "--seed", "42"});
  EXPECT_EQ(0, run.exit_code) << run.err;
  EXPECT_EQ("weld: offline sampler (not a language model), seed 42\n", run.err);
  auto schema = weld::schema::Schema::compile(*weld::json::parse(kSchema));
  std::vector<std::string> printed = lines(run.out);
  ASSERT_EQ(5u, printed.size()) << run.out;
  for (const std::string& line : printed) {
    auto instance = weld::json::parse(line);
    ASSERT_TRUE(instance) << line;
    EXPECT_TRUE(schema.is_valid(*instance)) << line;
    EXPECT_EQ(line, weld::json::serialize(*instance));  // compact, one document per line
  }
  EXPECT_EQ('\n', run.out.back());
}

TEST(CliSample, SameSeedSameOutputOtherSeedOtherOutput) {
  Outcome a = run_weld({"sample", kSchema, "-n", "3", "--seed", "9"});
  Outcome b = run_weld({"sample", kSchema, "-n", "3", "--seed", "9"});
  Outcome c = run_weld({"sample", kSchema, "-n", "3", "--seed", "10"});
  ASSERT_EQ(0, a.exit_code);
  EXPECT_EQ(a.out, b.out);
  EXPECT_NE(a.out, c.out);
  // Without --seed, the seed is 0: reproducible too.
  Outcome d = run_weld({"sample", kSchema});
  Outcome e = run_weld({"sample", kSchema, "--seed", "0"});
  EXPECT_EQ(d.out, e.out);
  EXPECT_EQ(1u, lines(d.out).size());
}

TEST(CliSample, SchemaFromPathAndAtPath) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("weld_cli_sample_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::filesystem::path file = dir / "schema.json";
  std::ofstream(file) << kSchema;
  Outcome inline_run = run_weld({"sample", kSchema, "--seed", "3"});
  Outcome path_run = run_weld({"sample", file.string(), "--seed", "3"});
  Outcome at_run = run_weld({"sample", "@" + file.string(), "--seed", "3"});
  EXPECT_EQ(0, path_run.exit_code) << path_run.err;
  EXPECT_EQ(0, at_run.exit_code) << at_run.err;
  EXPECT_EQ(inline_run.out, path_run.out);
  EXPECT_EQ(inline_run.out, at_run.out);
  std::filesystem::remove_all(dir);
}

TEST(CliSample, NonObjectRootsAreFine) {
  Outcome run = run_weld({"sample", R"({"type":"integer","minimum":10,"maximum":10})", "-n", "2"});
  EXPECT_EQ(0, run.exit_code);
  EXPECT_EQ("10\n10\n", run.out);
}

TEST(CliSample, BadSchemaIs52AndPrintsNothing) {
  Outcome bad = run_weld({"sample", R"({"type":"strnig"})"});
  EXPECT_EQ(52, bad.exit_code);
  EXPECT_EQ("", bad.out);
  EXPECT_EQ("weld sample: schema is not a valid JSON Schema: \"type\" must be equal to one of the allowed values: \"array\", "
            "\"boolean\", \"integer\", \"null\", \"number\", \"object\", \"string\" at /type\n",
            bad.err);
  Outcome empty = run_weld({"sample", "  "});
  EXPECT_EQ(52, empty.exit_code);
  EXPECT_EQ("weld sample: schema cannot be empty.\n", empty.err);
  Outcome not_json = run_weld({"sample", "{nope"});
  EXPECT_EQ(52, not_json.exit_code);
  EXPECT_EQ(0u, not_json.err.rfind("weld sample: schema is not valid JSON: ", 0)) << not_json.err;
  Outcome missing = run_weld({"sample", "@/nonexistent/weld/schema.json"});
  EXPECT_EQ(52, missing.exit_code);
  EXPECT_EQ("", missing.out);
}

TEST(CliSample, UnsatisfiableIsExit1) {
  Outcome run = run_weld({"sample", R"({"type":"integer","minimum":3,"maximum":2})"});
  EXPECT_EQ(1, run.exit_code);
  EXPECT_EQ("", run.out);
  EXPECT_EQ("weld: offline sampler (not a language model), seed 0\n"
            "weld: could not sample a valid instance: no integer lies between the minimum and the maximum\n",
            run.err);
}

TEST(CliSample, ZeroInstancesAndBadFlags) {
  Outcome zero = run_weld({"sample", kSchema, "-n", "0"});
  EXPECT_EQ(0, zero.exit_code);
  EXPECT_EQ("", zero.out);
  Outcome bad_count = run_weld({"sample", kSchema, "-n", "lots"});
  EXPECT_EQ(1, bad_count.exit_code);  // a usage error; CLI11's own code (105) never leaks
  EXPECT_EQ("", bad_count.out);
  EXPECT_EQ(0u, bad_count.err.rfind("weld sample: ", 0)) << bad_count.err;
  EXPECT_NE(std::string::npos, bad_count.err.find("Usage: weld sample [OPTIONS] SCHEMA")) << bad_count.err;
  Outcome no_schema = run_weld({"sample"});
  EXPECT_EQ(1, no_schema.exit_code);  // was CLI11's 106
  Outcome bad_dialect = run_weld({"sample", kSchema, "--dialect", "draft5"});
  EXPECT_EQ(1, bad_dialect.exit_code);
}

TEST(CliSample, Issue16BooleanSchemaTrueIsASchema) {
  Outcome run = run_weld({"sample", "true", "-n", "3"});
  EXPECT_EQ(0, run.exit_code) << run.err;
  EXPECT_EQ(3, std::count(run.out.begin(), run.out.end(), '\n'));
}

}  // namespace
