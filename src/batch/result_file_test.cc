#include "weld/batch/result_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "weld/batch/result_line.h"

namespace weld::batch {
namespace {

class ResultFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/weld-batch-test-XXXXXX";
    dir_ = ::mkdtemp(pattern);
    path_ = dir_ + "/out.jsonl";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void write_file(const std::string& text) { std::ofstream(path_, std::ios::binary) << text; }
  std::string read_file() {
    std::ifstream in(path_, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  std::string line(const std::string& id) {
    Row row;
    row.id = id;
    return input_error_line(OutputFormat::Weld, row, InputErrorKind::InvalidLine, "x");
  }
  std::string dir_;
  std::string path_;
};

TEST_F(ResultFileTest, NoFileNothingToResume) {
  IdSet ids;
  auto scan = resume_from(path_, ids);
  ASSERT_TRUE(scan);
  EXPECT_EQ(scan->lines, 0u);
  EXPECT_EQ(ids.size(), 0u);
}

TEST_F(ResultFileTest, MarksAnsweredRowsAndCutsATornLastLine) {
  write_file(line("a") + line("b") + R"({"custom_id":"c","line":2,"sta)");
  IdSet ids;
  auto scan = resume_from(path_, ids);
  ASSERT_TRUE(scan) << scan.error().message;
  EXPECT_EQ(scan->lines, 2u);
  EXPECT_EQ(scan->torn_bytes, 30u);
  EXPECT_TRUE(ids.is_done(key_of_id("a")));
  EXPECT_TRUE(ids.is_done(key_of_id("b")));
  EXPECT_FALSE(ids.is_done(key_of_id("c")));
  EXPECT_EQ(read_file(), line("a") + line("b"));
}

TEST_F(ResultFileTest, AFileThatIsNotResultsIsRefused) {
  write_file(line("a") + "hello world\n");
  IdSet ids;
  auto scan = resume_from(path_, ids);
  ASSERT_FALSE(scan);
  EXPECT_EQ(scan.error().message, "-o \"" + path_ +
                                      "\": line 2 is not a weld batch result line, so the file cannot be resumed (is "
                                      "-o the right file?).");
}

TEST_F(ResultFileTest, WriterAppendsWholeLines) {
  write_file(line("a"));
  {
    auto writer = ResultWriter::open(path_);
    ASSERT_TRUE(writer);
    ASSERT_TRUE((*writer)->write(line("b")));
    ASSERT_TRUE((*writer)->write(line("c")));
    ASSERT_TRUE((*writer)->flush());
    EXPECT_EQ(read_file(), line("a") + line("b") + line("c"));
  }
}

}  // namespace
}  // namespace weld::batch
