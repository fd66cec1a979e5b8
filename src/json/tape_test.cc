#include "weld/json/tape.h"

#include <gtest/gtest.h>

#include "weld/json/parse.h"
#include "weld/json/serialize.h"

namespace weld::json {
namespace {

TEST(Tape, RoundTripsEveryType) {
  const char* text =
      R"({"a":[1,2.5,"x",null,true,false,{}],"":{"k":[[],[{}]]},"big":-123456789012345678901234567890,"s":"é\u0000"})";
  Value value = *parse(text);
  Tape tape;
  write_tape(value, tape);
  EXPECT_EQ(serialize(value), serialize(read_tape(tape)));
  // The root spans the whole tape; each member's key is on its value.
  EXPECT_EQ(tape.size(), tape.root().span);
  EXPECT_EQ(4u, tape.root().size);
  const TapeEntry& a = tape.data()[1];
  EXPECT_EQ("a", a.key_view());
  EXPECT_EQ(Type::Array, a.type);
  EXPECT_EQ(7u, a.size);
  EXPECT_EQ(8u, a.span);
  const TapeEntry& empty_key = tape.data()[1 + a.span];
  EXPECT_EQ("", empty_key.key_view());
  EXPECT_EQ(Type::Object, empty_key.type);
}

TEST(Tape, BigIntegersKeepTheirDigits) {
  Value value = *parse("[18446744073709551617]");
  Tape tape;
  write_tape(value, tape);
  const TapeEntry& big = tape.data()[1];
  EXPECT_EQ(Type::Real, big.type);
  EXPECT_TRUE(big.big_integer);
  EXPECT_EQ("18446744073709551617", big.text_view());
  EXPECT_EQ("[18446744073709551617]", serialize(read_tape(tape)));
}

TEST(Tape, ClearKeepsItReusable) {
  Tape tape;
  write_tape(*parse(R"({"a":[1,2,3]})"), tape);
  write_tape(*parse("7"), tape);
  EXPECT_EQ(1u, tape.size());
  EXPECT_EQ(7, tape.root().integer);
}

}  // namespace
}  // namespace weld::json
