#include "weld/json/serialize.h"

#include <gtest/gtest.h>

#include <cmath>

namespace weld::json {
namespace {

TEST(Serialize, CompactKeepsUtf8Raw) {
  Value v = Object{{"name", "Zoë"}, {"n", 2}, {"list", Array{1.5, nullptr, true}}};
  EXPECT_EQ(R"({"name":"Zoë","n":2,"list":[1.5,null,true]})", serialize(v));
}

TEST(Serialize, EscapesControlCharacters) {
  EXPECT_EQ(R"("a\"b\\c\u0001\t")", quote("a\"b\\c\x01\t"));
}

TEST(Serialize, Pretty) {
  Value v = Object{{"a", Array{1, 2}}, {"b", Object{}}};
  EXPECT_EQ("{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": {}\n}", serialize(v, {.indent = 2}));
}

TEST(Serialize, Reals) {
  EXPECT_EQ("0.1", serialize(Value(0.1)));
  EXPECT_EQ("-0.0", serialize(Value(-0.0)));
  EXPECT_EQ("100.0", serialize(Value(100.0)));
}

TEST(Serialize, EveryControlCharacter) {
  std::string controls;
  for (int c = 0; c < 0x20; ++c) controls.push_back(static_cast<char>(c));
  EXPECT_EQ(R"("\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007\b\t\n\u000b\f\r\u000e\u000f)"
            R"(\u0010\u0011\u0012\u0013\u0014\u0015\u0016\u0017\u0018\u0019\u001a\u001b\u001c\u001d\u001e\u001f")",
            quote(controls));
  // DEL and non-ASCII are written as they are.
  EXPECT_EQ("\"\x7f" "Zoë 日本 😀\"", quote("\x7f" "Zoë 日本 😀"));
}

TEST(Serialize, EscapesInsideLongRuns) {
  // Escapes before, at and after 8-byte boundaries, and at the very end.
  EXPECT_EQ(R"("abcdefg\"abcdefgh\\abcdefghi\nabcdefghijklmnopq\t")",
            quote("abcdefg\"abcdefgh\\abcdefghi\nabcdefghijklmnopq\t"));
  std::string long_text(1000, 'x');
  long_text[500] = '"';
  EXPECT_EQ("\"" + std::string(500, 'x') + "\\\"" + std::string(499, 'x') + "\"", quote(long_text));
  // Short keys and values (scanned as one word) next to escapes.
  Value v = Object{{"a\"", "\n"}, {"", ""}, {"k\x01", "é"}};
  EXPECT_EQ(R"({"a\"":"\n","":"","k\u0001":"é"})", serialize(v));
}

TEST(Serialize, AppendsToExistingText) {
  std::string out = "data: ";
  serialize_to(out, Value(Array{1, "two", Object{{"three", 3.0}}}));
  EXPECT_EQ(R"(data: [1,"two",{"three":3.0}])", out);
  write_string(out, "\t");
  EXPECT_EQ(R"(data: [1,"two",{"three":3.0}]"\t")", out);
}

TEST(Serialize, NumbersAndLargeDocuments) {
  Value v = Array{std::int64_t{-9223372036854775807 - 1}, std::int64_t{9223372036854775807}, 1e300, -1.5e-7,
                  0.1 + 0.2, 1e21, std::nan(""), Array{}, Object{}};
  EXPECT_EQ("[-9223372036854775808,9223372036854775807,1e+300,-1.5e-07,0.30000000000000004,1e+21,null,[],{}]",
            serialize(v));
  // Output far beyond the first size estimate (many escapes) grows correctly.
  Array many;
  for (int i = 0; i < 2000; ++i) many.push_back(std::string(7, '\n'));
  std::string expected = "[";
  for (int i = 0; i < 2000; ++i) expected += std::string(i ? "," : "") + "\"\\n\\n\\n\\n\\n\\n\\n\"";
  expected += "]";
  EXPECT_EQ(expected, serialize(Value(std::move(many))));
}

}  // namespace
}  // namespace weld::json
