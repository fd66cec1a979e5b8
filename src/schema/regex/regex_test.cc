#include "weld/schema/regex.h"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "weld/json/parse.h"

namespace weld::schema {
namespace {

using Match = Regex::Match;

Match search(std::string_view pattern, std::string_view subject) {
  Result<Regex> re = Regex::compile(pattern);
  EXPECT_TRUE(re.ok()) << pattern << ": " << (re.ok() ? "" : re.error().message);
  if (!re) return Match::No;
  return re->search(subject);
}

bool matches(std::string_view pattern, std::string_view subject) { return search(pattern, subject) == Match::Yes; }

std::string compile_error(std::string_view pattern) {
  Result<Regex> re = Regex::compile(pattern);
  return re.ok() ? std::string("<compiled>") : re.error().message;
}

TEST(Regex, LiteralsAndAnchors) {
  EXPECT_TRUE(matches("abc", "xxabcxx"));
  EXPECT_FALSE(matches("^abc$", "abc\n"));  // $ is end of input, not before a final newline
  EXPECT_TRUE(matches("^abc$", "abc"));
  EXPECT_FALSE(matches("^abc", "\nabc"));  // not multiline
  EXPECT_TRUE(matches("a.c", "a-c"));
  EXPECT_TRUE(matches("", "anything"));
  EXPECT_TRUE(matches("a|", "zzz"));
}

TEST(Regex, DotExcludesLineTerminatorsOnly) {
  EXPECT_FALSE(matches("^.$", "\n"));
  EXPECT_FALSE(matches("^.$", "\r"));
  EXPECT_FALSE(matches("^.$", "\u2028"));
  EXPECT_FALSE(matches("^.$", "\u2029"));
  EXPECT_TRUE(matches("^.$", "\t"));
  EXPECT_TRUE(matches("^.$", "\u0085"));
  EXPECT_TRUE(matches("^.$", "\xF0\x9F\x90\xB2"));  // one astral code point, not two units
  EXPECT_FALSE(matches("^..$", "\xF0\x9F\x90\xB2"));
}

TEST(Regex, ClassEscapesHaveEcmascriptMeanings) {
  EXPECT_TRUE(matches("^\\d$", "7"));
  EXPECT_FALSE(matches("^\\d$", "\u07C0"));  // NKO DIGIT ZERO
  EXPECT_TRUE(matches("^\\D$", "\u07C0"));
  EXPECT_TRUE(matches("^\\w+$", "az_AZ09"));
  EXPECT_FALSE(matches("^\\w$", "\u00E9"));
  EXPECT_TRUE(matches("^\\W$", "\u00E9"));
  for (const char* space : {" ", "\t", "\v", "\f", "\n", "\r", "\u00A0", "\uFEFF", "\u2003", "\u2028", "\u3000"}) {
    EXPECT_TRUE(matches("^\\s$", space)) << space;
    EXPECT_FALSE(matches("^\\S$", space)) << space;
  }
  EXPECT_FALSE(matches("^\\s$", "\x01"));
  EXPECT_FALSE(matches("^\\s$", "\u0085"));  // NEL is not ECMAScript white space
  EXPECT_TRUE(matches("^\\S$", "\u2013"));
  EXPECT_TRUE(matches("^[\\S]$", "x"));
  EXPECT_FALSE(matches("^[\\S]$", " "));
  EXPECT_TRUE(matches("^[^\\s\\d]$", "x"));
  EXPECT_FALSE(matches("^[^\\s\\d]$", "5"));
  EXPECT_TRUE(matches("^[\\w-]+$", "a-b_c"));
}

TEST(Regex, WordBoundaryIsAscii) {
  EXPECT_TRUE(matches("\\bcat\\b", "a cat here"));
  EXPECT_FALSE(matches("\\bcat\\b", "concat"));
  EXPECT_TRUE(matches("\\Bcat", "concat"));
  EXPECT_TRUE(matches("\\bcat", "\u00E9cat"));  // é is not a word character
}

TEST(Regex, Escapes) {
  EXPECT_TRUE(matches("^\\t$", "\t"));
  EXPECT_FALSE(matches("^\\t$", "\\t"));
  EXPECT_TRUE(matches("^\\cC$", "\x03"));
  EXPECT_TRUE(matches("^\\cc$", "\x03"));
  EXPECT_TRUE(matches("^\\x41\\u0042\\u{43}$", "ABC"));
  EXPECT_TRUE(matches("^\\u{1F432}$", "\xF0\x9F\x90\xB2"));
  EXPECT_TRUE(matches("^\\ud83d\\udc32$", "\xF0\x9F\x90\xB2"));  // surrogate pair joins
  EXPECT_TRUE(matches("^\\0$", std::string_view("\0", 1)));
  EXPECT_TRUE(matches("^\\/\\.\\*\\+\\?\\(\\)\\[\\]\\{\\}\\|\\^\\$\\\\$", "/.*+?()[]{}|^$\\"));
  EXPECT_TRUE(matches("^[\\b]$", "\b"));
  EXPECT_TRUE(matches("^[\\-]$", "-"));
  EXPECT_FALSE(matches("^\\ud800$", "x"));  // a lone surrogate matches nothing in UTF-8 text
}

TEST(Regex, CharacterClasses) {
  EXPECT_TRUE(matches("^[a-c]+$", "abcba"));
  EXPECT_FALSE(matches("^[a-c]+$", "abd"));
  EXPECT_TRUE(matches("^[^a-c]$", "d"));
  EXPECT_FALSE(matches("[]", "a"));
  EXPECT_FALSE(matches("[]", ""));
  EXPECT_TRUE(matches("^[^]$", "\n"));
  EXPECT_TRUE(matches("^[a-]$", "-"));
  EXPECT_TRUE(matches("^[-a]$", "-"));
  EXPECT_TRUE(matches("^[a-b-c]+$", "a-c"));
  EXPECT_TRUE(matches("^[--a]$", "A"));
  EXPECT_TRUE(matches("^[.]$", "."));
  EXPECT_FALSE(matches("^[.]$", "x"));
  EXPECT_TRUE(matches("^[\\u00e0-\\u00ff]$", "\u00E9"));
  EXPECT_TRUE(matches("^[\\u{1F400}-\\u{1F4FF}]$", "\xF0\x9F\x90\xB2"));
  EXPECT_TRUE(matches("^[$^]+$", "$^"));
}

TEST(Regex, GroupsAndQuantifiers) {
  EXPECT_TRUE(matches("^(ab)+$", "ababab"));
  EXPECT_TRUE(matches("^(?:ab){2}$", "abab"));
  EXPECT_FALSE(matches("^(?:ab){2}$", "ababab"));
  EXPECT_TRUE(matches("^a{2,}$", "aaaa"));
  EXPECT_TRUE(matches("^a{1,3}?$", "aaa"));
  EXPECT_TRUE(matches("^(?<year>\\d{4})-(?<month>\\d{2})$", "2024-05"));
  EXPECT_TRUE(matches("^a{0}$", ""));
  EXPECT_TRUE(matches("^x{1001}$", std::string(1001, 'x')));  // beyond RE2's 1000: bounded engine
  EXPECT_FALSE(matches("^x{1001}$", std::string(1000, 'x')));
}

TEST(Regex, UnicodeProperties) {
  EXPECT_TRUE(matches("^\\p{L}+$", "\u00E9cole"));
  EXPECT_TRUE(matches("^\\p{Letter}+$", "abc"));
  EXPECT_FALSE(matches("^\\p{Lu}$", "a"));
  EXPECT_TRUE(matches("^\\P{Lu}$", "a"));
  EXPECT_TRUE(matches("^\\p{Script=Greek}+$", "\u03B1\u03B2"));
  EXPECT_TRUE(matches("^\\p{sc=Grek}$", "\u03B1"));
  EXPECT_FALSE(matches("^\\p{Script=Greek}$", "a"));
  EXPECT_TRUE(matches("^\\p{General_Category=Decimal_Number}+$", "\u09EA\u09E8"));
  EXPECT_TRUE(matches("^\\p{Nd}+$", "42"));
  EXPECT_TRUE(matches("^[\\p{L}\\d]+$", "a1\u00E9"));
  EXPECT_FALSE(matches("^[^\\p{L}]$", "a"));
  EXPECT_TRUE(matches("^\\p{ASCII}+$", "hello"));
  EXPECT_FALSE(matches("^\\p{ASCII}$", "\u00E9"));
  EXPECT_TRUE(matches("^\\P{ASCII}$", "\u00E9"));
  EXPECT_TRUE(matches("^\\p{Any}$", "\n"));
  EXPECT_TRUE(matches("^\\p{Lowercase}$", "a"));  // binary property via PCRE2
  EXPECT_FALSE(matches("^\\p{Uppercase}$", "a"));
  EXPECT_TRUE(matches("^\\p{LC}$", "a"));
  EXPECT_TRUE(matches("^\\p{Script_Extensions=Latin}$", "a"));
}

TEST(Regex, LookaroundAndBackreferencesUseBoundedEngine) {
  Result<Regex> re = Regex::compile("^(?!foo)\\w+$");
  ASSERT_TRUE(re.ok());
  EXPECT_TRUE(re->is_bounded());
  EXPECT_EQ(re->search("bar"), Match::Yes);
  EXPECT_EQ(re->search("foobar"), Match::No);
  EXPECT_TRUE(matches("^(a)\\1$", "aa"));
  EXPECT_FALSE(matches("^(a)\\1$", "ab"));
  EXPECT_TRUE(matches("^(?<n>a)\\k<n>$", "aa"));
  EXPECT_TRUE(matches("^\\k<n>(?<n>a)$", "a"));  // forward reference matches empty
  EXPECT_TRUE(matches("^\\1(a)$", "a"));
  EXPECT_TRUE(matches("^(a)|\\1b$", "b"));  // unset group matches empty, as in ECMAScript
  EXPECT_TRUE(matches("(?<=\\$)\\d+", "$42"));
  EXPECT_FALSE(matches("(?<!\\$)\\b\\d+", "$42"));
  EXPECT_TRUE(matches("(?<=a|bc)d", "bcd"));
  EXPECT_FALSE(Regex::compile("^abc$")->is_bounded());
}

TEST(Regex, CatastrophicPatternIsLinear) {
  std::string subject(100000, 'a');
  auto start = std::chrono::steady_clock::now();
  Result<Regex> re = Regex::compile("(a+)+b");
  ASSERT_TRUE(re.ok());
  EXPECT_FALSE(re->is_bounded());
  EXPECT_EQ(re->search(subject), Match::No);
  EXPECT_EQ(re->search(subject + "b"), Match::Yes);
  auto elapsed = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::cout << "(a+)+b on 100,000 'a's: compile + 2 searches in " << elapsed << " ms\n";
}

TEST(Regex, BoundedEngineReportsBudgetExceeded) {
  // Back-reference forces PCRE2; nested quantifiers make it exponential.
  Result<Regex> re = Regex::compile("^(a|a)+\\1?$");
  ASSERT_TRUE(re.ok());
  ASSERT_TRUE(re->is_bounded());
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(re->search(std::string(40, 'a') + "b"), Match::BudgetExceeded);
  auto elapsed = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::cout << "budget exceeded after " << elapsed << " ms\n";
  EXPECT_EQ(re->search("aaaa"), Match::Yes);
}

TEST(Regex, InvalidPatternsNameWhy) {
  EXPECT_EQ(compile_error("(?i)abc"), "Invalid regular expression: /(?i)abc/u: Invalid group");
  EXPECT_EQ(compile_error("a**"), "Invalid regular expression: /a**/u: Nothing to repeat");
  EXPECT_EQ(compile_error("(abc"), "Invalid regular expression: /(abc/u: Unterminated group");
  EXPECT_EQ(compile_error("abc)"), "Invalid regular expression: /abc)/u: Unmatched ')'");
  EXPECT_EQ(compile_error("[abc"), "Invalid regular expression: /[abc/u: Unterminated character class");
  EXPECT_EQ(compile_error("[z-a]"), "Invalid regular expression: /[z-a]/u: Range out of order in character class");
  EXPECT_EQ(compile_error("\\a"), "Invalid regular expression: /\\a/u: Invalid escape");
  EXPECT_EQ(compile_error("\\p{Foo}"), "Invalid regular expression: /\\p{Foo}/u: Invalid property name");
  EXPECT_EQ(compile_error("a{2,1}"), "Invalid regular expression: /a{2,1}/u: numbers out of order in {} quantifier");
  for (const char* bad : {"(?P<name>x)", "(?P<n>a)(?P=n)", "(?#comment)a", "(?ims)abc", "*a", "a{", "a}", "]",
                          "{1}", "\\1", "(a)\\2", "\\k<x>", "(?<a>x)(?<a>y)", "[\\d-z]", "[a-\\w]", "\\c1",
                          "\\x4", "\\u12", "\\u{110000}", "\\01", "(?=a)*", "^*", "\\", "[\\B]", "(?<1a>x)",
                          "\\e", "[\\1]", "\\p{Script=}", "\\pL"}) {
    EXPECT_FALSE(Regex::compile(bad).ok()) << bad;
    EXPECT_FALSE(Regex::check_syntax(bad).ok()) << bad;
  }
}

TEST(Regex, PunctuationIdentityEscapesAreAccepted) {
  // Invalid under ECMAScript's u flag, but common in real schemas (krakend).
  EXPECT_TRUE(matches("^\\/[^\\*\\?\\&\\%]*$", "/ab"));
  EXPECT_FALSE(matches("^\\/[^\\*\\?\\&\\%]*$", "/a&b"));
  EXPECT_FALSE(matches("^\\/[^\\*\\?\\&\\%]*$", "/a%b"));
  EXPECT_TRUE(matches("^a\\-b\\@c\\#$", "a-b@c#"));
  EXPECT_TRUE(matches("^\\_$", "_"));
  EXPECT_FALSE(Regex::compile("\\q").ok());
}

TEST(Regex, ValidSyntaxThatPcre2CannotRun) {
  EXPECT_TRUE(Regex::check_syntax("(?<=a+)b").ok());
  Result<Regex> re = Regex::compile("(?<=a+)b");
  ASSERT_FALSE(re.ok());
  EXPECT_EQ(re.error().message,
            "Unsupported regular expression: /(?<=a+)b/u: look-behind of variable length is not supported");
}

TEST(Regex, PatternMustBeUtf8) {
  EXPECT_FALSE(Regex::compile("\xFF").ok());
  EXPECT_TRUE(matches("\xEF\xBF\xBD", "\xEF\xBF\xBD"));  // a literal U+FFFD is fine
}

TEST(Regex, DeepNestingIsAnErrorNotACrash) {
  std::string deep(100000, '(');
  EXPECT_FALSE(Regex::compile(deep).ok());
  std::string balanced = std::string(200, '(') + "a" + std::string(200, ')');
  EXPECT_TRUE(matches(balanced, "a"));
}

TEST(Regex, MovedRegexStillWorks) {
  Result<Regex> re = Regex::compile("^x+$");
  ASSERT_TRUE(re.ok());
  Regex moved = std::move(*re);
  EXPECT_EQ(moved.search("xxx"), Match::Yes);
  EXPECT_EQ(moved.pattern(), "^x+$");
}

// The JSON-Schema-Test-Suite's ECMAScript regex files, applied to patterns
// directly: `pattern` tests search the string, `patternProperties` tests
// search each key, `format: regex` tests check the syntax.
void run_suite_file(const std::string& path, int& checked) {
  std::ifstream in(path);
  ASSERT_TRUE(in) << path;
  std::stringstream buffer;
  buffer << in.rdbuf();
  Result<json::Value> doc = json::parse(buffer.str());
  ASSERT_TRUE(doc.ok()) << path;
  for (const json::Value& group : doc->as_array()) {
    const json::Value& schema = *group.find("schema");
    std::string description = group.find("description")->as_string();
    for (const json::Value& test : group.find("tests")->as_array()) {
      const json::Value& data = *test.find("data");
      bool valid = test.find("valid")->as_bool();
      std::string where = description + " / " + test.find("description")->as_string();
      if (const json::Value* pattern = schema.find("pattern")) {
        if (!data.is_string()) continue;
        EXPECT_EQ(matches(pattern->as_string(), data.as_string()), valid) << where;
        ++checked;
      } else if (const json::Value* properties = schema.find("patternProperties")) {
        if (!data.is_object()) continue;
        const json::Member& entry = properties->as_object().front();
        bool all_ok = true;
        for (const json::Member& member : data.as_object()) {
          if (!matches(entry.key, member.key)) {
            // unmatched keys: valid only when additionalProperties allows them
            if (schema.find("additionalProperties")) all_ok = false;
          } else if (entry.value.is_object() && !member.value.is_number()) {
            all_ok = false;  // the suite's only object sub-schema is {"type":"integer"}
          }
        }
        EXPECT_EQ(all_ok, valid) << where;
        ++checked;
      } else if (const json::Value* format = schema.find("format"); format && format->as_string() == "regex") {
        if (!data.is_string()) continue;
        EXPECT_EQ(Regex::check_syntax(data.as_string()).ok(), valid) << where;
        ++checked;
      }
    }
  }
}

TEST(Regex, JsonSchemaTestSuiteEcmascriptCases) {
  std::string base = std::string(WELD_TEST_SUITE_DIR) + "/tests/draft2020-12/optional/";
  int checked = 0;
  run_suite_file(base + "ecmascript-regex.json", checked);
  run_suite_file(base + "format/ecmascript-regex.json", checked);
  run_suite_file(base + "non-bmp-regex.json", checked);
  run_suite_file(base + "format/regex.json", checked);
  EXPECT_GT(checked, 80);
}

}  // namespace
}  // namespace weld::schema
