#include "weld/schema/format.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "checks.h"
#include "weld/json/parse.h"

namespace weld::schema {
namespace {

TEST(Format, UnknownFormatsPass) {
  EXPECT_FALSE(is_known_format("color"));
  EXPECT_TRUE(check_format("color", "not a color at all"));
  EXPECT_TRUE(is_known_format("date-time"));
  EXPECT_TRUE(is_known_format("regex"));
}

TEST(Format, DateTime) {
  EXPECT_TRUE(check_format("date-time", "2024-02-29T12:00:00Z"));
  EXPECT_FALSE(check_format("date-time", "2023-02-29T12:00:00Z"));
  EXPECT_TRUE(check_format("date-time", "1998-12-31T23:59:60Z"));
  EXPECT_FALSE(check_format("date-time", "1998-12-31T23:59:60"));
  EXPECT_FALSE(check_format("date-time", "1998-12-31 23:59:59Z"));
  EXPECT_TRUE(check_format("time", "01:29:60+01:30"));
  EXPECT_FALSE(check_format("time", "12:00:00"));
}

TEST(Format, Duration) {
  EXPECT_TRUE(check_format("duration", "P1Y2M3DT4H5M6S"));
  EXPECT_TRUE(check_format("duration", "P2W"));
  EXPECT_FALSE(check_format("duration", "P1Y2W"));
  EXPECT_FALSE(check_format("duration", "PT"));
  EXPECT_FALSE(check_format("duration", "P1Y2D"));
}

TEST(Format, Punycode) {
  std::u32string decoded;
  ASSERT_TRUE(format_detail::punycode_decode("ihqwcrb4cv8a8dqg056pqjye", decoded));
  EXPECT_EQ(format_detail::punycode_encode(decoded), "ihqwcrb4cv8a8dqg056pqjye");
  EXPECT_FALSE(format_detail::punycode_decode("X", decoded));
  EXPECT_EQ(format_detail::punycode_encode(format_detail::to_code_points("b\xC3\xBC" "cher")), "bcher-kva");
}

TEST(Format, HostnamesAndEmails) {
  EXPECT_TRUE(check_format("hostname", "Example.COM"));
  EXPECT_FALSE(check_format("hostname", "ex ample.com"));
  EXPECT_TRUE(check_format("idn-hostname", "b\xC3\xBC" "cher.example"));
  EXPECT_TRUE(check_format("email", "a.b+c@example.com"));
  EXPECT_FALSE(check_format("email", "a..b@example.com"));
  EXPECT_TRUE(check_format("idn-email", "\xC3\xBC@b\xC3\xBC" "cher.example"));
}

TEST(Format, LongInputIsRefusedQuickly) {
  std::string long_label;
  for (int i = 0; i < 20000; ++i) long_label += "\xC3\xA9";  // é
  EXPECT_FALSE(check_format("idn-hostname", long_label));
  EXPECT_FALSE(check_format("idn-email", "a@" + long_label));
  EXPECT_FALSE(check_format("hostname", std::string(100000, 'a')));
  EXPECT_TRUE(check_format("uri", "http://example.com/" + std::string(100000, 'a')));
}

TEST(Format, Uris) {
  EXPECT_TRUE(check_format("uri", "https://user@example.com:8080/a/b?c=d#e"));
  EXPECT_FALSE(check_format("uri", "/relative"));
  EXPECT_TRUE(check_format("uri-reference", "../a?b#c"));
  EXPECT_TRUE(check_format("iri", "http://\xC3\xA9.example/\xC3\xA9"));
  EXPECT_FALSE(check_format("uri", "http://\xC3\xA9.example/"));
  EXPECT_TRUE(check_format("uri-template", "/users/{id}{?fields*}"));
  EXPECT_FALSE(check_format("uri-template", "/users/{id"));
}

TEST(Format, Regex) {
  EXPECT_TRUE(check_format("regex", "^[a-z]+$"));
  EXPECT_FALSE(check_format("regex", "^[a-z+$"));
}

// optional/format/*.json of the JSON-Schema-Test-Suite: every string test
// checked against check_format (non-strings always pass `format`).
struct SuiteCount {
  int checked = 0;
  int failed = 0;
};

void run_format_file(const std::filesystem::path& path, SuiteCount& count) {
  std::ifstream in(path);
  ASSERT_TRUE(in) << path;
  std::stringstream buffer;
  buffer << in.rdbuf();
  Result<json::Value> doc = json::parse(buffer.str());
  ASSERT_TRUE(doc.ok()) << path;
  for (const json::Value& group : doc->as_array()) {
    const json::Value* format = group.find("schema")->find("format");
    if (format == nullptr || !format->is_string()) continue;
    for (const json::Value& test : group.find("tests")->as_array()) {
      const json::Value& data = *test.find("data");
      if (!data.is_string()) continue;
      bool expected = test.find("valid")->as_bool();
      bool actual = check_format(format->as_string(), data.as_string());
      ++count.checked;
      if (actual != expected) ++count.failed;
      EXPECT_EQ(actual, expected) << path.filename().string() << ": " << group.find("description")->as_string()
                                  << " / " << test.find("description")->as_string() << " data "
                                  << data.as_string();
    }
  }
}

void run_dialect(const std::string& dialect) {
  std::filesystem::path dir =
      std::filesystem::path(WELD_TEST_SUITE_DIR) / "tests" / dialect / "optional/format";
  ASSERT_TRUE(std::filesystem::is_directory(dir)) << dir;
  SuiteCount count;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".json") run_format_file(entry.path(), count);
  }
  EXPECT_GT(count.checked, 300);
  std::cout << dialect << ": " << count.checked - count.failed << "/" << count.checked << " format tests pass\n";
}

TEST(FormatId, HostnameFollowsTheDialect) {
  // RFC 1123 (draft-04/06) allows "--" anywhere inside a label; draft-07+
  // reserves it at positions 3-4 (IDNA R-LDH labels) and decodes xn-- labels.
  FormatId legacy = *format_id("hostname", true);
  FormatId modern = *format_id("hostname", false);
  EXPECT_EQ(legacy, FormatId::HostnameRfc1123);
  EXPECT_EQ(modern, FormatId::Hostname);
  EXPECT_TRUE(check_format(legacy, "ab--cd.example"));
  EXPECT_FALSE(check_format(modern, "ab--cd.example"));
  EXPECT_TRUE(check_format(modern, "a--b.com"));
  EXPECT_FALSE(check_format(legacy, "-a.example"));
  EXPECT_FALSE(check_format(legacy, "a.example-"));
  EXPECT_FALSE(check_format(legacy, "a..example"));
  EXPECT_FALSE(check_format(legacy, "host_name"));
  EXPECT_FALSE(check_format(legacy, std::string(64, 'a')));
  EXPECT_TRUE(check_format(legacy, std::string(63, 'a')));
  EXPECT_FALSE(check_format(legacy, ""));
  EXPECT_EQ(format_id("idn-hostname", true), FormatId::IdnHostname);
  EXPECT_FALSE(format_id("no-such-format", false).has_value());
  EXPECT_TRUE(check_format("no-such-format", "anything"));
}

TEST(FormatSuite, Draft2020_12) { run_dialect("draft2020-12"); }
TEST(FormatSuite, Draft2019_09) { run_dialect("draft2019-09"); }
TEST(FormatSuite, Draft7) { run_dialect("draft7"); }

}  // namespace
}  // namespace weld::schema
