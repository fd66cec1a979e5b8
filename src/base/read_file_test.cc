#include "weld/base/read_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

namespace weld {
namespace {

std::string temp_path(const char* name) {
  return std::string(::testing::TempDir()) + "weld_read_file_" + std::to_string(::getpid()) + "_" + name;
}

TEST(ReadRegularFile, ReadsAndCaps) {
  std::string path = temp_path("small");
  std::ofstream(path) << "hello";
  EXPECT_EQ(*read_regular_file(path, 5), "hello");
  std::uint64_t size = 0;
  auto big = read_regular_file(path, 4, &size);
  ASSERT_FALSE(big);
  EXPECT_EQ(big.error().code, ErrorCode::TooLarge);
  EXPECT_EQ(big.error().message, "\"" + path + "\" is 5 bytes (more than 4)");
  EXPECT_EQ(size, 5u);
  std::remove(path.c_str());
  auto missing = read_regular_file(path, 4);
  EXPECT_EQ(missing.error().message, "could not read \"" + path + "\": No such file or directory");
}

// The adversarial pass: --continue on a FIFO transcript, `schema validate S
// /dev/zero`, a symlink to /dev/zero: each hung and grew memory.
TEST(ReadRegularFile, fifo_device_and_link_to_dev_zero_are_refused_without_blocking) {
  std::string fifo = temp_path("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(read_regular_file(fifo, 1 << 20).error().message, "\"" + fifo + "\" is not a regular file");
  EXPECT_EQ(read_regular_file("/dev/zero", 1 << 20).error().code, ErrorCode::NotRegular);
  std::string link = temp_path("zero_link");
  ASSERT_EQ(::symlink("/dev/zero", link.c_str()), 0);
  EXPECT_EQ(read_regular_file(link, 1 << 20).error().code, ErrorCode::NotRegular);
  std::remove(fifo.c_str());
  std::remove(link.c_str());
}

TEST(ReadStream, an_endless_stream_is_capped) {
  int fd = ::open("/dev/zero", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  auto read = read_stream(fd, 1 << 20, "standard input");
  ::close(fd);
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().message, "standard input is more than 1048576 bytes");
  EXPECT_EQ(*read_stream(-1, 10, "standard input"), "");  // closed: empty
}

}  // namespace
}  // namespace weld
