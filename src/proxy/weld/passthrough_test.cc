#include "weld/proxy/passthrough.h"

#include <gtest/gtest.h>

#include "weld/json/parse.h"

namespace weld::proxy {
namespace {

json::Value body(std::string_view text) { return *json::parse(text); }

PassthroughRule rule(std::string_view text) {
  auto parsed = parse_passthrough_rule(body(text));
  EXPECT_TRUE(parsed) << (parsed ? "" : parsed.error().message);
  return parsed ? *parsed : PassthroughRule{};
}

TEST(Passthrough, SystemPromptOfEitherApiMatches) {
  PassthroughRule r = rule(R"({"system_contains":["next speaker"]})");
  EXPECT_EQ(passthrough_match(r, body(R"({"system":"Decide the next speaker.","messages":[]})")),
            "system_contains \"next speaker\"");
  EXPECT_TRUE(passthrough_match(r, body(R"({"system":[{"type":"text","text":"x"},{"type":"text","text":"the next speaker"}]})")));
  EXPECT_TRUE(passthrough_match(r, body(R"({"messages":[{"role":"system","content":"who is the next speaker?"},{"role":"user","content":"hi"}]})")));
  EXPECT_TRUE(passthrough_match(r, body(R"({"messages":[{"role":"developer","content":[{"type":"text","text":"next speaker"}]}]})")));
  // The user's own words never count.
  EXPECT_FALSE(passthrough_match(r, body(R"({"messages":[{"role":"user","content":"next speaker"}]})")));
}

TEST(Passthrough, SmallOutputLimitAndOwnFormat) {
  PassthroughRule r = rule(R"({"max_tokens_below":256,"response_format":true})");
  EXPECT_EQ(passthrough_match(r, body(R"({"max_tokens":100})")), "max_tokens 100 < 256");
  EXPECT_TRUE(passthrough_match(r, body(R"({"max_completion_tokens":64})")));
  EXPECT_FALSE(passthrough_match(r, body(R"({"max_tokens":4096})")));
  EXPECT_EQ(passthrough_match(r, body(R"({"response_format":{"type":"json_schema","json_schema":{}}})")), "response_format");
  EXPECT_FALSE(passthrough_match(r, body(R"({"response_format":{"type":"text"}})")));
  EXPECT_TRUE(passthrough_match(r, body(R"({"output_config":{"format":{"type":"json_schema"}}})")));
  EXPECT_FALSE(passthrough_match(PassthroughRule{}, body(R"({"max_tokens":1})")));
}

TEST(Passthrough, BadRulesNameTheField) {
  auto error = [](std::string_view text) {
    auto parsed = parse_passthrough_rule(body(text));
    return parsed ? std::string("ok") : parsed.error().message;
  };
  EXPECT_EQ(error("[]"), "passthrough_when must be an object (system_contains, max_tokens_below, response_format)");
  EXPECT_EQ(error(R"({"system_contains":"x"})"),
            "passthrough_when.system_contains must be a non-empty array of non-empty strings");
  EXPECT_EQ(error(R"({"max_tokens_below":0})"), "passthrough_when.max_tokens_below must be a positive integer");
  EXPECT_EQ(error(R"({"response_format":1})"), "passthrough_when.response_format must be true or false");
  EXPECT_EQ(error(R"({"model":"x"})"),
            "passthrough_when has an unknown field \"model\" (known: system_contains, max_tokens_below, response_format)");
}

}  // namespace
}  // namespace weld::proxy
