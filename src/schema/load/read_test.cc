// docs/schema.md, "Reading --json-schema VALUE", steps 1-4: every rule and message.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "weld/schema/load.h"

namespace weld::schema {
namespace {

class ReadSchemaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/weld_load_test_XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  std::string write(const std::string& name, const std::string& content) {
    std::string path = dir_ + "/" + name;
    std::ofstream(path, std::ios::binary) << content;
    return path;
  }
  std::string message(std::string_view value, const std::string& cwd = {}) {
    Result<json::Value> r = read_schema_argument(value, "--json-schema", cwd);
    return r.ok() ? std::string("<ok>") : r.error().message;
  }
  std::string dir_;
};

TEST_F(ReadSchemaTest, WithoutAFlagMessagesSaySchema) {
  // A program using the library gets no CLI flag name in its messages.
  Result<json::Value> r = read_schema_argument("{\"type\": }");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "schema is not valid JSON: unexpected character '}' at line 1 column 10");
}

TEST_F(ReadSchemaTest, InlineObjectIsRead) {
  Result<json::Value> r = read_schema_argument("  {\"type\":\"object\"}\n");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->find("type")->as_string(), "object");
}

TEST_F(ReadSchemaTest, EmptyAfterTrim) {
  EXPECT_EQ(message(""), "--json-schema cannot be empty.");
  EXPECT_EQ(message(" \t\n "), "--json-schema cannot be empty.");
}

TEST_F(ReadSchemaTest, FlagNameIsUsed) {
  Result<json::Value> r = read_schema_argument("", "--output-schema");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "--output-schema cannot be empty.");
  EXPECT_EQ(r.error().code, ErrorCode::Config);
}

TEST_F(ReadSchemaTest, InlineParseErrorHasParserDetail) {
  EXPECT_EQ(message("{\"type\": }"), "--json-schema is not valid JSON: unexpected character '}' at line 1 column 10");
}

TEST_F(ReadSchemaTest, NotAnObject) {
  for (const char* value : {"[]", "\"object\"", "42", "true", "null", "1.5"}) {
    EXPECT_EQ(message(value), "--json-schema must be a JSON object describing a schema.") << value;
  }
  std::string path = write("array.json", "[{\"type\":\"object\"}]");
  EXPECT_EQ(message("@" + path), "--json-schema must be a JSON object describing a schema.");
}

TEST_F(ReadSchemaTest, FileIsReadRelativeToCwd) {
  write("s.json", "{\"type\":\"object\"}");
  Result<json::Value> r = read_schema_argument("@s.json", "--json-schema", dir_);
  ASSERT_TRUE(r.ok()) << r.error().message;
  Result<json::Value> normalised = read_schema_argument("@./x/../s.json", "--json-schema", dir_);
  EXPECT_TRUE(normalised.ok());
}

TEST_F(ReadSchemaTest, TildeExpandsToHome) {
  write("home.json", "{}");
  std::string saved = std::getenv("HOME") ? std::getenv("HOME") : "";
  ::setenv("HOME", dir_.c_str(), 1);
  Result<json::Value> r = read_schema_argument("@~/home.json");
  std::string missing = message("@~/absent.json");
  ::setenv("HOME", saved.c_str(), 1);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(missing, "--json-schema could not read \"" + dir_ + "/absent.json\": No such file or directory");
}

TEST_F(ReadSchemaTest, MissingFileNamesAbsolutePath) {
  EXPECT_EQ(message("@nope.json", dir_),
            "--json-schema could not read \"" + dir_ + "/nope.json\": No such file or directory");
}

TEST_F(ReadSchemaTest, DirectoryIsRefusedWithoutBlocking) {
  std::filesystem::create_directory(dir_ + "/sub");
  EXPECT_EQ(message("@sub", dir_), "--json-schema \"@" + dir_ + "/sub\" must be a regular file.");
  EXPECT_EQ(message("@sub/", dir_), "--json-schema \"@" + dir_ + "/sub\" must be a regular file.");
}

TEST_F(ReadSchemaTest, FifoIsRefusedWithoutBlocking) {
  std::string fifo = dir_ + "/pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // Nobody writes to the FIFO: opening it for reading would block forever.
  EXPECT_EQ(message("@" + fifo), "--json-schema \"@" + fifo + "\" must be a regular file.");
}

