#include "weld/telemetry/span.h"

#include <gtest/gtest.h>

#include <vector>

namespace weld::telemetry {
namespace {

std::vector<std::string> items_of(const AttributeView& attribute) {
  std::vector<std::string> items;
  SpanData::for_each_item(attribute, [&](std::string_view item) { items.emplace_back(item); });
  return items;
}

TEST(SpanData, KeepsEachKindOfValue) {
  SpanData span;
  span.set_name("chat m");
  span.set("s", std::string_view("text"));
  span.set("i", std::int64_t{-7});
  span.set("d", 0.25);
  span.set("b", true);
  const std::vector<std::string> reasons{"stop", "", "tool_calls"};
  span.set("a", reasons);
  span.set_status_message("timeout");
  ASSERT_EQ(5u, span.attributes().size());
  const std::vector<AttributeView> attrs = span.attributes();
  EXPECT_EQ("s", attrs[0].key);
  EXPECT_EQ(ValueKind::String, attrs[0].kind);
  EXPECT_EQ("text", attrs[0].text);
  EXPECT_EQ(ValueKind::Int, attrs[1].kind);
  EXPECT_EQ(ValueKind::Double, attrs[2].kind);
  EXPECT_EQ(ValueKind::Bool, attrs[3].kind);
  EXPECT_EQ(-7, attrs[1].int_value);
  EXPECT_EQ(0.25, attrs[2].double_value);
  EXPECT_TRUE(attrs[3].bool_value);
  EXPECT_EQ(ValueKind::StringArray, attrs[4].kind);
  EXPECT_EQ(reasons, items_of(attrs[4]));
  EXPECT_EQ("chat m", span.name());
  EXPECT_EQ("timeout", span.status_message());
}

// Each attribute's bytes, in order: what an exporter writes either way.
std::string each_encoded(const SpanData& span) {
  std::string out;
  for (const TextRef& encoded : span.encoded_refs()) out += span.bytes(encoded);
  return out;
}

// The exporter copies a usual span's attribute bytes as one run;
// anything between them takes the attribute-by-attribute way.
TEST(SpanData, AUsualSpansAttributeBytesAreOneRun) {
  SpanData span;
  span.set_name("POST");
  span.set("http.request.method", std::string_view("POST"));
  span.set("weld.attempt", std::int64_t{1});
  span.set("weld.valid", true);
  ASSERT_TRUE(span.encoded_attributes().has_value());
  EXPECT_EQ(each_encoded(span), *span.encoded_attributes());
  EXPECT_EQ(span.encoded_attributes_size(), span.encoded_attributes()->size());

  SpanData replaced = span;
  replaced.set("weld.attempt", std::int64_t{2});
  EXPECT_FALSE(replaced.encoded_attributes().has_value());

  SpanData status_between = span;
  status_between.set_status_message("timeout");
  status_between.set("error.type", std::string_view("timeout"));
  EXPECT_FALSE(status_between.encoded_attributes().has_value());

  SpanData with_array = span;
  with_array.set("gen_ai.response.finish_reasons", std::vector<std::string>{"stop"});
  ASSERT_TRUE(with_array.encoded_attributes().has_value());
  EXPECT_EQ(each_encoded(with_array), *with_array.encoded_attributes());

  SpanData none;
  ASSERT_TRUE(none.encoded_attributes().has_value());
  EXPECT_TRUE(none.encoded_attributes()->empty());
}

// Setting a key again replaces its value (and may change its kind) in its
// place: OTLP keys are unique within a span.
TEST(SpanData, SettingAKeyAgainReplacesItsValue) {
  SpanData span;
  span.set("weld.attempts", std::int64_t{1});
  span.set("weld.outcome", std::string_view("retry"));
  span.set("weld.attempts", std::int64_t{2});
  span.set("weld.outcome", std::string_view("ok"));
  span.set("weld.attempts", std::string_view("two"));
  ASSERT_EQ(2u, span.attributes().size());
  EXPECT_EQ(ValueKind::String, span.attributes()[0].kind);
  EXPECT_EQ("weld.attempts", span.attributes()[0].key);
  EXPECT_EQ("two", span.attributes()[0].text);
  EXPECT_EQ("ok", span.attributes()[1].text);
  EXPECT_EQ(each_encoded(span).size(), span.encoded_attributes_size());
}

// Past what fits in place (16 attributes, 256 bytes of text) the span
// spills to the heap and keeps every value, before and after the spill, and
// through copies and moves.
TEST(SpanData, SpillsPastItsPlaceAndKeepsEverything) {
  SpanData span;
  const std::string long_name(300, 'n');
  span.set_name("first");
  // 40 distinct literal keys: 16 fit in place.
  constexpr AttributeKey keys[] = {"k00", "k01", "k02", "k03", "k04", "k05", "k06", "k07", "k08", "k09",
                                   "k10", "k11", "k12", "k13", "k14", "k15", "k16", "k17", "k18", "k19",
                                   "k20", "k21", "k22", "k23", "k24", "k25", "k26", "k27", "k28", "k29",
                                   "k30", "k31", "k32", "k33", "k34", "k35", "k36", "k37", "k38", "k39"};
  for (std::size_t i = 0; i < std::size(keys); ++i) {
    if (i % 2 == 0) {
      span.set(keys[i], std::string_view(std::string(i + 10, static_cast<char>('a' + i % 26))));
    } else {
      span.set(keys[i], static_cast<std::int64_t>(i));
    }
  }
  span.set_status_message(long_name);
  auto check = [&](const SpanData& s) {
    ASSERT_EQ(std::size(keys), s.attributes().size());
    for (std::size_t i = 0; i < std::size(keys); ++i) {
      const AttributeView a = s.attribute(i);
      EXPECT_EQ(keys[i].text(), a.key);
      if (i % 2 == 0) {
        EXPECT_EQ(std::string(i + 10, static_cast<char>('a' + i % 26)), a.text) << i;
      } else {
        EXPECT_EQ(static_cast<std::int64_t>(i), a.int_value) << i;
      }
    }
    EXPECT_EQ("first", s.name());
    EXPECT_EQ(long_name, s.status_message());
  };
  check(span);
  SpanData copy = span;
  check(copy);
  SpanData moved = std::move(copy);
  check(moved);
  // A key set before the spill is still found and replaced after it.
  moved.set(keys[3], std::int64_t{-1});
  EXPECT_EQ(std::size(keys), moved.attributes().size());
  EXPECT_EQ(-1, moved.attribute(3).int_value);
  EXPECT_EQ(each_encoded(moved).size(), moved.encoded_attributes_size());
}

}  // namespace
}  // namespace weld::telemetry
