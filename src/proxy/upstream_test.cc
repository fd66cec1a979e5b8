#include "upstream.h"

#include <gtest/gtest.h>

namespace weld::proxy {
namespace {

TEST(UpstreamUrl, Parses) {
  auto plain = parse_upstream_url("http://127.0.0.1:8000");
  ASSERT_TRUE(plain);
  EXPECT_FALSE(plain->tls);
  EXPECT_EQ("127.0.0.1", plain->host);
  EXPECT_EQ("8000", plain->port);
  EXPECT_EQ("", plain->path_prefix);
  EXPECT_EQ("127.0.0.1:8000", plain->host_header);
  auto tls = parse_upstream_url("https://api.example.com/openai/");
  ASSERT_TRUE(tls);
  EXPECT_TRUE(tls->tls);
  EXPECT_EQ("443", tls->port);
  EXPECT_EQ("/openai", tls->path_prefix);
  auto v6 = parse_upstream_url("http://[::1]:9");
  ASSERT_TRUE(v6);
  EXPECT_EQ("::1", v6->host);
  EXPECT_EQ("9", v6->port);
}

// `--upstream http://host:port/v1`, the base URL as users give it to
// OPENAI_BASE_URL, forwarded /v1/chat/completions to /v1/v1/chat/completions.
TEST(UpstreamUrl, APrefixEndingInV1DoesNotRepeatTheClientsV1) {
  auto v1 = parse_upstream_url("http://127.0.0.1:8000/v1");
  ASSERT_TRUE(v1);
  EXPECT_EQ("/v1/chat/completions", upstream_target(*v1, "/v1/chat/completions"));
  EXPECT_EQ("/v1/models", upstream_target(*v1, "/v1/models"));
  EXPECT_EQ("/v1/health", upstream_target(*v1, "/health"));  // a target without /v1 keeps the prefix's
  auto gateway = parse_upstream_url("https://gw.example/openai/v1/");
  ASSERT_TRUE(gateway);
  EXPECT_EQ("/openai/v1/messages?beta=true", upstream_target(*gateway, "/v1/messages?beta=true"));
  auto plain = parse_upstream_url("http://h:8000/openai");
  ASSERT_TRUE(plain);
  EXPECT_EQ("/openai/v1/chat/completions", upstream_target(*plain, "/v1/chat/completions"));
  auto none = parse_upstream_url("http://h:8000");
  ASSERT_TRUE(none);
  EXPECT_EQ("/v1/chat/completions", upstream_target(*none, "/v1/chat/completions"));
  auto v10 = parse_upstream_url("http://h/v10");
  ASSERT_TRUE(v10);
  EXPECT_EQ("/v10/v1/x", upstream_target(*v10, "/v1/x"));  // only a whole /v1 segment
}

TEST(UpstreamUrl, Refuses) {
  EXPECT_EQ("--upstream \"ftp://x\" must start with http:// or https://", parse_upstream_url("ftp://x").error().message);
  EXPECT_EQ("--upstream \"http://\" has no host", parse_upstream_url("http://").error().message);
  EXPECT_EQ("--upstream \"http://h:99999\" has a bad port", parse_upstream_url("http://h:99999").error().message);
  EXPECT_EQ("--upstream \"http://***@h\" must not carry credentials in the URL",
            parse_upstream_url("http://u:p@h").error().message);
  EXPECT_FALSE(parse_upstream_url("http://h/x?y"));
}

TEST(UpstreamUrl, Issue13_4_NoMessageShowsTheCredentials) {
  // Whatever else is wrong with the URL, the password never appears.
  for (const char* url : {"ftp://user:hunter2@h", "http://user:hunter2@h:99999", "http://user:hunter2@h/x?y",
                          "http://user:hunter2@/v1", "https://us@er:hunter2@h/p", "user:hunter2@h"}) {
    Result<UpstreamTarget> target = parse_upstream_url(url);
    ASSERT_FALSE(target) << url;
    EXPECT_EQ(std::string::npos, target.error().message.find("hunter2")) << target.error().message;
  }
  EXPECT_TRUE(parse_upstream_url("http://h/path@v1"));  // an @ in the path is no userinfo
}

}  // namespace
}  // namespace weld::proxy
