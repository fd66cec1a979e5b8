#include "request_target.h"

#include <gtest/gtest.h>

namespace weld::proxy {
namespace {

std::string forwarded(std::string_view target) {
  Result<std::string> origin = origin_form(target);
  return origin ? *origin : "refused: " + origin.error().message;
}

TEST(OriginForm, KeepsAnOriginFormTarget) {
  EXPECT_EQ("/v1/models?x=1", forwarded("/v1/models?x=1"));
  EXPECT_EQ("/v1/models/a..b/.well-known?q=../x", forwarded("/v1/models/a..b/.well-known?q=../x"));
  EXPECT_EQ("/v1/%41", forwarded("/v1/%41"));
}

TEST(OriginForm, Issue13_9_AbsoluteFormKeepsOnlyPathAndQuery) {
  EXPECT_EQ("/v1/models?x=1", forwarded("http://elsewhere.example:81/v1/models?x=1"));
  EXPECT_EQ("/v1/messages", forwarded("HTTPS://user@elsewhere.example/v1/messages"));
  EXPECT_EQ("/", forwarded("http://elsewhere.example"));
  EXPECT_EQ("/?q=1", forwarded("http://elsewhere.example?q=1"));
}

TEST(OriginForm, Issue13_9_DotSegmentsAreRefusedHoweverSpelled) {
  const std::string refused =
      "refused: request target has a \".\" or \"..\" path segment (plain or percent-encoded), which could leave the "
      "upstream's path prefix";
  for (const char* target : {"/..", "/../admin", "/v1/../../admin", "/v1/%2e%2e/admin", "/v1/.%2E/admin", "/v1/%2E.",
                             "/v1/%252e%252e/admin", "/v1/..%2fadmin", "/v1/..%5cadmin", "/v1/..\\admin", "/./v1",
                             "/..;/admin", "/v1/.%2e;x/a", "/#/../../admin",
                             "http://h/../admin", "/v1/%25252E%25252E/x"}) {
    EXPECT_EQ(refused, forwarded(target)) << target;
  }
}

TEST(OriginForm, Issue13_9_OtherFormsAreRefused) {
  for (const char* target : {"*", "elsewhere.example:443", "", "v1/models", "ftp://h/x"}) {
    EXPECT_EQ("refused: request target must be a path or an absolute http(s) URL", forwarded(target)) << target;
  }
}

}  // namespace
}  // namespace weld::proxy
