#include "weld/agent/subprocess.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

namespace weld::agent {
namespace {
namespace fs = std::filesystem;

SubprocessOptions shell(const std::string& command) {
  SubprocessOptions options;
  options.argv = {"/bin/bash", "-c", command};
  options.cwd = fs::temp_directory_path().string();
  options.stderr_mode = SubprocessOptions::Output::MergeIntoStdout;
  return options;
}

// A process is gone when it no longer exists or is a zombie waiting for init.
bool gone(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;
  std::size_t close = line.rfind(')');
  return close != std::string::npos && line.size() > close + 2 && line[close + 2] == 'Z';
}

TEST(Subprocess, children_get_no_provider_keys_whatever_the_variable) {
  ::setenv("OPENAI_API_KEY", "sk-openai-0001", 1);
  ::setenv("ANTHROPIC_API_KEY", "sk-ant-0002", 1);
  ::setenv("WELD_API_KEY", "sk-weld-0003", 1);
  ::setenv("MY_GATEWAY_TOKEN", "sk-custom-0004", 1);
  ::setenv("HARMLESS", "kept", 1);
  protect_secret("sk-custom-0004");
  SubprocessRun run = run_subprocess(shell("env"), {});
  ::unsetenv("OPENAI_API_KEY");
  ::unsetenv("ANTHROPIC_API_KEY");
  ::unsetenv("WELD_API_KEY");
  ::unsetenv("MY_GATEWAY_TOKEN");
  ASSERT_EQ(run.end, SubprocessRun::End::Exited) << run.start_error;
  EXPECT_EQ(run.output.find("sk-"), std::string::npos) << run.output;
  EXPECT_EQ(run.output.find("OPENAI_API_KEY"), std::string::npos);
  EXPECT_EQ(run.output.find("MY_GATEWAY_TOKEN"), std::string::npos);
  EXPECT_NE(run.output.find("HARMLESS=kept\n"), std::string::npos);
}

TEST(Subprocess, an_mcp_servers_own_env_entries_still_apply) {
  ::setenv("OPENAI_API_KEY", "sk-openai-0001", 1);
  SubprocessOptions options = shell("echo \"$OPENAI_API_KEY/$EXTRA\"");
  options.env = {{"OPENAI_API_KEY", "server-own-key"}, {"EXTRA", "x"}};
  SubprocessRun run = run_subprocess(options, {});
  ::unsetenv("OPENAI_API_KEY");
  EXPECT_EQ(run.output, "server-own-key/x\n");
}

TEST(Subprocess, tool_text_is_scrubbed_of_protected_secrets) {
  protect_secret("sk-scrub-me-0005");
  protect_secret("abc");  // too short to be a key: left alone
  EXPECT_EQ(scrub_secrets("key=sk-scrub-me-0005; again sk-scrub-me-0005 abc"),
            "key=[REDACTED]; again [REDACTED] abc");
}

TEST(Subprocess, a_background_job_holding_the_pipe_is_not_a_timeout_and_is_killed) {
  fs::path pid_file = fs::temp_directory_path() / ("weld_bg_" + std::to_string(::getpid()));
  SubprocessRun run =
      run_subprocess(shell("sleep 30 & echo $! > " + pid_file.string() + "; echo finished"),
                     {std::chrono::milliseconds(20'000), nullptr, 1024});
  EXPECT_EQ(run.end, SubprocessRun::End::Exited);
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.output, "finished\n");
  std::ifstream in(pid_file);
  pid_t background = 0;
  in >> background;
  fs::remove(pid_file);
  ASSERT_GT(background, 0);
  for (int i = 0; i < 200 && !gone(background); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_TRUE(gone(background)) << "the background sleep outlived its command";
}

TEST(Subprocess, TimeoutKillsTheWholeGroup) {
  SubprocessRun run = run_subprocess(shell("sleep 30 & sleep 30"), {std::chrono::milliseconds(200), nullptr, 1024});
  EXPECT_EQ(run.end, SubprocessRun::End::TimedOut);
}

TEST(Subprocess, InputDataStderrAndExitCode) {
  SubprocessOptions options;
  options.argv = {"/bin/bash", "-c", "cat; echo oops >&2; exit 4"};
  options.stdin_mode = SubprocessOptions::Input::Data;
  options.input = "from stdin";
  SubprocessRun run = run_subprocess(options, {});
  EXPECT_EQ(run.end, SubprocessRun::End::Exited);
  EXPECT_EQ(run.exit_code, 4);
  EXPECT_EQ(run.output, "from stdin");
  EXPECT_EQ(run.error_output, "oops\n");
}

TEST(Subprocess, StartFailuresSayWhy) {
  SubprocessOptions options;
  options.argv = {"/nonexistent/program"};
  SubprocessRun run = run_subprocess(options, {});
  EXPECT_EQ(run.end, SubprocessRun::End::StartFailed);
  EXPECT_EQ(run.start_error, "cannot run \"/nonexistent/program\": No such file or directory");
  options.argv = {"/bin/true"};
  options.cwd = "/nonexistent/dir";
  run = run_subprocess(options, {});
  EXPECT_EQ(run.start_error, "cannot enter its working directory \"/nonexistent/dir\": No such file or directory");
}

TEST(Subprocess, CancelStopsPromptly) {
  provider::CancelToken cancel;
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    cancel.cancelled = true;
  });
  SubprocessRun run = run_subprocess(shell("sleep 30"), {std::chrono::milliseconds(60'000), &cancel, 1024});
  canceller.join();
  EXPECT_EQ(run.end, SubprocessRun::End::Cancelled);
}

}  // namespace
}  // namespace weld::agent
