#include "weld/json/parse.h"

#include <gtest/gtest.h>

#include <cmath>

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

TEST(Parse, SeventeenMembersWithADuplicateKeepFirstPositionAndLastValue) {
  // 17 members: past the size where duplicates are found through the index.
  std::string text = "{";
  for (int i = 0; i < 17; ++i) text += "\"m" + std::to_string(i) + "\":" + std::to_string(i) + ",";
  text += "\"m1\":\"last\",\"m16\":[true]}";
  std::string expected = "{\"m0\":0,\"m1\":\"last\",";
  for (int i = 2; i < 16; ++i) expected += "\"m" + std::to_string(i) + "\":" + std::to_string(i) + ",";
  expected += "\"m16\":[true]}";
  EXPECT_EQ(expected, roundtrip(text));
  EXPECT_EQ(17u, parse(text)->size());
}

TEST(Parse, DuplicateKeysInNestedObjectsStayInTheirObject) {
  EXPECT_EQ(R"({"a":{"a":2,"b":{"a":4}},"b":5})", roundtrip(R"({"a":{"a":1,"b":{"a":3,"a":4},"a":2},"b":5})"));
}

TEST(Parse, DepthExactlyAtTheLimit) {
  std::string at_limit = std::string(512, '[') + std::string(512, ']');
  EXPECT_EQ("OK", error_of(at_limit));
  std::string objects;
  for (int i = 0; i < 512; ++i) objects += "{\"k\":";
  objects += "null" + std::string(512, '}');
  EXPECT_EQ("OK", error_of(objects));
  // The 513th container is the innermost '{', after "[" and 511 `{"k":`.
  EXPECT_EQ("nesting deeper than 512 levels at line 1 column 2557", error_of("[" + objects + "]"));
  auto shallow = parse("[[[1]]]", {.max_depth = 2});
  ASSERT_FALSE(shallow);
  EXPECT_EQ("nesting deeper than 2 levels", shallow.error().message);
  EXPECT_EQ("line 1 column 3", shallow.error().where);
  EXPECT_TRUE(parse("[[1]]", {.max_depth = 2}));
}

TEST(Parse, EscapesInTheMiddleOfLongRuns) {
  // Runs of 7, 8, 9, 15, 16 and 17 bytes around escapes (the scanner reads
  // 8 bytes at a time).
  auto doc = parse(R"(["abcdefg\nabcdefgh\"abcdefghi\u00e9abcdefghijklmno\\abcdefghijklmnop\/abcdefghijklmnopq"])");
  ASSERT_TRUE(doc);
  EXPECT_EQ("abcdefg\nabcdefgh\"abcdefghi\xc3\xa9" "abcdefghijklmno\\abcdefghijklmnop/abcdefghijklmnopq",
            doc->as_array()[0].as_string());
  EXPECT_EQ(R"(["abcdefg\nabcdefgh\"abcdefghiéabcdefghijklmno\\abcdefghijklmnop/abcdefghijklmnopq"])",
            serialize(*doc));
}

TEST(Parse, Utf8IsValidatedPastTheFirstWords) {
  EXPECT_EQ("\"0123456789é😀日本\"", roundtrip("\"0123456789é😀日本\""));
  EXPECT_EQ("invalid UTF-8 in string at line 1 column 18", error_of("\"0123456789abcdef\xc3(\""));
  EXPECT_EQ("invalid UTF-8 in string at line 1 column 18", error_of("\"0123456789abcdef\xf0\x9f\x98"));
  EXPECT_EQ("invalid UTF-8 in string at line 1 column 10", error_of("\"01234567\xf4\x90\x80\x80\""));
  EXPECT_EQ("control character in string (must be escaped) at line 1 column 11", error_of("\"012345678\x1f\""));
  EXPECT_EQ("unterminated string at line 1 column 19", error_of("\"0123456789abcdefg"));
}

TEST(Parse, IntegerBoundaries) {
  EXPECT_EQ(999999999999999999, parse("999999999999999999")->as_integer());    // 18 digits
  EXPECT_EQ(-999999999999999999, parse("-999999999999999999")->as_integer());
  EXPECT_EQ(9223372036854775807, parse("9223372036854775807")->as_integer());  // 19 digits
  EXPECT_EQ(Type::Real, parse("9223372036854775808")->type());
  EXPECT_EQ(Type::Real, parse("-9223372036854775809")->type());
  EXPECT_EQ(Type::Integer, parse("-0")->type());
  // Beyond int64: a Real whose digits are kept (never written back as
  // 1.8446744073709552e+19: an id must keep its digits).
  EXPECT_EQ("18446744073709551615", roundtrip("18446744073709551615"));
  EXPECT_EQ("[-9223372036854775809,123456789012345678901234567890]",
            roundtrip("[-9223372036854775809, 123456789012345678901234567890]"));
  EXPECT_DOUBLE_EQ(18446744073709551615.0, parse("18446744073709551615")->as_real());
  EXPECT_DOUBLE_EQ(-9223372036854775809.0, parse("-9223372036854775809")->as_double());
  EXPECT_EQ("number out of range at line 1 column 1", error_of(std::string(400, '9')));
  EXPECT_EQ(*parse("18446744073709551616"), Value(18446744073709551616.0));  // equal by value
  EXPECT_EQ("18446744073709551616.0", roundtrip("18446744073709551616.0"));  // a real stays a real
  EXPECT_EQ("1e+300", roundtrip("1e300"));
  EXPECT_EQ("0", roundtrip("-0"));
  EXPECT_EQ("expected a digit after '.' in number at line 1 column 4", error_of("[1.]"));
  EXPECT_EQ("expected a digit in number exponent at line 1 column 4", error_of("1e+"));
  EXPECT_EQ("unexpected character '-' at line 1 column 2", error_of("--1"));
}

TEST(Value, EqualityFollowsJsonSchema) {
  EXPECT_TRUE(*parse("1") == *parse("1.0"));
  EXPECT_TRUE(*parse(R"({"a":1,"b":2})") == *parse(R"({"b":2,"a":1})"));
  EXPECT_FALSE(*parse("[1,2]") == *parse("[2,1]"));
  EXPECT_FALSE(*parse("0") == *parse("false"));
}

}  // namespace
}  // namespace weld::json
