#include "weld/json/compact.h"

#include <gtest/gtest.h>

#include "weld/json/parse.h"
#include "weld/json/serialize.h"
#include "weld/json/utf8.h"

namespace weld::json {
namespace {

// What serialize gives for the whole text: the output must add up to it.
std::string serialized(std::string_view text) {
  Result<Value> value = parse(text);
  EXPECT_TRUE(value) << text;
  return value ? serialize(*value) : std::string();
}

// Feeds `text` cut at every `step` bytes; checks each output is valid UTF-8
// and that the running output stays a prefix of the final text.
std::string fed(std::string_view text, std::size_t step, bool* stopped = nullptr) {
  Compactor compactor;
  std::string out;
  for (std::size_t at = 0; at < text.size(); at += step) {
    std::string piece = compactor.feed(text.substr(at, step));
    EXPECT_TRUE(is_valid_utf8(piece)) << "step " << step << " at " << at;
    out += piece;
  }
  out += compactor.finish();
  if (stopped != nullptr) *stopped = compactor.stopped();
  return out;
}

const char* const kDocuments[] = {
    R"({ "summary" : "Renders\tthe \"page\"\\n" ,
        "n": [1, -0.5, 1e2, 1.0, 10, 0, -12.25E-3], "ok": true, "no": false, "none": null })",
    R"({"escapes":"\u00e9\u0041\/\b\f\n\r\t\u001f","pair":"\ud83d\ude00 x","raw":"é😀 ü"})",
    R"([[],{},[{"a":[{}]}],"", " "])",
    "{\"deep\":{\"a\":{\"b\":[1,[2,[3]]]}},\"k\":\"v\"}\n\n",
    R"("a root string")",
    "42",
    "true",
};

TEST(Compactor, EverySplitAddsUpToWhatSerializeGives) {
  for (const char* doc : kDocuments) {
    const std::string want = serialized(doc);
    for (std::size_t step : {1, 2, 3, 5, 7, 64, 4096}) {
      bool stopped = true;
      EXPECT_EQ(fed(doc, step, &stopped), want) << doc << " step " << step;
      EXPECT_FALSE(stopped) << doc;
    }
  }
}

TEST(Compactor, EachPieceIsAPrefixOfTheFinalText) {
  const std::string doc = R"({"summary": "Use RE2 \u00e9", "options": [{"label": "a", "confidence": 0.80}]})";
  const std::string want = serialized(doc);
  Compactor compactor;
  std::string out;
  int pieces = 0;
  for (char c : doc) {
    std::string piece = compactor.feed(std::string_view(&c, 1));
    if (!piece.empty()) ++pieces;
    out += piece;
    ASSERT_EQ(want.compare(0, out.size(), out), 0) << out;
  }
  out += compactor.finish();
  EXPECT_EQ(out, want);
  EXPECT_GT(pieces, 10);  // streamed, not held to the end
}

TEST(Compactor, AStringIsGivenAsFarAsItHasCome) {
  Compactor compactor;
  EXPECT_EQ(compactor.feed(R"({ "summary": "Ren)"), R"({"summary":"Ren)");
  // Never inside an escape or a surrogate pair.
  EXPECT_EQ(compactor.feed(R"(ders \u00)"), "ders ");
  EXPECT_EQ(compactor.feed(R"(e9 \ud83d)"), "é ");
  EXPECT_EQ(compactor.feed(R"(\ude00)"), "😀");
  EXPECT_EQ(compactor.feed(R"(\)"), "");
  EXPECT_EQ(compactor.feed(R"(n" })"), R"(\n"})");
  EXPECT_EQ(compactor.finish(), "");
  EXPECT_FALSE(compactor.stopped());
}

TEST(Compactor, NumbersAndLiteralsWaitForTheirEnd) {
  Compactor compactor;
  EXPECT_EQ(compactor.feed(R"({"n":12)"), R"({"n":)");
  EXPECT_EQ(compactor.feed("3"), "");
  EXPECT_EQ(compactor.feed(".50e1,\"t\":tr"), R"(1235.0,"t":)");
  EXPECT_EQ(compactor.feed("ue}"), "true}");
}

TEST(Compactor, TextThatIsNotJsonStopsTheOutput) {
  bool stopped = false;
  // A fenced answer (native mechanism): nothing is given.
  EXPECT_EQ(fed("```json\n{\"a\":1}\n```", 3, &stopped), "");
  EXPECT_TRUE(stopped);
  // Text after the root value: the root is given, the rest is not.
  EXPECT_EQ(fed(R"({"a": 1}} )", 1, &stopped), R"({"a":1})");
  EXPECT_TRUE(stopped);
  EXPECT_EQ(fed(R"({"a": tru e})", 1, &stopped), R"({"a":)");
  EXPECT_TRUE(stopped);
  EXPECT_EQ(fed(R"({"a": "bad \x escape"})", 1, &stopped), R"({"a":"bad )");
  EXPECT_TRUE(stopped);
  EXPECT_EQ(fed(R"({"a": 01})", 1, &stopped), R"({"a":)");
  EXPECT_TRUE(stopped);
  // Cut short: what came is given, and the end says it was incomplete.
  EXPECT_EQ(fed(R"({"a": "unfinished)", 4, &stopped), R"({"a":"unfinished)");
  EXPECT_TRUE(stopped);
  Compactor compactor;
  EXPECT_EQ(compactor.feed("]"), "");
  EXPECT_TRUE(compactor.stopped());
  EXPECT_EQ(compactor.feed("{}"), "");
}

TEST(Compactor, InvalidUtf8InAStringStops) {
  bool stopped = false;
  std::string doc = "{\"a\":\"ok \xff\"}";
  std::string out = fed(doc, 1, &stopped);
  EXPECT_TRUE(stopped);
  EXPECT_TRUE(is_valid_utf8(out));
  EXPECT_EQ(out, R"({"a":"ok )");
}

}  // namespace
}  // namespace weld::json
