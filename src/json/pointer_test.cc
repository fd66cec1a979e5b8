#include "weld/json/pointer.h"

#include <gtest/gtest.h>

#include "weld/json/parse.h"

namespace weld::json {
namespace {

TEST(Pointer, ResolvesAndEscapes) {
  auto doc = parse(R"({"a/b":{"~x":[10,20]},"":1})");
  ASSERT_TRUE(doc);
  EXPECT_EQ(20, resolve_pointer(*doc, "/a~1b/~0x/1")->as_integer());
  EXPECT_EQ(1, resolve_pointer(*doc, "/")->as_integer());
  EXPECT_EQ(&*doc, resolve_pointer(*doc, ""));
  EXPECT_EQ(nullptr, resolve_pointer(*doc, "/a~1b/~0x/01"));
  EXPECT_EQ(nullptr, resolve_pointer(*doc, "/a~1b/~0x/2"));
  EXPECT_EQ(nullptr, resolve_pointer(*doc, "a"));
  EXPECT_EQ(nullptr, resolve_pointer(*doc, "/~2"));
  std::string p;
  append_pointer(p, "a/b");
  append_pointer(p, std::size_t{3});
  EXPECT_EQ("/a~1b/3", p);
}

}  // namespace
}  // namespace weld::json
