#include "weld/agent/mechanism.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "weld/json/serialize.h"

namespace weld::agent {
namespace {

class MechanismCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("weld_mech_" + std::to_string(::getpid()) + "_" +
                                                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    path_ = mechanism_cache_path(dir_.string());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
  std::string path_;
};

TEST(Mechanism, ParsesNames) {
  EXPECT_EQ(parse_mechanism("tool"), std::optional<Mechanism>(Mechanism::Tool));
  EXPECT_EQ(parse_mechanism("native"), std::optional<Mechanism>(Mechanism::Native));
  EXPECT_EQ(parse_mechanism("auto"), std::optional<Mechanism>(Mechanism::Auto));
  EXPECT_EQ(parse_mechanism("Auto"), std::nullopt);
  EXPECT_EQ(mechanism_name(Mechanism::Native), "native");
}

TEST(Mechanism, TheProbeCannotBeSatisfiedByFreeText) {
  provider::Request probe = native_probe_request("m");
  ASSERT_TRUE(probe.response_format.has_value());
  EXPECT_TRUE(probe.tools.empty());
  EXPECT_EQ(probe.model, "m");
  EXPECT_EQ(json::serialize(probe.response_format->schema),
            R"({"type":"object","properties":{"weld_probe":{"type":"string","const":"enforced-7c1e9a"}},)"
            R"("required":["weld_probe"],"additionalProperties":false})");
  provider::Response r;
  r.message.text = "hello";
  EXPECT_FALSE(native_probe_passed(r));
  r.message.text = R"( {"weld_probe": "enforced-7c1e9a"} )";
  EXPECT_TRUE(native_probe_passed(r));
  r.message.text = R"({"weld_probe":"enforced-7c1e9a","extra":1})";
  EXPECT_FALSE(native_probe_passed(r));
  r.message.text = "```json\n{\"weld_probe\":\"enforced-7c1e9a\"}\n```";
  EXPECT_FALSE(native_probe_passed(r));
}

TEST_F(MechanismCacheTest, RemembersPerKeyAndForgetsOldOrDamagedEntries) {
  const std::string key = mechanism_cache_key(provider::Provider::OpenAi, "http://h:1/v1/", "m");
  EXPECT_EQ(key, "openai http://h:1/v1 m");
  EXPECT_EQ(read_mechanism_cache(path_, key, 1000), std::nullopt);
  ASSERT_TRUE(write_mechanism_cache(path_, key, true, 1000).ok());
  ASSERT_TRUE(write_mechanism_cache(path_, "anthropic http://h:1 m", false, 1000).ok());
  EXPECT_EQ(read_mechanism_cache(path_, key, 1000 + 60), std::optional<bool>(true));
  EXPECT_EQ(read_mechanism_cache(path_, "anthropic http://h:1 m", 1000), std::optional<bool>(false));
  EXPECT_EQ(read_mechanism_cache(path_, key, 1000 + kMechanismCacheMaxAgeSeconds + 1), std::nullopt);
  std::ofstream(path_) << "{ damaged";
  EXPECT_EQ(read_mechanism_cache(path_, key, 1000), std::nullopt);
  ASSERT_TRUE(write_mechanism_cache(path_, key, false, 2000).ok());  // a damaged file is replaced
  EXPECT_EQ(read_mechanism_cache(path_, key, 2000), std::optional<bool>(false));
}

TEST_F(MechanismCacheTest, AnUnwritableCacheIsAnErrorNotACrash) {
  std::filesystem::create_directories(dir_);
  std::ofstream(dir_ / ".weld") << "a file where the directory should be";
  Status s = write_mechanism_cache(path_, "k", true, 1);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find(".weld"), std::string::npos) << s.error().message;
}

}  // namespace
}  // namespace weld::agent
