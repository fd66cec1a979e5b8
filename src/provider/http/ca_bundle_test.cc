#include "weld/provider/ca_bundle.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace weld::provider {
namespace {

namespace fs = std::filesystem;

class CaBundle : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("weld-ca-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    std::ofstream(dir_ / "bundle.pem") << "-----BEGIN CERTIFICATE-----\n";
    std::ofstream(dir_ / "other.pem") << "-----BEGIN CERTIFICATE-----\n";
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const char* name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

TEST_F(CaBundle, TheLibraryDefaultStaysWhenItExists) {
  EXPECT_EQ(choose_ca_bundle(path("bundle.pem").c_str(), nullptr, {path("other.pem")}), "");
  EXPECT_EQ(choose_ca_bundle(nullptr, dir_.c_str(), {path("other.pem")}), "");
}

TEST_F(CaBundle, TheFirstCandidatePresentWhenTheDefaultIsMissing) {
  // The portable build on a system without Debian's paths: libcurl has no
  // bundle of its own, OpenSSL's folder is absent.
  EXPECT_EQ(choose_ca_bundle(nullptr, "/nonexistent/ssl/certs", {path("missing.pem"), path("other.pem"), path("bundle.pem")}),
            path("other.pem"));
  EXPECT_EQ(choose_ca_bundle(path("missing.pem").c_str(), nullptr, {path("bundle.pem")}), path("bundle.pem"));
}

TEST_F(CaBundle, NothingWhenNoCandidateIsAFile) {
  EXPECT_EQ(choose_ca_bundle(nullptr, nullptr, {path("missing.pem"), dir_.string()}), "");
}

TEST(SystemCaBundle, IsAFileOrLibcurlsDefault) {
  const std::string& chosen = system_ca_bundle();
  if (!chosen.empty()) EXPECT_TRUE(fs::is_regular_file(chosen)) << chosen;
  EXPECT_EQ(&chosen, &system_ca_bundle());
}

}  // namespace
}  // namespace weld::provider
