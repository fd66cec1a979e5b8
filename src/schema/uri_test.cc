#include "weld/schema/uri.h"

#include <gtest/gtest.h>

namespace weld::schema {
namespace {

TEST(Uri, ResolvesRfc3986Examples) {
  const char* base = "http://a/b/c/d;p?q";
  EXPECT_EQ("g:h", resolve_uri(base, "g:h"));
  EXPECT_EQ("http://a/b/c/g", resolve_uri(base, "g"));
  EXPECT_EQ("http://a/b/c/g/", resolve_uri(base, "g/"));
  EXPECT_EQ("http://a/g", resolve_uri(base, "/g"));
  EXPECT_EQ("http://g", resolve_uri(base, "//g"));
  EXPECT_EQ("http://a/b/c/d;p?y", resolve_uri(base, "?y"));
  EXPECT_EQ("http://a/b/c/d;p?q#s", resolve_uri(base, "#s"));
  EXPECT_EQ("http://a/b/", resolve_uri(base, ".."));
  EXPECT_EQ("http://a/b/g", resolve_uri(base, "../g"));
  EXPECT_EQ("http://a/g", resolve_uri(base, "../../g"));
}

TEST(Uri, FragmentsAndUrns) {
  EXPECT_EQ("urn:uuid:deadbeef#/$defs/x", resolve_uri("urn:uuid:deadbeef", "#/$defs/x"));
  EXPECT_EQ("#/definitions/a", resolve_uri("", "#/definitions/a"));
  EXPECT_EQ("http://x/y.json", resolve_uri("http://x/z.json", "y.json"));
}

}  // namespace
}  // namespace weld::schema
