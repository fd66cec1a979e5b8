#include "lenient_parse.h"

#include <gtest/gtest.h>

#include <string>

#include "weld/json/parse.h"
#include "weld/json/serialize.h"

namespace weld::repair {
namespace {

// "kind@path" for each repair, joined by spaces.
std::string kinds(const LenientParse& parsed) {
  std::string out;
  for (const auto& repair : parsed.repairs) {
    if (!out.empty()) out += ' ';
    out += repair.kind + "@" + repair.path;
  }
  return out;
}

std::string compact(const LenientParse& parsed) { return json::serialize(parsed.value); }

TEST(LenientParse, StrictJsonNeedsNoRepair) {
  auto r = lenient_parse(R"({"a":[1,2.5,"x",true,null]})");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(R"({"a":[1,2.5,"x",true,null]})", compact(*r));
  EXPECT_EQ("", kinds(*r));
}

TEST(LenientParse, CodeFence) {
  auto r = lenient_parse("```json\n{\"a\": 1}\n```");
  ASSERT_TRUE(r);
  EXPECT_EQ(R"({"a":1})", compact(*r));
  EXPECT_EQ("code_fence@", kinds(*r));
  EXPECT_EQ("removed a Markdown code fence (```json)", r->repairs[0].detail);
}

TEST(LenientParse, CodeFenceInProseWithoutTag) {
  auto r = lenient_parse("Here it is:\n```\n[1, 2]\n```\nDone.");
  ASSERT_TRUE(r);
  EXPECT_EQ("[1,2]", compact(*r));
  EXPECT_EQ("removed a Markdown code fence (```) and the text around it", r->repairs[0].detail);
}

TEST(LenientParse, UnclosedCodeFence) {
  auto r = lenient_parse("```json\n{\"a\": 1}\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(R"({"a":1})", compact(*r));
  EXPECT_EQ("removed a Markdown code fence (```json); the closing fence was missing", r->repairs[0].detail);
}

TEST(LenientParse, TrailingCommas) {
  auto r = lenient_parse(R"({"a": [1, 2,], "b": {"c": 3,},})");
  ASSERT_TRUE(r);
  EXPECT_EQ(R"({"a":[1,2],"b":{"c":3}})", compact(*r));
  EXPECT_EQ("trailing_comma@/a", kinds(*r));
  EXPECT_EQ("removed a trailing comma before ']' (3 times in all)", r->repairs[0].detail);
}

TEST(LenientParse, SingleQuotes) {
  auto r = lenient_parse(R"({'name': 'it\'s "ok"', "b": 'x'})");
  ASSERT_TRUE(r);
  EXPECT_EQ(R"({"name":"it's \"ok\"","b":"x"})", compact(*r));
  EXPECT_EQ("single_quotes@", kinds(*r));
}

TEST(LenientParse, UnquotedKeys) {
  auto r = lenient_parse(R"({name: "x", nested: {risk_level: "low"}})");
  ASSERT_TRUE(r);
  EXPECT_EQ(R"({"name":"x","nested":{"risk_level":"low"}})", compact(*r));
  EXPECT_EQ("unquoted_keys@/name", kinds(*r));
  EXPECT_EQ("quoted the key \"name\" (3 times in all)", r->repairs[0].detail);
}

TEST(LenientParse, PythonLiterals) {
  auto r = lenient_parse(R"({"a": True, "b": False, "c": [None]})");
  ASSERT_TRUE(r);
  EXPECT_EQ(R"({"a":true,"b":false,"c":[null]})", compact(*r));
  EXPECT_EQ("python_literals@/a", kinds(*r));
}

TEST(LenientParse, PythonLiteralMustBeAWholeWord) {
  EXPECT_FALSE(lenient_parse(R"({"a": Truex})"));
  EXPECT_FALSE(lenient_parse(R"({"a": TRUE})"));
}

TEST(LenientParse, JsonInsideProse) {
  auto r = lenient_parse("Sure! Here is the answer: {\"a\": 1} Let me know if you need more.");
  ASSERT_TRUE(r);
  EXPECT_EQ(R"({"a":1})", compact(*r));
  EXPECT_EQ("extracted_json@", kinds(*r));
  EXPECT_EQ("took the JSON document at line 1 column 27 and ignored the text around it", r->repairs[0].detail);
}

// A model that corrected itself: the first value used to be kept. With more
// than one complete JSON value in prose, weld does not guess.
TEST(LenientParse, TwoDocumentsInProseAreNoAnswer) {
  auto r = lenient_parse("My answer: {\"age\":36}. Wait, that is wrong; it is {\"age\":99}.");
  ASSERT_FALSE(r);
  EXPECT_EQ(ErrorCode::Parse, r.error().code);
  EXPECT_EQ("the text holds more than one JSON object (at line 1 column 12 and at line 1 column 51); weld does not "
            "guess which one is the answer: send exactly one",
            r.error().message);
  EXPECT_EQ("line 1 column 51", r.error().where);
  auto arrays = lenient_parse("first [1, 2]\nthen [3]");
  ASSERT_FALSE(arrays);
  EXPECT_EQ("the text holds more than one JSON array (at line 1 column 7 and at line 2 column 6); weld does not "
            "guess which one is the answer: send exactly one",
            arrays.error().message);
  // What is not a second document of the same kind leaves the answer alone.
  auto one = lenient_parse("Answer: {\"a\": [1]} (see note [2], and {braces} in prose).");
  ASSERT_TRUE(one);
  EXPECT_EQ(R"({"a":[1]})", compact(*one));
}

TEST(LenientParse, ProseSkipsBracesThatStartNothing) {
  auto r = lenient_parse("Use {braces} and [brackets]: {'a': True}");
  ASSERT_TRUE(r);
  EXPECT_EQ(R"({"a":true})", compact(*r));
  EXPECT_EQ("extracted_json@ single_quotes@ python_literals@/a", kinds(*r));
}

TEST(LenientParse, TrailingTextAfterDocument) {
  auto r = lenient_parse(R"({"a":1}})");
  ASSERT_TRUE(r);
  EXPECT_EQ(R"({"a":1})", compact(*r));
  EXPECT_EQ("extracted_json@", kinds(*r));
}

TEST(LenientParse, RawControlCharacters) {
  auto r = lenient_parse("{\"a\": \"line one\nline two\"}");
  ASSERT_TRUE(r);
  EXPECT_EQ(R"({"a":"line one\nline two"})", compact(*r));
  EXPECT_EQ("control_characters@/a", kinds(*r));
  EXPECT_EQ("escaped a raw control character (U+000A) in a string", r->repairs[0].detail);
}

TEST(LenientParse, AllTogether) {
  auto r = lenient_parse("```json\n{a: 'x', b: True, c: [1,2,],}\n```");
  ASSERT_TRUE(r);
  EXPECT_EQ(R"({"a":"x","b":true,"c":[1,2]})", compact(*r));
  EXPECT_EQ("code_fence@ unquoted_keys@/a single_quotes@/a python_literals@/b trailing_comma@/c", kinds(*r));
}

TEST(LenientParse, NumbersAgreeWithStrictParser) {
  auto r = lenient_parse("{n: [0, -1, 2.50, 1e3, 12345678901234567890, -0]}");
  ASSERT_TRUE(r);
  auto strict = json::parse("[0, -1, 2.50, 1e3, 12345678901234567890, -0]");
  ASSERT_TRUE(strict);
  EXPECT_EQ(json::serialize(*strict), json::serialize(*r->value.find("n")));
}

TEST(LenientParse, RefusesWhatCannotBeRecovered) {
  for (const char* text : {"", "   ", "hello", "{", "[1, 2", "{\"a\" 1}", "{\"a\":01}", "{\"a\": NaN}",
                           "{\"a\": \"\\x\"}", "{\"a\": \"\\ud800\"}", "{,}", "[,]", "[1,,2]", "```\nnope\n```"}) {
    auto r = lenient_parse(text);
    EXPECT_FALSE(r) << text;
  }
}

TEST(LenientParse, ErrorIsTheStrictParsersError) {
  auto r = lenient_parse("hello");
  ASSERT_FALSE(r);
  EXPECT_EQ(ErrorCode::Parse, r.error().code);
  EXPECT_EQ("unexpected character 'h'", r.error().message);
  EXPECT_EQ("line 1 column 1", r.error().where);
}

TEST(LenientParse, RefusesInvalidUtf8InsteadOfReplacingIt) {
  EXPECT_FALSE(lenient_parse("{'a': '\xC3'}"));
  EXPECT_FALSE(lenient_parse("{'a': '\xED\xA0\x80'}"));
  auto ok = lenient_parse("{'a': 'h\xC3\xA9'}");
  ASSERT_TRUE(ok);
  EXPECT_EQ("h\xC3\xA9", ok->value.find("a")->as_string());
}

TEST(LenientParse, DeepNestingIsRefusedNotACrash) {
  std::string deep(100000, '[');
  EXPECT_FALSE(lenient_parse(deep));
  std::string ok = std::string(500, '[') + std::string(500, ']');
  EXPECT_TRUE(lenient_parse(ok + ","));  // recovered by extraction from "prose"
}

// Found by fuzz/repair_fuzz.cc: a sign at the very start read one byte
// before the text.
TEST(LenientParse, fuzz_leading_sign_reads_nothing_before_the_text) {
  for (const char* text : {"+", "-", "+{\"a\":1}", "-x", "1e+", "1e-5x"}) {
    auto r = lenient_parse(text);
    if (r) EXPECT_EQ(R"({"a":1})", compact(*r)) << text;
  }
  EXPECT_TRUE(lenient_parse("+{\"a\":1}"));
}

TEST(LenientParse, DuplicateKeysKeepFirstPositionLastValue) {
  auto r = lenient_parse("{a: 1, b: 2, a: 3}");
  ASSERT_TRUE(r);
  EXPECT_EQ(R"({"a":3,"b":2})", compact(*r));
}

}  // namespace
}  // namespace weld::repair
