#include "weld/json/partial.h"

#include <gtest/gtest.h>

#include "weld/json/parse.h"

namespace weld::json {
namespace {

std::string closed(std::string_view prefix) {
  auto out = close_prefix(prefix);
  return out ? out->text : std::string("<none>");
}

TEST(ClosePrefix, OpenStringsAndContainersAreClosed) {
  EXPECT_EQ(closed(R"({"summary":"Ren)"), R"({"summary":"Ren"})");
  EXPECT_EQ(closed(R"({"a":[1,2,{"b":"x)"), R"({"a":[1,2,{"b":"x"}]})");
  EXPECT_EQ(closed(R"({"a":{)"), R"({"a":{}})");
  EXPECT_EQ(closed(R"({"a":[)"), R"({"a":[]})");
  EXPECT_EQ(closed("[ "), "[]");
  EXPECT_EQ(closed(R"({"a":"")"), R"({"a":""})");
}

TEST(ClosePrefix, NumbersAndLiteralsCountOnceSomethingEndsThem) {
  // 12 may still become 123: left out until a delimiter comes.
  EXPECT_EQ(closed(R"({"n":12)"), "{}");
  EXPECT_EQ(closed(R"({"n":12,)"), R"({"n":12})");
  EXPECT_EQ(closed(R"({"n":12 )"), R"({"n":12})");
  EXPECT_EQ(closed(R"([true,fal)"), "[true]");
  EXPECT_EQ(closed(R"({"n":-)"), "{}");
}

TEST(ClosePrefix, AMemberCountsOnlyOnceItsValueStarted) {
  EXPECT_EQ(closed(R"({"a":1,"b)"), R"({"a":1})");
  EXPECT_EQ(closed(R"({"a":1,"b")"), R"({"a":1})");
  EXPECT_EQ(closed(R"({"a":1,"b":)"), R"({"a":1})");
  EXPECT_EQ(closed(R"({"a":1,"b": ")"), R"({"a":1,"b": ""})");
}

TEST(ClosePrefix, NeverCutsInsideAnEscapeASurrogatePairOrAUtf8Sequence) {
  EXPECT_EQ(closed(R"({"s":"a\)"), R"({"s":"a"})");
  EXPECT_EQ(closed(R"({"s":"a\u00)"), R"({"s":"a"})");
  EXPECT_EQ(closed(R"({"s":"a\u00e9)"), R"({"s":"a\u00e9"})");
  EXPECT_EQ(closed(R"({"s":"a\ud83d)"), R"({"s":"a"})");
  EXPECT_EQ(closed(R"({"s":"a\ud83d\ude00)"), R"({"s":"a\ud83d\ude00"})");
  EXPECT_EQ(closed("{\"s\":\"a\xC3"), "{\"s\":\"a\"}");
  EXPECT_EQ(closed("{\"s\":\"a\xC3\xA9"), "{\"s\":\"a\xC3\xA9\"}");
}

TEST(ClosePrefix, NothingToShowOrNotJson) {
  EXPECT_EQ(closed(""), "<none>");
  EXPECT_EQ(closed("  "), "<none>");
  EXPECT_EQ(closed("12"), "<none>");
  EXPECT_EQ(closed(R"("text)"), "<none>");
  EXPECT_EQ(closed(R"({"a":nope,)"), "<none>");
  EXPECT_EQ(closed(R"({"a":1.2.3,)"), "<none>");
  EXPECT_EQ(closed(R"({"a" 1)"), "<none>");
  EXPECT_EQ(closed(R"({} x)"), "<none>");
}

TEST(ClosePrefix, CountsCompleteValues) {
  EXPECT_EQ(close_prefix(R"({"a":1,"b":"x)")->complete_values, 1u);
  EXPECT_EQ(close_prefix(R"({"a":1,"b":"x",)")->complete_values, 2u);
  EXPECT_EQ(close_prefix(R"({"a":[1,2])")->complete_values, 3u);
  EXPECT_EQ(close_prefix(R"({"a":[1,2]})")->complete_values, 4u);
}

// Every prefix of a valid document closes into valid JSON, and the whole
// document closes into itself.
TEST(ClosePrefix, EveryPrefixOfARealAnswerClosesIntoValidJson) {
  const std::string doc =
      R"({"options":[{"label":"Refund \"now\"","confidence":0.92,"reason":"é ✓ \ud83d\ude00"},)"
      R"({"label":"Wait","confidence":1e-3,"reason":null,"tags":[true,false,[]]}],"summary":"Pick one."})";
  for (std::size_t i = 1; i <= doc.size(); ++i) {
    auto out = close_prefix(std::string_view(doc).substr(0, i));
    ASSERT_TRUE(out) << i;
    EXPECT_TRUE(parse(out->text)) << i << ": " << out->text;
  }
  EXPECT_EQ(close_prefix(doc)->text, doc);
}

}  // namespace
}  // namespace weld::json
