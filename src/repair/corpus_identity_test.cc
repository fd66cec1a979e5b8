// Identity on correct answers (docs/design.md, "Repairs": repairs never
// change a correct answer): every instance of the jsonschema-benchmark
// corpus that validates passes through check_arguments unchanged, byte for
// byte, with no repairs. Invalid instances must not crash; a repaired one
// must validate and say what was repaired.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "corpus_json.h"
#include "weld/json/parse.h"
#include "weld/json/pointer.h"
#include "weld/json/serialize.h"
#include "weld/repair/repair.h"

namespace weld::repair {
namespace {

namespace fs = std::filesystem;

std::optional<schema::Schema> compile_dir(const fs::path& dir) {
  schema::CompileOptions options;
  options.strict = false;
  for (const char* name : {"schema.json", "schema-noformat.json"}) {
    auto doc = test_support::read_corpus_json(dir / name);
    if (!doc) continue;
    try {
      return schema::Schema::compile(*doc, options);
    } catch (const schema::SchemaError&) {
    }
  }
  return std::nullopt;
}

TEST(RepairCorpus, ValidInstancesComeBackUnchanged) {
  std::string absent;
  if (!weld::test_support::benchmark_corpus_present(&absent)) GTEST_SKIP() << absent;
  std::vector<fs::path> dirs = weld::test_support::benchmark_corpus_sets();
  std::size_t valid_total = 0, invalid_total = 0, repaired_total = 0, schemas = 0;
  for (const auto& dir : dirs) {
    auto compiled = compile_dir(dir);
    if (!compiled) {
      // krakend: its patterns use escapes ECMAScript's `u` mode rejects
      // (\&, \%), so the schema engine refuses it, as Ajv does.
      std::cout << "[corpus] skipped (schema does not compile): " << dir.filename() << "\n";
      continue;
    }
    ++schemas;
    std::ifstream lines(dir / "instances.jsonl", std::ios::binary);
    std::string line;
    std::size_t line_no = 0;
    for (Options options : {Options{}, Options{.clamp = true}}) {
      lines.clear();
      lines.seekg(0);
      line_no = 0;
      while (std::getline(lines, line)) {
        ++line_no;
        if (line.empty()) continue;
        auto doc = json::parse(line);
        ASSERT_TRUE(doc) << dir << ":" << line_no;
        Checked c = check_arguments(line, *compiled, options);
        ASSERT_TRUE(c.parsed) << dir << ":" << line_no;
        if (compiled->is_valid(*doc)) {
          ++valid_total;
          EXPECT_TRUE(c.valid) << dir << ":" << line_no;
          EXPECT_TRUE(c.repairs.empty()) << dir << ":" << line_no << " " << c.repairs.front().kind;
          EXPECT_EQ(json::serialize(*doc), json::serialize(c.value)) << dir << ":" << line_no;
        } else {
          ++invalid_total;
          if (c.valid) {
            ++repaired_total;
            EXPECT_FALSE(c.repairs.empty()) << dir << ":" << line_no;
            EXPECT_TRUE(compiled->is_valid(c.value)) << dir << ":" << line_no;
          } else {
            EXPECT_TRUE(c.repairs.empty()) << dir << ":" << line_no;
          }
        }
      }
    }
  }
  std::cout << "[corpus] schemas " << schemas << ", valid instance checks " << valid_total
            << " unchanged, invalid " << invalid_total << " (repaired into valid: " << repaired_total << ")\n";
  EXPECT_GE(schemas + 1, dirs.size());
  EXPECT_GT(valid_total, 1000u);
}

// Every boolean and number turned into its string form ("true", "42").
json::Value stringify_scalars(const json::Value& v) {
  if (v.is_bool() || v.is_number()) return json::Value(json::serialize(v));
  if (v.is_array()) {
    json::Array out;
    for (const auto& e : v.as_array()) out.push_back(stringify_scalars(e));
    return out;
  }
  if (v.is_object()) {
    json::Object out;
    for (const auto& m : v.as_object()) out.push_back(json::Member{m.key, stringify_scalars(m.value)});
    return out;
  }
  return v;
}

// Meaning preservation on real data: a valid answer damaged the way models
// damage answers (code fence, prose around it, scalars as strings) is either
// left invalid or repaired back: fences and prose to exactly the original,
// stringified scalars to the original value at every place repaired.
TEST(RepairCorpus, DamagedValidInstancesRepairBackToTheOriginal) {
  std::string absent;
  if (!weld::test_support::benchmark_corpus_present(&absent)) GTEST_SKIP() << absent;
  std::vector<fs::path> dirs = weld::test_support::benchmark_corpus_sets();
  std::size_t fenced = 0, prose = 0, stringified = 0, stringified_repaired = 0;
  for (const auto& dir : dirs) {
    auto compiled = compile_dir(dir);
    if (!compiled) continue;
    std::ifstream lines(dir / "instances.jsonl", std::ios::binary);
    std::string line;
    for (int taken = 0; taken < 200 && std::getline(lines, line);) {
      auto doc = json::parse(line);
      if (!doc || !compiled->is_valid(*doc)) continue;
      ++taken;
      std::string original = json::serialize(*doc);
      Checked f = check_arguments("```json\n" + line + "\n```", *compiled, {});
      EXPECT_TRUE(f.valid) << dir << ": " << line;
      EXPECT_EQ(original, json::serialize(f.value)) << dir;
      ++fenced;
      if (doc->is_object() || doc->is_array()) {
        Checked p = check_arguments("Here you go: " + line + "\nHope this helps.", *compiled, {});
        EXPECT_TRUE(p.valid) << dir << ": " << line;
        EXPECT_EQ(original, json::serialize(p.value)) << dir;
        ++prose;
      }
      json::Value damaged = stringify_scalars(*doc);
      if (!compiled->is_valid(damaged)) {
        ++stringified;
        Checked c = check_arguments(json::serialize(damaged), *compiled, {});
        if (c.valid) {
          // Where the schema allows a string, the damaged string is a valid
          // answer and stays; every place a repair touched must hold the
          // original value again.
          ++stringified_repaired;
          EXPECT_FALSE(c.repairs.empty());
          for (const Repair& r : c.repairs) {
            const json::Value* now = json::resolve_pointer(c.value, r.path);
            const json::Value* before = json::resolve_pointer(*doc, r.path);
            ASSERT_TRUE(now != nullptr && before != nullptr) << dir << " " << r.path;
            EXPECT_TRUE(*now == *before) << dir << ": " << r.kind << " at " << r.path << " gave "
                                         << json::serialize(*now) << ", original " << json::serialize(*before);
          }
        }
      }
    }
  }
  std::cout << "[corpus] fenced " << fenced << " and in prose " << prose << " all recovered; scalars stringified "
            << stringified << ", repaired back " << stringified_repaired << "\n";
  EXPECT_GT(stringified_repaired, 100u);
}

}  // namespace
}  // namespace weld::repair
