#include "weld/agent/session_log.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "test_model.h"

namespace weld::agent {
namespace {
namespace fs = std::filesystem;

TEST(SessionLog, RedactsStructuredOutputArgumentsAndReadsBack) {
  fs::path home = fs::temp_directory_path() / ("weld_session_" + std::to_string(::getpid()));
  std::string path = session_path(home.string(), "/work/my proj", "abc");
  EXPECT_EQ(path, home.string() + "/.weld/projects/-work-my-proj/chats/abc.jsonl");
  {
    SessionLog log(path);
    log.on_start({"abc", "m", "p", "/work/my proj", {}, true});
    provider::Message prompt;
    prompt.text = "hi";
    log.on_prompt(prompt);
    log.on_assistant(testing::answer("", {testing::call("c1", "structured_output", R"({"secret":"s3cr3t"})"),
                                          testing::call("c2", "read_file", R"({"path":"a"})")}),
                     1);
    provider::Message results;
    results.tool_results.push_back({"c1", "params must have required property 'x'", true});
    results.tool_results.push_back({"c2", "contents", false});
    log.on_tool_results(results);
    RunOutcome out;
    out.subtype = Subtype::ErrorMaxTurns;
    log.finish(out);
    EXPECT_EQ(log.error(), "");
  }
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  std::string text = s.str();
  EXPECT_EQ(text.find("s3cr3t"), std::string::npos);
  EXPECT_NE(text.find(R"x({\"__redacted\":\"structured_output payload (see stdout result)\"})x"), std::string::npos);
  EXPECT_EQ(fs::status(path).permissions() & fs::perms::others_read, fs::perms::none);

  auto messages = read_session(path);
  ASSERT_TRUE(messages.ok()) << messages.error().message;
  ASSERT_EQ(messages->size(), 3u);
  EXPECT_EQ((*messages)[0].text, "hi");
  EXPECT_EQ((*messages)[1].tool_calls[0].arguments,
            R"x({"__redacted":"structured_output payload (see stdout result)"})x");
  EXPECT_EQ((*messages)[1].tool_calls[1].arguments, R"({"path":"a"})");
  EXPECT_EQ((*messages)[2].tool_results[1].content, "contents");

  auto newest = newest_session_id(home.string(), "/work/my proj");
  ASSERT_TRUE(newest.ok());
  EXPECT_EQ(*newest, "abc");
  fs::remove_all(home);
}

// `--keep-answers`: a resumed run gives the model what it answered (the
// default placeholder made "refine your previous answer" impossible).
TEST(SessionLog, KeptAnswersAreReadBack) {
  fs::path home = fs::temp_directory_path() / ("weld_session_keep_" + std::to_string(::getpid()));
  for (Answers answers : {Answers::Kept, Answers::Redacted}) {
    std::string path = session_path(home.string(), "/w", answers == Answers::Kept ? "kept" : "redacted");
    {
      SessionLog log(path, answers);
      log.on_start({"s", "m", "p", "/w", {}, true});
      provider::Message prompt;
      prompt.text = "assess";
      log.on_prompt(prompt);
      log.on_assistant(testing::answer("", {testing::call("c1", "structured_output", R"({"risk":"low"})")}), 1);
      provider::Message accepted;
      accepted.tool_results.push_back({"c1", "Structured output accepted; the session is complete.", false});
      log.on_tool_results(accepted);
      RunOutcome out;
      out.subtype = Subtype::Success;
      log.finish(out);
    }
    EXPECT_EQ(fs::status(path).permissions() & (fs::perms::group_all | fs::perms::others_all), fs::perms::none);
    auto messages = read_session(path);
    ASSERT_TRUE(messages.ok()) << messages.error().message;
    ASSERT_EQ(messages->size(), 3u);
    const std::string shown = (*messages)[1].tool_calls[0].arguments;
    EXPECT_EQ(shown, answers == Answers::Kept ? R"({"risk":"low"})"
                                              : R"x({"__redacted":"structured_output payload (see stdout result)"})x");
    EXPECT_EQ(redacted_answers(*messages), answers == Answers::Kept ? 0u : 1u);
    ASSERT_EQ((*messages)[2].tool_results.size(), 1u);
    EXPECT_EQ((*messages)[2].tool_results[0].content, "Structured output accepted; the session is complete.");
  }
  fs::remove_all(home);
}

TEST(SessionId, IsAUuidV4) {
  std::string id = new_session_id();
  ASSERT_EQ(id.size(), 36u);
  EXPECT_EQ(id[14], '4');
  EXPECT_NE(new_session_id(), id);
}

}  // namespace
}  // namespace weld::agent
