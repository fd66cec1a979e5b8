// The size of the retry turn (docs/run.md, "What the model sees, and how the run ends"): what
// describe_for_model tells the model after an invalid answer, over the jsonschema-benchmark corpus's
// schemas and wrong answers made from their valid instances — each value in turn given the wrong type,
// every value wrong at once, each property of the root left out, an unknown one added. No text may pass
// kDescribedTextBytes; the figures (largest, 99th percentile, median) are printed for docs/run.md:
//   ctest --test-dir build -R DescribeCorpus.RetryTurnStaysSmall -V
// The same wrong answers, with the corpus's valid instances, check that the evaluator's fast pass
// (is_valid) and its collecting pass (validate's errors) give every instance the same verdict.
// Skips, saying why, when the corpus is absent (tests/support/benchmark_corpus.h).

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "corpus_json.h"
#include "compiler.h"
#include "evaluator.h"
#include "weld/json/parse.h"
#include "weld/schema/schema.h"

namespace weld::schema {
namespace {

namespace fs = std::filesystem;

// A value of another type than `value`'s, as a model gets a type wrong.
json::Value wrong_type(const json::Value& value) {
  if (value.is_string()) return json::Value(std::int64_t{12345});
  if (value.is_bool()) return json::Value("maybe");
  if (value.is_null()) return json::Value(json::Array{json::Value(std::int64_t{1})});
  if (value.is_object()) return json::Value("an object was expected here");
  if (value.is_array()) return json::Value(json::Object{{"item", json::Value(true)}});
  return json::Value("not a number");
}

// Calls `each` with a pointer to every value below the root, depth first.
void each_value(json::Value& value, const std::function<void(json::Value&)>& each) {
  if (value.is_object()) {
    for (json::Member& member : value.as_object()) {
      each(member.value);
      each_value(member.value, each);
    }
  } else if (value.is_array()) {
    for (json::Value& item : value.as_array()) {
      each(item);
      each_value(item, each);
    }
  }
}

// Every value of `value` below the root replaced by one of another type, the leaves first.
void everything_wrong(json::Value& value) {
  if (value.is_object()) {
    for (json::Member& member : value.as_object()) {
      if (member.value.is_object() || member.value.is_array()) everything_wrong(member.value);
      else member.value = wrong_type(member.value);
    }
  } else if (value.is_array()) {
    for (json::Value& item : value.as_array()) {
      if (item.is_object() || item.is_array()) everything_wrong(item);
      else item = wrong_type(item);
    }
  }
}

// Wrong answers made from a valid instance (at most `limit` single-value mutations).
std::vector<json::Value> wrong_answers(const json::Value& valid, std::size_t limit) {
  std::vector<json::Value> out;
  std::size_t count = 0;
  json::Value counter = valid;
  each_value(counter, [&](json::Value&) { ++count; });
  for (std::size_t target = 0; target < count && target < limit; ++target) {
    json::Value copy = valid;
    std::size_t at = 0;
    each_value(copy, [&](json::Value& v) {
      if (at++ == target) v = wrong_type(v);
    });
    out.push_back(std::move(copy));
  }
  json::Value all = valid;
  everything_wrong(all);
  out.push_back(std::move(all));
  if (valid.is_object()) {
    for (std::size_t i = 0; i < valid.as_object().size(); ++i) {
      json::Object fewer = valid.as_object();
      fewer.erase(fewer.begin() + static_cast<std::ptrdiff_t>(i));
      out.emplace_back(std::move(fewer));
    }
    json::Object more = valid.as_object();
    more.emplace_back("an_unknown_property", json::Value("x"));
    out.emplace_back(std::move(more));
  }
  out.emplace_back(json::Value("a plain text answer, not an object"));
  return out;
}

TEST(DescribeCorpus, RetryTurnStaysSmall) {
  std::string absent;
  if (!weld::test_support::benchmark_corpus_present(&absent)) GTEST_SKIP() << absent;
  std::vector<fs::path> dirs = weld::test_support::benchmark_corpus_sets();
  std::vector<std::size_t> sizes;
  std::size_t largest = 0;
  std::string largest_text, largest_where;
  std::size_t schemas = 0, capped = 0;
  for (const fs::path& dir : dirs) {
    std::optional<json::Value> document = test_support::read_corpus_json(dir / "schema.json");
    if (!document) continue;
    std::optional<Schema> compiled;
    CompileOptions options;
    options.strict = false;
    try {
      compiled.emplace(Schema::compile(*document, options));
    } catch (const SchemaError&) {
      continue;  // krakend: escapes ECMAScript's `u` mode refuses, as Ajv does
    }
    ++schemas;
    std::ifstream lines(dir / "instances.jsonl", std::ios::binary);
    std::string line;
    for (int n = 0; n < 20 && std::getline(lines, line); ++n) {
      std::optional<json::Value> valid;
      if (auto parsed = json::parse(line)) valid = std::move(*parsed);
      if (!valid) continue;
      for (const json::Value& answer : wrong_answers(*valid, 60)) {
        ValidationResult result = compiled->validate(answer, Collect::All);
        if (result.valid) continue;
        std::string told = describe_for_model(result.violations, answer);
        sizes.push_back(told.size());
        if (told.find("more violation(s)") != std::string::npos) ++capped;
        EXPECT_LE(told.size(), kDescribedTextBytes) << dir.filename().string() << ":\n" << told;
        if (told.size() > largest) {
          largest = told.size();
          largest_text = told;
          largest_where = dir.filename().string();
        }
      }
    }
  }
  ASSERT_GT(schemas, 30u);
  ASSERT_FALSE(sizes.empty());
  std::sort(sizes.begin(), sizes.end());
  auto at = [&](double q) { return sizes[static_cast<std::size_t>(q * static_cast<double>(sizes.size() - 1))]; };
  std::printf("retry turn over %zu schemas, %zu wrong answers: median %zu bytes, 99th percentile %zu, largest %zu "
              "(%s), cap %zu; %zu left violations out (counted)\n%s\n",
              schemas, sizes.size(), at(0.5), at(0.99), largest, largest_where.c_str(), kDescribedTextBytes, capped,
              largest_text.c_str());
}


// The fast pass decides alone whenever it says "valid", so a fast pass that
// wrongly accepts would never meet the collecting pass in validate(): both
// passes run here on every instance, valid or not, on both instance forms.
TEST(EvaluatorCorpus, FastAndCollectingPassesAgree) {
  std::string absent;
  if (!weld::test_support::benchmark_corpus_present(&absent)) GTEST_SKIP() << absent;
  std::size_t schemas = 0, checked = 0, invalid = 0;
  for (const fs::path& dir : weld::test_support::benchmark_corpus_sets()) {
    std::optional<json::Value> document = test_support::read_corpus_json(dir / "schema-noformat.json");
    if (!document) continue;
    Program program;
    program.source = *document;
    CompileOptions options;
    options.strict = false;
    try {
      Compiler(options, program, false).run();
    } catch (const SchemaError&) {
      continue;
    }
    ++schemas;
    std::ifstream lines(dir / "instances.jsonl", std::ios::binary);
    std::string line;
    for (int n = 0; n < 40 && std::getline(lines, line); ++n) {
      auto parsed = json::parse(line);
      if (!parsed) continue;
      std::vector<json::Value> answers = wrong_answers(*parsed, 40);
      answers.push_back(std::move(*parsed));
      for (const json::Value& answer : answers) {
        std::vector<Violation> violations;
        const bool collected = evaluate_collect(program, answer, true, violations);
        const bool fast = evaluate_fast(program, answer);
        json::Tape tape;
        json::write_tape(answer, tape);
        EXPECT_EQ(fast, collected) << dir.filename().string() << ": " << line;
        EXPECT_EQ(evaluate_fast(program, tape), collected) << dir.filename().string() << " (tape): " << line;
        EXPECT_EQ(collected, violations.empty()) << dir.filename().string() << ": " << line;
        ++checked;
        invalid += collected ? 0 : 1;
      }
    }
  }
  ASSERT_GT(schemas, 30u);
  ASSERT_GT(invalid, checked / 4);
  std::printf("fast and collecting passes agree on %zu instances (%zu invalid) of %zu schemas\n", checked, invalid,
              schemas);
}

}  // namespace
}  // namespace weld::schema
