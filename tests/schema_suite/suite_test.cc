// Runs JSON-Schema-Test-Suite/tests/<draft>/*.json (required) and
// optional/format/*.json (the formats docs/schema.md lists). remotes/ answers for
// http://localhost:1234/ through the compile resolver. Compiles non-strict:
// the suite is written for lenient validators.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "weld/json/parse.h"
#include "weld/json/serialize.h"
#include "weld/json/tape.h"
#include "weld/schema/schema.h"

namespace weld::schema {
namespace {

namespace fs = std::filesystem;

const fs::path kSuite = fs::path(WELD_TEST_SUITE_DIR);

struct Draft {
  const char* dir;
  Dialect dialect;
};
constexpr Draft kDrafts[] = {{"draft4", Dialect::Draft4},
                             {"draft6", Dialect::Draft6},
                             {"draft7", Dialect::Draft7},
                             {"draft2019-09", Dialect::Draft2019_09},
                             {"draft2020-12", Dialect::Draft2020_12},
                             {"v1", Dialect::V1}};

// The formats weld asserts (optional/format/<name>.json), plus
// unknown.json (unknown formats pass).
constexpr const char* kFormats[] = {"date-time", "date", "time", "duration", "email", "idn-email", "hostname",
                                    "idn-hostname", "ipv4", "ipv6", "uri", "uri-reference", "iri",
                                    "iri-reference", "uri-template", "uuid", "json-pointer",
                                    "relative-json-pointer", "regex", "unknown"};

// Tests skipped, each with its reason in SKIPPED.md: "<draft>/<file>|<case description>".
// Test cases skipped, with the reason in tests/schema_suite/SKIPPED.md
// ("file|group description"). None today.
const std::vector<std::string> kSkipped = {};

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Case {
  std::string name;  // gtest-safe
  std::string label;  // "<draft>/<file>|<description>"
  Dialect dialect;
  bool optional_format = false;
  json::Value group;  // {"description","schema","tests"}
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.label; }

std::string sanitize(const std::string& s) {
  std::string out;
  for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

void add_file(std::vector<Case>& cases, const Draft& draft, const fs::path& file, const std::string& rel) {
  auto doc = json::parse(read_file(file));
  if (!doc || !doc->is_array()) return;
  std::size_t index = 0;
  for (const json::Value& group : doc->as_array()) {
    const json::Value* description = group.find("description");
    std::string desc = description && description->is_string() ? description->as_string() : "";
    Case c;
    c.label = std::string(draft.dir) + "/" + rel + "|" + desc;
    c.name = sanitize(std::string(draft.dir) + "_" + rel.substr(0, rel.size() - 5)) + "_" + std::to_string(index++);
    c.dialect = draft.dialect;
    // v1 keeps its format tests in format/ rather than optional/format/.
    c.optional_format = rel.rfind("optional/format/", 0) == 0 || rel.rfind("format/", 0) == 0;
    c.group = group;
    cases.push_back(std::move(c));
  }
}

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  for (const Draft& draft : kDrafts) {
    fs::path dir = kSuite / "tests" / draft.dir;
    if (!fs::is_directory(dir)) continue;
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (entry.is_regular_file() && entry.path().extension() == ".json") files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& f : files) add_file(cases, draft, f, f.filename().string());
    for (const char* format : kFormats) {
      fs::path f = dir / "optional" / "format" / (std::string(format) + ".json");
      if (fs::exists(f)) add_file(cases, draft, f, "optional/format/" + std::string(format) + ".json");
    }
    // v1's format tests (format/, all of them): run with format asserted.
    if (fs::is_directory(dir / "format")) {
      std::vector<fs::path> formats;
      for (const auto& entry : fs::directory_iterator(dir / "format")) {
        if (entry.path().extension() == ".json") formats.push_back(entry.path());
      }
      std::sort(formats.begin(), formats.end());
      for (const fs::path& f : formats) add_file(cases, draft, f, "format/" + f.filename().string());
    }
  }
  return cases;
}

std::optional<json::Value> resolve_remote(std::string_view uri) {
  constexpr std::string_view kPrefix = "http://localhost:1234/";
  if (uri.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  fs::path path = kSuite / "remotes" / std::string(uri.substr(kPrefix.size()));
  if (!fs::is_regular_file(path)) return std::nullopt;
  auto doc = json::parse(read_file(path));
  if (!doc) return std::nullopt;
  return *doc;
}

class SuiteTest : public testing::TestWithParam<Case> {};

TEST_P(SuiteTest, Case) {
  const Case& c = GetParam();
  for (const std::string& skipped : kSkipped) {
    if (c.label == skipped) GTEST_SKIP() << "listed in tests/schema_suite/SKIPPED.md";
  }
  SCOPED_TRACE(c.label);
  CompileOptions options;
  options.default_dialect = c.dialect;
  options.strict = false;
  // The required tests are written for the default behaviour of each
  // dialect, where `format` is an annotation (draft2020-12/format.json checks
  // exactly that); weld asserts formats, which the optional
  // format tests check.
  options.assert_formats = c.optional_format;
  options.resolver = resolve_remote;
  const json::Value& schema_json = *c.group.find("schema");
  std::optional<Schema> schema;
  try {
    schema.emplace(Schema::compile(schema_json, options));
  } catch (const SchemaError& e) {
    FAIL() << "compile failed: " << e.what() << "\nschema: " << json::serialize(schema_json);
  }
  for (const json::Value& test : c.group.find("tests")->as_array()) {
    const json::Value& data = *test.find("data");
    bool expected = test.find("valid")->as_bool();
    std::string what = test.find("description")->as_string();
    EXPECT_EQ(expected, schema->is_valid(data))
        << "fast: " << what << "\nschema: " << json::serialize(schema_json) << "\ndata: " << json::serialize(data);
    json::Tape tape;
    json::write_tape(data, tape);
    EXPECT_EQ(expected, schema->is_valid(tape))
        << "tape: " << what << "\nschema: " << json::serialize(schema_json) << "\ndata: " << json::serialize(data);
    ValidationResult all = schema->validate(data, Collect::All);
    EXPECT_EQ(expected, all.valid) << "collect all: " << what;
    EXPECT_EQ(expected, all.violations.empty()) << "collect all: " << what;
    if (!expected) {
      EXPECT_FALSE(schema->validate(data, Collect::First).violations.empty()) << "first: " << what;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(JsonSchemaTestSuite, SuiteTest, testing::ValuesIn(all_cases()),
                         [](const testing::TestParamInfo<Case>& info) { return info.param.name; });

}  // namespace
}  // namespace weld::schema
