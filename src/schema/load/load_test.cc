// Steps 5 and 6 (docs/schema.md, "Reading --json-schema VALUE") and the whole load:
// strict compile errors carry the flag's prefix, the keyword and its pointer; warnings come back with the schema.
#include <gtest/gtest.h>

#include "weld/json/parse.h"
#include "weld/schema/load.h"

namespace weld::schema {
namespace {

std::string load_error(std::string_view value) {
  Result<LoadedSchema> r = load_json_schema(value);
  return r.ok() ? std::string("<ok>") : r.error().message;
}

TEST(LoadJsonSchema, ValidSchemaCompilesAndValidates) {
  Result<LoadedSchema> r = load_json_schema(R"({"type":"object","properties":{"a":{"type":"integer"}}})");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->schema.is_valid(*json::parse(R"({"a":1})")));
  EXPECT_FALSE(r->schema.is_valid(*json::parse(R"({"a":"x"})")));
  EXPECT_TRUE(r->warnings.empty());
  EXPECT_EQ(r->source.find("type")->as_string(), "object");
}

TEST(LoadJsonSchema, UnknownKeywordIsAnError) {
  EXPECT_EQ(load_error(R"({"type":"object","properties":{"a":{"type":"string","propertees":{}}}})"),
            "schema is not a valid JSON Schema: strict mode: unknown keyword: \"propertees\" (did you mean \"properties\"?) at "
            "/properties/a/propertees");
}

TEST(LoadJsonSchema, BadKeywordValuesAreErrors) {
  for (const char* schema : {R"({"type":"object","properties":{"a":{"type":42}}})",
                             R"({"type":"object","properties":{"a":{"type":"strnig"}}})",
                             R"({"type":"object","required":"x"})",
                             R"({"type":"object","properties":{"a":{"minLength":-1}}})",
                             R"({"type":"object","if":{"required":["a"]}})"}) {
    std::string message = load_error(schema);
    EXPECT_EQ(message.rfind("schema is not a valid JSON Schema: ", 0), 0u) << schema << " -> " << message;
    EXPECT_NE(message.find(" at /"), std::string::npos) << message;  // names the pointer
  }
}

TEST(LoadJsonSchema, TolerancesOfTheSource) {
  // required naming unlisted properties, union types, unknown formats (warning).
  Result<LoadedSchema> r = load_json_schema(
      R"({"type":"object","required":["zzz"],"properties":{"a":{"type":["string","null"],"format":"colour"}}})");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->warnings.size(), 1u);
  EXPECT_EQ(r->warnings[0].pointer, "/properties/a/format");
}

TEST(LoadJsonSchema, CompileErrorsComeBeforeTheRootRule) {
  // A schema that is not one says so first, and where.
  std::string message = load_error(R"({"type":"objct"})");
  EXPECT_EQ(message.rfind("schema is not a valid JSON Schema: \"type\" must be equal to one of the allowed values: ", 0), 0u)
      << message;
  EXPECT_NE(message.find(" at /type"), std::string::npos) << message;
  message = load_error(R"({"type":"string","propertees":1})");
  EXPECT_NE(message.find("unknown keyword: \"propertees\""), std::string::npos) << message;
  message = load_error(R"({"type":"string"})");
  EXPECT_EQ(message.rfind("schema root must accept object-typed values", 0), 0u) << message;
  message = load_error(R"({"$ref":"#/$defs/a","$defs":{"a":{"type":"object"}}})");
  EXPECT_NE(message.find("wrap it as {\"allOf\":[{\"$ref\":\"#/$defs/a\"}]"), std::string::npos) << message;
}

TEST(LoadJsonSchema, EarlierStepsComeFirst) {
  EXPECT_EQ(load_error("  "), "schema cannot be empty.");
  EXPECT_EQ(load_error("[1]"), "schema must be a JSON object describing a schema.");
}

TEST(LoadSchemaDocument, NoRootRule) {
  Result<LoadedSchema> r = load_schema_document(R"({"type":"string"})");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->schema.is_valid(json::Value("x")));
  Result<LoadedSchema> ref = load_schema_document(R"({"$ref":"#/$defs/a","$defs":{"a":{"type":"integer"}}})");
  ASSERT_TRUE(ref.ok()) << ref.error().message;
  EXPECT_TRUE(ref->schema.is_valid(json::Value(3)));
}

TEST(LoadSchemaDocument, BooleanSchemasAreSchemas) {
  Result<LoadedSchema> accept_all = load_schema_document("true");
  ASSERT_TRUE(accept_all.ok()) << accept_all.error().message;
  EXPECT_TRUE(accept_all->schema.is_valid(json::Value("anything")));
  Result<LoadedSchema> reject_all = load_schema_document(" false ");
  ASSERT_TRUE(reject_all.ok()) << reject_all.error().message;
  EXPECT_FALSE(reject_all->schema.is_valid(json::Value(1)));
}

TEST(LoadSchemaDocument, NonSchemaRootNamesTheProblem) {
  Result<LoadedSchema> r = load_schema_document("[1]", {}, "schema");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.rfind("schema is not a valid JSON Schema: ", 0), 0u) << r.error().message;
}

TEST(LoadSchemaDocument, NonStrictSkipsStrictRules) {
  CompileOptions options;
  options.strict = false;
  EXPECT_TRUE(load_schema_document(R"({"propertees":{}})", options).ok());
  EXPECT_FALSE(load_schema_document(R"({"propertees":{}})").ok());
}

}  // namespace
}  // namespace weld::schema
