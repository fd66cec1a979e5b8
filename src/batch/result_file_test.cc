#include "weld/batch/result_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "weld/batch/input.h"
#include "weld/batch/result_line.h"

namespace weld::batch {
namespace {

// The command line's names for the settings the messages name.
constexpr SettingNames kCliNames{.output = "-o", .output_format = "--output-format", .assign = " "};

class ResultFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/weld-batch-test-XXXXXX";
    dir_ = ::mkdtemp(pattern);
    path_ = dir_ + "/out.jsonl";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void write_file(const std::string& text, const std::string& path = "") {
    std::ofstream(path.empty() ? path_ : path, std::ios::binary) << text;
  }
  std::string read_file(const std::string& path = "") {
    std::ifstream in(path.empty() ? path_ : path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  // An errored line for row `id` (an input error, so no run is needed).
  static std::string line(const std::string& id, OutputFormat format = OutputFormat::Weld) {
    Row row;
    row.id = id;
    row.line = 1;
    return input_error_line(format, row, InputErrorKind::InvalidLine, "x");
  }
  static std::string ok_line(const std::string& id) {
    return R"({"custom_id":")" + id + R"(","line":1,"status":"succeeded","structured_result":{},"attempts":1})" "\n";
  }
  Result<std::unique_ptr<ResultWriter>> open(OutputOptions options = {}) {
    return ResultWriter::open(path_, options, ids_, scan_);
  }
  std::string dir_;
  std::string path_;
  IdSet ids_;
  ResumeScan scan_;
};

TEST_F(ResultFileTest, NoFileNothingToResume) {
  auto writer = open();
  ASSERT_TRUE(writer) << writer.error().message;
  EXPECT_EQ(scan_.lines, 0u);
  EXPECT_EQ(ids_.size(), 0u);
}

TEST_F(ResultFileTest, MarksAnsweredRowsAndMovesATornLastLineAside) {
  const std::string torn = R"({"custom_id":"c","line":2,"sta)";
  write_file(ok_line("a") + line("b") + torn);
  auto writer = open();
  ASSERT_TRUE(writer) << writer.error().message;
  EXPECT_EQ(scan_.lines, 2u);
  EXPECT_EQ(scan_.errored, 1u);
  EXPECT_EQ(scan_.torn_bytes, torn.size());
  EXPECT_EQ(ids_.done(key_of_id("a")), Done::Succeeded);
  EXPECT_EQ(ids_.done(key_of_id("b")), Done::Errored);
  EXPECT_EQ(ids_.done(key_of_id("c")), Done::No);
  EXPECT_EQ(read_file(), ok_line("a") + line("b"));
  // What was cut can be read back.
  EXPECT_EQ(scan_.torn_path, path_ + ".torn");
  EXPECT_EQ(read_file(path_ + ".torn"), torn + "\n");
}

// A kill between a line's last byte and its "\n": the line is whole, so it
// is kept and completed rather than cut.
TEST_F(ResultFileTest, AWholeLastLineWithoutItsNewlineIsCompleted) {
  const std::string last = ok_line("b");
  write_file(ok_line("a") + last.substr(0, last.size() - 1));
  auto writer = open();
  ASSERT_TRUE(writer) << writer.error().message;
  EXPECT_TRUE(scan_.completed_last_line);
  EXPECT_EQ(scan_.lines, 2u);
  EXPECT_TRUE(ids_.is_done(key_of_id("b")));
  EXPECT_EQ(read_file(), ok_line("a") + last);
}

TEST_F(ResultFileTest, AFileThatIsNotResultsIsRefusedAndLeftAsItWas) {
  for (const std::string& text : {
           line("a") + "hello world\n" + R"({"custom_id":"x","li)",
           // json.dump output: one JSON document, no final newline.
           std::string(R"({"results": [{"id": 1}, {"id": 2}]})"),
           // An OpenAI batch request file.
           std::string(R"({"custom_id":"r1","method":"POST","url":"/v1/chat/completions","body":{"messages":[]}})") + "\n" +
               R"({"custom_id":"r2","method":"POST","url":"/v1/chat/completions","body":{"messages":[]}})",
       }) {
    write_file(text);
    IdSet ids;
    ResumeScan scan;
    auto writer = ResultWriter::open(path_, {}, ids, scan);
    ASSERT_FALSE(writer) << text;
    EXPECT_EQ(writer.error().code, ErrorCode::Config);
    EXPECT_NE(writer.error().message.find("so the file cannot be resumed (is output the right file?). It was left as it was."),
              std::string::npos)
        << writer.error().message;
    EXPECT_EQ(read_file(), text);
    EXPECT_FALSE(std::filesystem::exists(path_ + ".torn"));
  }
  write_file(line("a") + "hello world\n");
  EXPECT_EQ(open().error().message, "output=\"" + path_ +
                                        "\": line 2 is not a weld batch result line, so the file cannot be resumed (is "
                                        "output the right file?). It was left as it was.");
  EXPECT_EQ(open({.names = kCliNames}).error().message,
            "-o \"" + path_ +
                "\": line 2 is not a weld batch result line, so the file cannot be resumed (is "
                "-o the right file?). It was left as it was.");
}

TEST_F(ResultFileTest, AnotherOutputFormatIsRefused) {
  write_file(line("a", OutputFormat::OpenAi));
  auto writer = open({.format = OutputFormat::Weld});
  ASSERT_FALSE(writer);
  EXPECT_EQ(writer.error().code, ErrorCode::Config);
  EXPECT_EQ(writer.error().message, "output=\"" + path_ +
                                        "\" holds result lines of output_format=openai (line 1); this run writes "
                                        "output_format=weld. Resume it with output_format=openai, or write to "
                                        "another output.");
  writer = open({.format = OutputFormat::Weld, .names = kCliNames});
  ASSERT_FALSE(writer);
  EXPECT_EQ(writer.error().message, "-o \"" + path_ +
                                        "\" holds result lines of --output-format openai (line 1); this run writes "
                                        "--output-format weld. Resume it with --output-format openai, or write to "
                                        "another -o.");
  EXPECT_TRUE(open({.format = OutputFormat::OpenAi}));
}

TEST_F(ResultFileTest, ASecondWriterIsRefusedWhileTheFirstHoldsTheFile) {
  auto first = open();
  ASSERT_TRUE(first);
  IdSet ids;
  ResumeScan scan;
  auto second = ResultWriter::open(path_, {}, ids, scan);
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().code, ErrorCode::Unavailable);
  EXPECT_EQ(second.error().message.rfind("another weld batch is writing \"" + path_ + "\"", 0), 0u)
      << second.error().message;
  first->reset();
  EXPECT_TRUE(ResultWriter::open(path_, {}, ids, scan));
}