TEST_F(ReadSchemaTest, DeviceIsRefused) {
  EXPECT_EQ(message("@/dev/null"), "--json-schema \"@/dev/null\" must be a regular file.");
}

std::string padded_object(std::size_t size) {
  // {"a":"xxxx…"} of exactly `size` bytes.
  std::string head = "{\"a\":\"";
  std::string tail = "\"}";
  return head + std::string(size - head.size() - tail.size(), 'x') + tail;
}

TEST_F(ReadSchemaTest, ExactlyFourMebibytesIsAccepted) {
  std::string path = write("big.json", padded_object(4194304));
  ASSERT_EQ(std::filesystem::file_size(path), 4194304u);
  Result<json::Value> r = read_schema_argument("@" + path);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->find("a")->as_string().size(), 4194304u - 8);  // minus {"a":"…"}
}

TEST_F(ReadSchemaTest, OneByteMoreIsRefused) {
  std::string path = write("bigger.json", padded_object(4194305));
  EXPECT_EQ(message("@" + path), "--json-schema file \"" + path +
                                     "\" is 4194305 bytes (>4194304). Refusing to read; this is almost certainly a "
                                     "wrong-path argument.");
}

TEST_F(ReadSchemaTest, UnreadableFile) {
  // /proc/self/mem is a regular file that fails to read at offset 0 (EIO),
  // even for root, so this runs everywhere.
  EXPECT_EQ(message("@/proc/self/mem"), "--json-schema could not read \"/proc/self/mem\": Input/output error");
}

TEST_F(ReadSchemaTest, PermissionDenied) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads files whatever their mode";
  std::string path = write("secret.json", "{}");
  ::chmod(path.c_str(), 0);
  EXPECT_EQ(message("@" + path), "--json-schema could not read \"" + path + "\": Permission denied");
}

TEST_F(ReadSchemaTest, FileParseErrorNeverShowsContent) {
  const std::string secret = "sk-ant-api03-SECRETSECRETSECRET";
  std::string path = write("key.txt", secret + "\n");
  Result<json::Value> r = read_schema_argument("@" + path, "--json-schema");
  ASSERT_FALSE(r.ok());
  // Where, never what: the character found is not quoted.
  EXPECT_EQ(r.error().message,
            "--json-schema content of \"" + path + "\" is not valid JSON: unexpected character at line 1 column 1.");
  EXPECT_EQ(r.error().message.find("sk-"), std::string::npos);
  EXPECT_EQ(r.error().where.find("sk-"), std::string::npos);
  // A secret after a valid prefix: the position only.
  std::string path2 = write("half.json", "{\"key\": \"" + secret + "\" oops}");
  Result<json::Value> r2 = read_schema_argument("@" + path2, "--json-schema");
  ASSERT_FALSE(r2.ok());
  EXPECT_EQ(r2.error().message,
            "--json-schema content of \"" + path2 + "\" is not valid JSON: expected ',' or '}' in object at line 1 column 43.");
  EXPECT_EQ(r2.error().message.find("oops"), std::string::npos);
}

TEST_F(ReadSchemaTest, a_file_nested_too_deep_says_why_and_where) {
  std::string path = write("deep.json", std::string(100000, '[') + std::string(100000, ']'));
  std::string got = message("@" + path);
  EXPECT_EQ(got.rfind("--json-schema content of \"" + path + "\" is not valid JSON: nesting deeper than ", 0), 0u) << got;
  EXPECT_NE(got.find(" levels at line 1 column "), std::string::npos) << got;
}

TEST_F(ReadSchemaTest, FileMustBeUtf8) {
  std::string path = write("latin1.json", "{\"a\":\"caf\xE9\"}");
  EXPECT_EQ(message("@" + path), "--json-schema content of \"" + path + "\" is not valid JSON.");
}

TEST_F(ReadSchemaTest, ByteOrderMarkIsAccepted) {
  std::string path = write("bom.json", "\xEF\xBB\xBF{\"type\":\"object\"}");
  EXPECT_EQ(message("@" + path), "<ok>");
}

TEST_F(ReadSchemaTest, EmptyFileIsNotJson) {
  std::string path = write("empty.json", "");
  EXPECT_EQ(message("@" + path),
            "--json-schema content of \"" + path + "\" is not valid JSON: unexpected end of input at line 1 column 1.");
}

}  // namespace
}  // namespace weld::schema
