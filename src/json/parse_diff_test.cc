// Differential tests: the fast parser and serializer (docs/bench-json.md)
// against the frozen pre-speed-work implementation in reference_json.h, over
// every JSON file of the JSON-Schema-Test-Suite and of the benchmark corpus
// (when present: tests/support/benchmark_corpus.h), every prefix and many one-byte
// corruptions of representative documents, and strings of every length with
// every byte to escape at every position. Same values (types, key order,
// exact doubles), same bytes out, same error messages and positions.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "benchmark_corpus.h"
#include "reference_json.h"
#include "weld/json/parse.h"
#include "weld/json/serialize.h"
#include "weld/json/utf8.h"

namespace weld::json {
namespace {

namespace fs = std::filesystem;


// Empty when both implementations agree on `text`, else what differs.
std::string compare(std::string_view text, const ParseOptions& options = {}) {
  auto fast = parse(text, options);
  auto slow = reference::parse(text, options);
  if (fast.ok() != slow.ok()) {
    return std::string("fast ") + (fast ? "parsed" : "failed: " + fast.error().message) + ", reference " +
           (slow ? "parsed" : "failed: " + slow.error().message);
  }
  if (!fast) {
    if (fast.error().code != slow.error().code || fast.error().message != slow.error().message ||
        fast.error().where != slow.error().where) {
      return "error: fast '" + fast.error().message + " at " + fast.error().where + "', reference '" +
             slow.error().message + " at " + slow.error().where + "'";
    }
    return "";
  }
  if (!reference::same_exact(*fast, *slow)) return "values differ";
  if (serialize(*fast) != reference::serialize(*slow)) return "compact output differs";
  if (serialize(*fast, {.indent = 2}) != reference::serialize(*slow, {.indent = 2})) return "pretty output differs";
  return "";
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Counts {
  std::size_t files = 0, documents = 0;
};

// Compares every .json file under `root` and every line of its .jsonl files.
Counts compare_tree(const fs::path& root) {
  Counts counts;
  auto& [files, documents] = counts;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    const fs::path& path = entry.path();
    if (!entry.is_regular_file()) continue;
    if (path.extension() == ".json") {
      ++files;
      ++documents;
      std::string text = read_file(path);
      EXPECT_EQ("", compare(text)) << path;
    } else if (path.extension() == ".jsonl") {
      ++files;
      std::istringstream lines(read_file(path));
      for (std::string line; std::getline(lines, line);) {
        ++documents;
        EXPECT_EQ("", compare(line)) << path << ": " << line.substr(0, 200);
      }
    }
  }
  return counts;
}

TEST(ParseDiff, EveryJsonFileOfTheTestSuite) {
  const fs::path root(WELD_TEST_SUITE_DIR);
  ASSERT_TRUE(fs::is_directory(root)) << root;
  Counts counts = compare_tree(root);
  EXPECT_GT(counts.files, 500u);
}

TEST(ParseDiff, EveryDocumentOfTheBenchmarkCorpus) {
  std::string absent;
  if (!weld::test_support::benchmark_corpus_present(&absent)) GTEST_SKIP() << absent;
  Counts counts = compare_tree(weld::test_support::benchmark_corpus_dir());
  EXPECT_GT(counts.files, 60u);
  EXPECT_GT(counts.documents, 30000u);
}

const char* const kSamples[] = {
    R"({"id":"chatcmpl-bench","object":"chat.completion","created":1700000000,"model":"bench","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"router","arguments":"{\"action\":\"refund\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":12,"completion_tokens":8,"total_tokens":20}})",
    "{ \"a\" : [ 1 , -2.5e-3 , true , false , null , \"x\\u00e9\\ud83d\\ude00\\n\" ] ,\n\t\"b\" : { } , \"c\" : [ ] , \"a\" : 0 }",
    "[\"Zo\xc3\xab \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80 long enough to need several words\", -0, 0.0, 1E+2, 123456789012345678901234567890]",
};