TEST_F(ResultFileTest, RetryErroredRemovesTheErroredLinesAndKeepsTheLock) {
  write_file(ok_line("a") + line("b") + ok_line("c") + line("d"));
  auto writer = open({.retry_errored = true});
  ASSERT_TRUE(writer) << writer.error().message;
  EXPECT_EQ(scan_.removed_errored, 2u);
  EXPECT_EQ(scan_.lines, 2u);
  EXPECT_EQ(ids_.done(key_of_id("b")), Done::No);
  EXPECT_EQ(ids_.done(key_of_id("c")), Done::Succeeded);
  EXPECT_EQ(read_file(), ok_line("a") + ok_line("c"));
  EXPECT_FALSE(std::filesystem::exists(path_ + ".rewrite"));
  // The new file is the one locked and written.
  IdSet ids;
  ResumeScan scan;
  EXPECT_FALSE(ResultWriter::open(path_, {}, ids, scan));
  ASSERT_TRUE((*writer)->write(ok_line("b"), false));
  ASSERT_TRUE((*writer)->flush());
  EXPECT_EQ(read_file(), ok_line("a") + ok_line("c") + ok_line("b"));
}

TEST_F(ResultFileTest, WriterAppendsWholeLinesAndCountsThem) {
  write_file(ok_line("a"));
  {
    auto writer = open();
    ASSERT_TRUE(writer);
    std::uint64_t succeeded = 0, errored = 0;
    (*writer)->on_written([&](std::uint64_t s, std::uint64_t e) {
      succeeded += s;
      errored += e;
    });
    ASSERT_TRUE((*writer)->write(ok_line("b"), false));
    ASSERT_TRUE((*writer)->write(line("c"), true));
    ASSERT_TRUE((*writer)->flush());
    EXPECT_EQ(read_file(), ok_line("a") + ok_line("b") + line("c"));
    EXPECT_EQ(succeeded, 1u);
    EXPECT_EQ(errored, 1u);
  }
}

// The writer flushes on its own (no progress display, no other row ending):
// a lone finished line is in the file within about 100 ms.
TEST_F(ResultFileTest, ALoneLineReachesTheFileWithinAboutAHundredMilliseconds) {
  auto writer = open();
  ASSERT_TRUE(writer);
  ASSERT_TRUE((*writer)->write(ok_line("a"), false));
  for (int i = 0; i < 100 && read_file().empty(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(read_file(), ok_line("a"));
}

// /dev/full answers every write with ENOSPC: a temporary failure, and no
// line is counted as written.
TEST_F(ResultFileTest, AFullDiskIsATemporaryFailure) {
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  IdSet ids;
  ResumeScan scan;
  auto writer = ResultWriter::open("/dev/full", {}, ids, scan);
  ASSERT_TRUE(writer);
  std::uint64_t written = 0;
  (*writer)->on_written([&](std::uint64_t s, std::uint64_t e) { written += s + e; });
  ASSERT_TRUE((*writer)->write(ok_line("a"), false));
  Status flushed = (*writer)->flush();
  ASSERT_FALSE(flushed);
  EXPECT_EQ(flushed.error().code, ErrorCode::Unavailable);
  EXPECT_EQ(flushed.error().message, "could not write the results to \"/dev/full\": No space left on device");
  EXPECT_EQ(written, 0u);
  EXPECT_FALSE((*writer)->write(ok_line("b"), false));
}

}  // namespace
}  // namespace weld::batch
