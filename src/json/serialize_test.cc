#include "weld/json/serialize.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace weld::json
