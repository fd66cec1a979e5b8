#include "pattern_gen.h"

#include <gtest/gtest.h>

#include "weld/schema/regex.h"

namespace weld::sample {
namespace {

// Every generated string must match the pattern per the schema engine's
// ECMAScript regex, for many seeds.
void expect_matches(const char* pattern) {
  auto re = schema::Regex::compile(pattern);
  ASSERT_TRUE(re) << pattern;
  for (std::uint64_t seed = 0; seed < 50; ++seed) {
    Prng rng(seed);
    auto s = generate_from_pattern(pattern, rng);
    ASSERT_TRUE(s) << pattern;
    EXPECT_EQ(schema::Regex::Match::Yes, re->search(*s)) << pattern << " -> " << *s;
  }
}

TEST(PatternGen, CommonConstructs) {
  for (const char* pattern :
       {"^[a-z][a-z0-9_]*$", "^\\d{3}-\\d{4}$", "^(foo|bar|baz)$", "^v?\\d+\\.\\d+\\.\\d+(-[0-9A-Za-z.-]+)?$",
        "^[A-Z]{2,4}$", "^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$", "^(?:[01]\\d|2[0-3]):[0-5]\\d$", "^\\w+$", "abc",
        "^[\\u0041-\\u005A]+$", "^\\x41+$", "^(a)\\1$", "^(?<year>\\d{4})-(?<m>\\d{2})$", "^.{5,8}$",
        "^[^a-z]{3}$", "^(?!test)[a-z]+$", "^\\$ref$", "^[-+]?[0-9]*\\.?[0-9]+$", "^#?[0-9a-fA-F]{6}$",
        "^\\S+ \\S+$", "^a{2}b{0,2}c{1,}$", "^[.]$", "^\\p{L}+$"}) {
    expect_matches(pattern);
  }
}

TEST(PatternGen, SameSeedSameString) {
  Prng a(42), b(42);
  EXPECT_EQ(generate_from_pattern("^[a-z]{3,9}-\\d+$", a), generate_from_pattern("^[a-z]{3,9}-\\d+$", b));
}

TEST(PatternGen, UnparseableOrHugeIsNullopt) {
  Prng rng(1);
  EXPECT_FALSE(generate_from_pattern("(abc", rng));
  EXPECT_FALSE(generate_from_pattern("[abc", rng));
  EXPECT_FALSE(generate_from_pattern("*a", rng));
  EXPECT_FALSE(generate_from_pattern("a{5000}", rng));
  EXPECT_FALSE(generate_from_pattern("(a{200}){200}", rng));
  EXPECT_FALSE(generate_from_pattern("((((){200}){200}){200}){200}", rng));  // bounded work, no hang
}

}  // namespace
}  // namespace weld::sample