TEST(ParseDiff, EveryPrefixAndOneByteCorruption) {
  const char kBytes[] = {'"', '\\', '{', '}', '[', ']', ',', ':', '0', '-', 'e', '.', 'x', ' ', '\n', '\x01',
                         '\x7f', '\x80', '\xc3', '\xed', '\xf0', '\xff', 'u', 'n', 't'};
  for (const char* sample : kSamples) {
    const std::string text = sample;
    ASSERT_EQ("", compare(text));
    for (std::size_t n = 0; n <= text.size(); ++n) EXPECT_EQ("", compare(text.substr(0, n))) << "prefix " << n;
    for (std::size_t i = 0; i < text.size(); ++i) {
      for (char b : kBytes) {
        std::string corrupt = text;
        corrupt[i] = b;
        EXPECT_EQ("", compare(corrupt)) << "byte " << i << " -> " << int(static_cast<unsigned char>(b));
      }
    }
  }
}

TEST(ParseDiff, StringsWithASpecialByteAtEveryPosition) {
  // Every length up to 56 (runs shorter and longer than the 8- and 16-byte
  // scans, and several blocks), with one byte of each class at every
  // position, as a JSON string literal (raw and escaped), through
  // write_string, and as a Value whose string has spare capacity (the
  // serializer scans past size() inside the capacity and masks it off).
  const std::string specials[] = {"\"", "\\", "\\n", "\\u0041", "\\ud83d\\ude00", std::string(1, '\x00'), "\x1f",
                                  "\x7f", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xc3", "\xed\xa0\x80",
                                  "\xff", "/", "\\/", "\\x"};
  for (std::size_t length = 0; length <= 56; ++length) {
    for (std::size_t at = 0; at <= length; ++at) {
      for (const std::string& special : specials) {
        std::string body(length, 'a');
        body.insert(at, special);
        std::string literal = "\"" + body + "\"";
        EXPECT_EQ("", compare(literal)) << literal;
        EXPECT_EQ("", compare("[" + literal + "," + literal + "]")) << literal;
        std::string fast = "prefix";
        std::string slow = "prefix";
        write_string(fast, body);
        reference::write_string(slow, body);
        EXPECT_EQ(slow, fast) << body;
        if (!is_valid_utf8(body)) continue;  // a Value's strings are valid UTF-8
        std::string expected;
        reference::write_string(expected, body);
        for (std::size_t spare : {0, 1, 7, 8, 15, 16, 31}) {
          std::string text;
          text.reserve(body.size() + spare);
          text.assign(body);
          // Bytes to escape past the terminator (itself one), up to the capacity.
          std::memset(text.data() + text.size() + 1, '"', text.capacity() - text.size());
          EXPECT_EQ(expected, serialize(Value(std::move(text)))) << body << " spare " << spare;
        }
      }
    }
  }
}

TEST(ParseDiff, DepthLimits) {
  for (int max_depth : {1, 2, 3, 16}) {
    for (int depth = 0; depth <= max_depth + 2; ++depth) {
      std::string arrays = std::string(static_cast<std::size_t>(depth), '[') + std::string(static_cast<std::size_t>(depth), ']');
      std::string objects;
      for (int i = 0; i < depth; ++i) objects += "{\"k\":";
      objects += "1";
      objects += std::string(static_cast<std::size_t>(depth), '}');
      EXPECT_EQ("", compare(arrays, {.max_depth = max_depth})) << arrays;
      EXPECT_EQ("", compare(objects, {.max_depth = max_depth})) << objects;
    }
  }
}

TEST(ParseDiff, LargeObjectsWithDuplicates) {
  for (int members : {15, 16, 17, 40, 300}) {
    std::string text = "{";
    for (int i = 0; i < members; ++i) text += "\"k" + std::to_string(i % 37) + "\":" + std::to_string(i) + ",";
    text += "\"k0\":{\"k1\":[1,{\"k1\":2,\"k1\":3}]}}";
    EXPECT_EQ("", compare(text)) << members;
  }
}

}  // namespace
}  // namespace weld::json
