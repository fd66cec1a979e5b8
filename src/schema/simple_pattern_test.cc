#include "simple_pattern.h"

#include <gtest/gtest.h>

#include "weld/schema/regex.h"

namespace weld::schema {
namespace {

enum class Undecided { Never, Allowed };

// Each pattern has a simple form, and it decides each subject as the real
// engine does (or, when allowed, leaves it to the engine: -1).
template <std::size_t P, std::size_t S>
void expect_agreement(const char* (&patterns)[P], const char* (&subjects)[S], Undecided undecided) {
  for (const char* p : patterns) {
    auto simple = parse_simple_pattern(p);
    ASSERT_TRUE(simple.has_value()) << p;
    auto re = Regex::compile(p);
    ASSERT_TRUE(re.ok()) << p;
    for (const char* s : subjects) {
      int got = match_simple_pattern(*simple, s);
      if (got == -1 && undecided == Undecided::Allowed) continue;
      ASSERT_NE(-1, got) << "pattern " << p << " subject \"" << s << "\"";
      EXPECT_EQ(re->search(s) == Regex::Match::Yes, got == 1) << "pattern " << p << " subject \"" << s << "\"";
    }
  }
}

// Every simple form must agree with the real engine.
TEST(SimplePattern, AgreesWithRegexEngine) {
  const char* patterns[] = {"^[a-zA-Z0-9_\\.\\-\\|@#]*$", "^[a-zA-Z0-9_\\-]*$", ".+", "[\\s\\S]*", ".", ".*", "(.+)",
                            "^[@$_#]", "^x-", "default", "type$", "^.+$", "^.{1,3}$", "^[A-F0-9]{1,32}$",
                            "^[^\\W\\.\\-]", "^[\\w\\*]{0,6}$", "a{2}", "^[a-z]?$", "^$", "[0-9]{2,}$", "^\\d+$",
                            // A prefix of single characters before the repeated class.
                            "^[A-Za-z][A-Za-z0-9_\\-:]*$", "^[a-z][a-z0-9_]+$", "^#[0-9a-fA-F]{6}$", "^cols_[0-9]+$",
                            "^[1-9][0-9]*$", "^:[0-9]+$", "^[^\\W\\.\\-][\\w\\.\\-]*$", "^ab[0-9]", "^[a-z][0-9]?",
                            "^[a-z][a-z0-9-_]{1,3}$", "^a.c$",
                            // … and a suffix after it, anchored at the end.
                            "^\\{\\{[\\w][\\w\\.\\-]*\\}\\}$", "[0-9]+px$", "^[a-z]+\\.json$", "[a-z]{2}on$",
                            "^[a-z]?x$", "a+b$", "^[a-z]*[0-9]$",
                            // `.` over long subjects (read eight bytes at a time).
                            "^.+$", "^.{2,20}$"};
  const char* subjects[] = {"", "a", "ab", "abc", "x-y", "@x", "A0F", "a b", "a\nb", "\n", "default", "mytype",
                            "12", "1234567", "a*b", "_x", "-x", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "a|b#c",
                            "a1", "1a", "#a0B1c2", "#a0B1c", "#a0B1c2d", "cols_12", "cols_", "cols_1x", ":80", ":", "9",
                            "09", "ab1", "ab1x", "Ab:x-y", "a_", "ab_-", "ab_-c", "a\nc", "a.c", "Ab:x y",
                            "{{a.b-c}}", "{{a}}", "{{}}", "{{.a}}", "{a}", "{{a}", "12px", "px", "a12px", "abc.json",
                            ".json", "abc.jsonx", "xon", "abon", "ab1on", "x", "ax", "abx", "b", "aab", "xab", "abc1", "1", "a12",
                            "abcdefghij", "abcdefgh\nij", "abcdefghijklmnop\r", "0123456789abcdef0123",
                            "0123456789abcdef01234", "abcdefgh\tij", "\rbcdefghijklmnopq", "abcdefg\n"};
  expect_agreement(patterns, subjects, Undecided::Never);
}

// On non-ASCII subjects a simple form either agrees with the engine or
// leaves the decision to it (-1).
TEST(SimplePattern, NonAsciiSubjectsAgreeOrAreLeftToTheEngine) {
  const char* patterns[] = {"^[a-z]*$", "^[^/]*$", "^[^/]{1,2}$", ".+", ".", "^x-", "type$", "default", "^.{1,3}$",
                            "[0-9]{2,}$", "^[^\\W]", "^[@$_#]", "[a-z]{2}", "^\\d+$", "^[a-z][a-z0-9]*$",
                            "^#[^/]{2}$", "^[^/][a-z]", "^[^/]+\\.json$", "[^/]x$", "^.+$"};
  const char* subjects[] = {"\u00e9", "a\u00e9", "\u00e9a", "x-\u00e9", "\u00e9x-", "\u00e9\u00e9\u00e9",
                            "\u65e5\u672c", "ab\u00e9", "\u00e9ab", "12\u00e9", "\u00e912",
                            "default\u00e9", "\u00e9type", "type\u00e9", "/\u00e9", "\u00e9/", "#\u00e9\u00e9", "#a\u00e9",
                            "a\u00e9b", "\u00e9.json", "a.json\u00e9", "\u00e9x", "x\u00e9", "abcdefgh\u00e9ij",
                            "\u00e9bcdefgh\nij", "abcdefghijklmno\u00e9\r"};
  expect_agreement(patterns, subjects, Undecided::Allowed);
}

TEST(SimplePattern, LeavesTheRestToTheEngine) {
  for (const char* p : {"a|b", "(a)(b)", "^(?:x)$", "\\p{L}", "[[]", "a+?", "ab+c", "^é$", "\\u0041", "a[0-9]b", "^a+b", "^a*b?$", "a+b?$"}) {
    EXPECT_FALSE(parse_simple_pattern(p).has_value()) << p;
  }
  EXPECT_EQ(-1, match_simple_pattern(*parse_simple_pattern(".+"), "é"));
}

}  // namespace
}  // namespace weld::schema
