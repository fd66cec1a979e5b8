// The jsonschema-benchmark sets lowered for every target: every instance
// the original accepts has a lowered form the lowered schema accepts
// (map_forward, with keep_open: the other properties of an open object get
// a place), and mapping that back gives the instance again, which the
// original accepts. And in the default lowering (objects closed, as the
// providers' SDKs do), map_back leaves an instance of the original as it is.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "benchmark_corpus.h"
#include "weld/json/parse.h"
#include "weld/json/serialize.h"
#include "weld/schema/lower.h"
#include "weld/schema/schema.h"

namespace weld::schema {
namespace {

namespace fs = std::filesystem;

// Gemini's OpenAPI schema as the JSON Schema it means (to validate with):
// lower-case types, `nullable` as a null type, its own keywords dropped.
json::Value gemini_as_json_schema(const json::Value& s) {
  if (s.is_array()) {
    json::Array out;
    for (const json::Value& v : s.as_array()) out.push_back(gemini_as_json_schema(v));
    return out;
  }
  if (!s.is_object()) return s;
  json::Value out = json::Object{};
  bool nullable = s.find("nullable") && s.find("nullable")->is_bool() && s.find("nullable")->as_bool();
  for (const json::Member& m : s.as_object()) {
    if (m.key == "nullable" || m.key == "propertyOrdering" || m.key == "example") continue;
    if (m.key == "format" && m.value.is_string() && m.value.as_string() == "enum") continue;
    if (m.key == "type" && m.value.is_string()) {
      std::string t = m.value.as_string();
      for (char& c : t) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
      out.set("type", nullable ? json::Value(json::Array{json::Value(t), json::Value("null")}) : json::Value(t));
    } else if (m.key == "properties") {
      json::Value props = json::Object{};
      for (const json::Member& p : m.value.as_object()) props.set(p.key, gemini_as_json_schema(p.value));
      out.set("properties", std::move(props));
    } else if (m.key == "enum" && nullable) {
      json::Value values = m.value;
      values.push_back(json::Value());
      out.set("enum", std::move(values));
    } else {
      out.set(m.key, gemini_as_json_schema(m.value));
    }
  }
  if (nullable && !out.find("type") && out.find("anyOf")) out.find("anyOf")->push_back(json::Object{{"type", "null"}});
  return out;
}

// `back` is `instance`, except that a member absent from `instance` may be
// null in `back` (openai-strict only: an optional property whose schema
// accepts null cannot be told from a null one once it is required), and an
// empty map may come back as an empty list or the reverse (a union of a map
// and a list: no entries and no items are both `[]` in the lowered shape).
bool same_up_to_added_nulls(const json::Value& instance, const json::Value& back, bool nulls) {
  auto empty = [](const json::Value& v) { return (v.is_object() || v.is_array()) && v.size() == 0; };
  if (empty(instance) && empty(back)) return true;
  if (instance.is_object() && back.is_object()) {
    for (const json::Member& m : instance.as_object()) {
      const json::Value* other = back.find(m.key);
      if (!other || !same_up_to_added_nulls(m.value, *other, nulls)) return false;
    }
    for (const json::Member& m : back.as_object()) {
      if (!instance.find(m.key) && !(nulls && m.value.is_null())) return false;
    }
    return true;
  }
  if (instance.is_array() && back.is_array()) {
    if (instance.size() != back.size()) return false;
    for (std::size_t i = 0; i < instance.size(); ++i) {
      if (!same_up_to_added_nulls(instance.as_array()[i], back.as_array()[i], nulls)) return false;
    }
    return true;
  }
  return instance == back;
}

constexpr Target kTargets[] = {Target::OpenAIStrict, Target::Anthropic, Target::Gemini, Target::Vllm, Target::Tool};
constexpr std::size_t kInstancesPerSet = 150;

TEST(LowerCorpus, EveryValidInstanceSurvivesTheRoundTrip) {
  std::string absent;
  if (!weld::test_support::benchmark_corpus_present(&absent)) GTEST_SKIP() << absent;
  std::vector<fs::path> sets = weld::test_support::benchmark_corpus_sets();
  ASSERT_GE(sets.size(), 30u);
  CompileOptions lenient;
  lenient.strict = false;
  lenient.assert_formats = false;
  std::size_t checked = 0;
  for (const fs::path& set : sets) {
    const std::string name = set.filename().string();
    json::Value original = *json::parse(weld::test_support::read_corpus_file(set / "schema-noformat.json"));
    Schema compiled = Schema::compile(original, lenient);
    std::vector<json::Value> instances;
    std::istringstream lines(weld::test_support::read_corpus_file(set / "instances.jsonl"));
    for (std::string line; std::getline(lines, line) && instances.size() < kInstancesPerSet;) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      json::Value instance = *json::parse(line);
      if (compiled.is_valid(instance)) instances.push_back(std::move(instance));
    }
    for (Target target : kTargets) {
      LowerOptions open;
      open.keep_open = true;
      Lowering sound = Lowering::lower(original, target, open);
      json::Value as_json_schema = target == Target::Gemini ? gemini_as_json_schema(sound.schema()) : sound.schema();
      Schema lowered = Schema::compile(as_json_schema, lenient);
      Lowering closed = Lowering::lower(original, target);
      for (std::size_t i = 0; i < instances.size(); ++i) {
        const json::Value& instance = instances[i];
        json::Value forward = sound.map_forward(instance);
        ValidationResult in_lowered = lowered.validate(forward);
        ASSERT_TRUE(in_lowered.valid) << name << " instance " << i << " for " << target_name(target) << ": "
                                      << describe(in_lowered.violations) << "\nforward: " << json::serialize(forward);
        json::Value back = sound.map_back(std::move(forward));
        // The same value (members the lowering held apart come back last).
        ASSERT_TRUE(same_up_to_added_nulls(instance, back, target == Target::OpenAIStrict)) << name << " instance " << i << " for " << target_name(target) << "\n"
                                      << json::serialize(instance) << "\n" << json::serialize(back);
        ASSERT_TRUE(compiled.is_valid(back));
        // The default lowering (objects closed): an answer with the
        // instance's listed properties only maps back to a valid instance.
        json::Value closed_back = closed.map_back(closed.map_forward(instance));
        ASSERT_TRUE(compiled.is_valid(closed_back)) << name << " instance " << i << " for " << target_name(target)
                                                    << " (closed)\n" << json::serialize(closed_back);
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 10000u);
}

}  // namespace
}  // namespace weld::schema
