#include "weld/json/parse.h"

#include <gtest/gtest.h>

#include "weld/json/serialize.h"

namespace weld::json {
namespace {

std::string roundtrip(std::string_view text) {
  auto doc = parse(text);
  if (!doc) return "ERROR: " + doc.error().message + " at " + doc.error().where;
  return serialize(*doc);
}

std::string error_of(std::string_view text) {
  auto doc = parse(text);
  if (doc) return "OK";
  return doc.error().message + " at " + doc.error().where;
}

TEST(Parse, Scalars) {
  EXPECT_EQ("null", roundtrip(" null "));
  EXPECT_EQ("true", roundtrip("true"));
  EXPECT_EQ("false", roundtrip("false"));
  EXPECT_EQ("-12", roundtrip("-12"));
  EXPECT_EQ("1.0", roundtrip("1.0"));
  EXPECT_EQ("1.5", roundtrip("1.5"));
  EXPECT_EQ("1e+20", roundtrip("1e20"));
  EXPECT_EQ("\"a\\nb\"", roundtrip("\"a\\nb\""));
}

TEST(Parse, IntegerVersusReal) {
  EXPECT_EQ(Type::Integer, parse("3")->type());
  EXPECT_EQ(Type::Real, parse("3.0")->type());
  EXPECT_EQ(Type::Real, parse("3e0")->type());
  // Beyond int64 becomes a real rather than failing.
  EXPECT_EQ(Type::Real, parse("99999999999999999999")->type());
  EXPECT_EQ(Type::Integer, parse("-9223372036854775808")->type());
}

TEST(Parse, KeepsKeyOrderAndLastDuplicateWins) {
  EXPECT_EQ(R"({"z":1,"a":2,"m":3})", roundtrip(R"({"z":1,"a":2,"m":3})"));
  EXPECT_EQ(R"({"a":3,"b":2})", roundtrip(R"({"a":1,"b":2,"a":3})"));
}

TEST(Parse, DuplicateKeysInLargeObjects) {
  std::string text = "{";
  for (int i = 0; i < 40; ++i) text += "\"k" + std::to_string(i) + "\":" + std::to_string(i) + ",";
  text += "\"k3\":100}";
  auto doc = parse(text);
  ASSERT_TRUE(doc);
  EXPECT_EQ(40u, doc->size());
  EXPECT_EQ(100, doc->find("k3")->as_integer());
}

TEST(Parse, UnicodeEscapes) {
  EXPECT_EQ("\"é\"", roundtrip(R"("\u00e9")"));
  EXPECT_EQ("\"😀\"", roundtrip(R"("\ud83d\ude00")"));
  EXPECT_EQ("lone surrogate in \\u escape at line 1 column 8", error_of(R"("\ud83d")"));
}

TEST(Parse, ErrorsNameWhatAndWhere) {
  EXPECT_EQ("unexpected end of input at line 1 column 2", error_of("{"));
  EXPECT_EQ("trailing comma in object at line 1 column 8", error_of(R"({"a":1,})"));
  EXPECT_EQ("trailing comma in array at line 2 column 1", error_of("[1,\n]"));
  EXPECT_EQ("unexpected character 'x' at line 1 column 1", error_of("x"));
  EXPECT_EQ("unexpected data after the JSON value at line 1 column 3", error_of("1 2"));
  EXPECT_EQ("leading zero in number at line 1 column 2", error_of("01"));
  EXPECT_EQ("control character in string (must be escaped) at line 1 column 3", error_of("\"a\nb\""));
  EXPECT_EQ("invalid UTF-8 in string at line 1 column 2", error_of("\"\xff\""));
  EXPECT_EQ("invalid UTF-8 in string at line 1 column 2", error_of("\"\xed\xa0\x80\""));
  EXPECT_EQ("number out of range at line 1 column 1", error_of("1e400"));
  EXPECT_EQ("unexpected end of input at line 1 column 1", error_of(""));
}

TEST(Parse, TinyNumbersUnderflowToZero) {
  auto doc = parse("1e-400");
  ASSERT_TRUE(doc);
  EXPECT_EQ(0.0, doc->as_real());
}

TEST(Parse, DepthIsBounded) {
  std::string deep(100000, '[');
  EXPECT_EQ("nesting deeper than 512 levels at line 1 column 513", error_of(deep));
}

TEST(Value, EqualityFollowsJsonSchema) {
  EXPECT_TRUE(*parse("1") == *parse("1.0"));
  EXPECT_TRUE(*parse(R"({"a":1,"b":2})") == *parse(R"({"b":2,"a":1})"));
  EXPECT_FALSE(*parse("[1,2]") == *parse("[2,1]"));
  EXPECT_FALSE(*parse("0") == *parse("false"));
}

}  // namespace
}  // namespace weld::json
