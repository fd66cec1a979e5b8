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
