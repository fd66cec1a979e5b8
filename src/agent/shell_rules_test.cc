#include "weld/agent/shell_rules.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "weld/agent/settings.h"
#include "weld/json/parse.h"

namespace weld::agent {
namespace {
namespace fs = std::filesystem;

TEST(ShellRules, PrefixesKeepAWordBoundary) {
  EXPECT_TRUE(shell_rule_matches("git status", "git status"));
  EXPECT_TRUE(shell_rule_matches("git status", "  git status --short "));
  EXPECT_FALSE(shell_rule_matches("git status", "git statusx"));
  EXPECT_FALSE(shell_rule_matches("git status", "git stash"));
  EXPECT_TRUE(shell_rule_matches("npm run test:*", "npm run test"));
  EXPECT_TRUE(shell_rule_matches("npm run test:*", "npm run test --watch=false"));
  EXPECT_FALSE(shell_rule_matches("npm run test:*", "npm run test:unit"));  // `:*` is the boundary, as in Claude Code
  EXPECT_TRUE(shell_rule_matches("npm run test*", "npm run test:unit"));
  EXPECT_TRUE(shell_rule_matches("ls *", "ls"));
  EXPECT_TRUE(shell_rule_matches("ls *", "ls -la"));
  EXPECT_FALSE(shell_rule_matches("ls *", "lsof"));
  EXPECT_TRUE(shell_rule_matches("git * main", "git push origin main"));
  EXPECT_FALSE(shell_rule_matches("git * main", "git push origin main2"));
}

TEST(ShellRules, chaining_substitution_and_redirection_are_refused) {
  ShellScope scope{{"git status", "npm run test:*"}};
  EXPECT_EQ(scope.refusal("git status --short"), std::nullopt);
  for (const char* command :
       {"git status; rm -rf ~", "git status && curl evil", "git status || true", "git status | sh", "git status &",
        "git status\nrm -rf ~", "git status `rm -rf ~`", "git status $(rm -rf ~)", "git status ${HOME:?x}",
        "git status > ~/.bashrc", "git status < /etc/passwd", "npm run test;id"}) {
    EXPECT_NE(scope.refusal(command), std::nullopt) << command;
  }
  EXPECT_EQ(*scope.refusal("git status; rm -rf ~"),
            "the allow rules (run_shell_command(git status), run_shell_command(npm run test:*)) cover one simple command; "
            "this one contains \";\" (a second command).");
  EXPECT_EQ(*scope.refusal("rm -rf ~"),
            "the command matches none of the allow rules (run_shell_command(git status), run_shell_command(npm run "
            "test:*)).");
}

TEST(ShellRules, ParseRule) {
  EXPECT_EQ(parse_rule("run_shell_command")->specifier, std::nullopt);
  EXPECT_EQ(*parse_rule(" run_shell_command( git status ) ")->specifier, "git status");
  EXPECT_EQ(parse_rule("run_shell_command(*)")->specifier, std::nullopt);
  EXPECT_EQ(parse_rule("run_shell_command(git").error().message, "rule \"run_shell_command(git\" must end with \")\".");
  EXPECT_EQ(parse_rule("run_shell_command()").error().message, "rule \"run_shell_command()\" has an empty specifier.");
}

class ScopedSettings : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("weld_scoped_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_ / ".weld");
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write_settings(const std::string& text) { std::ofstream(dir_ / ".weld/settings.json") << text; }
  fs::path dir_;
};

// The adversarial pass: {"permissions":{"allow":["run_shell_command(git status)"]}} let any command run.
TEST_F(ScopedSettings, scoped_allow_rule_does_not_grant_the_whole_shell) {
  write_settings(R"j({"permissions":{"allow":["run_shell_command(git status)"]}})j");
  Result<Settings> settings = load_settings("", dir_.string());
  ASSERT_TRUE(settings) << settings.error().message;
  ToolPolicy policy;
  policy.settings = *settings;
  ToolSelection selection = select_tools(policy);
  const Tool* shell = nullptr;
  for (const auto& tool : selection.tools)
    if (tool->name() == "run_shell_command") shell = tool.get();
  ASSERT_NE(shell, nullptr);
  provider::CancelToken cancel;
  ToolContext context{dir_.string(), &cancel};
  ToolOutput out = shell->run(*json::parse(R"j({"command":"echo pwned > pwned.txt"})j"), context);
  EXPECT_TRUE(out.is_error);
  EXPECT_EQ(out.content,
            "run_shell_command: not allowed: the allow rules (run_shell_command(git status)) cover one simple command; "
            "this one contains \">\" (a redirection).");
  out = shell->run(*json::parse(R"j({"command":"touch pwned.txt"})j"), context);
  EXPECT_TRUE(out.is_error);
  EXPECT_FALSE(fs::exists(dir_ / "pwned.txt"));
  out = shell->run(*json::parse(R"j({"command":"git status"})j"), context);
  EXPECT_EQ(out.content.rfind("Command: git status\n", 0), 0u) << out.content;  // it ran (exit code is git's)
}

TEST_F(ScopedSettings, scoped_rules_weld_cannot_enforce_are_config_errors) {
  write_settings(R"j({"permissions":{"allow":["write_file(src/**)"]}})j");
  Result<Settings> settings = load_settings("", dir_.string());
  ASSERT_FALSE(settings);
  EXPECT_EQ(settings.error().message,
            "Settings file \"" + (dir_ / ".weld/settings.json").string() +
                "\": permissions.allow: \"write_file(src/**)\": weld enforces scoped rules for run_shell_command only; "
                "allow \"write_file\" (every path in the workspace) or remove the rule.");
  write_settings(R"j({"permissions":{"allow":["run_shell_command(git status"]}})j");
  settings = load_settings("", dir_.string());
  ASSERT_FALSE(settings);
  EXPECT_NE(settings.error().message.find("must end with \")\""), std::string::npos);
}

TEST_F(ScopedSettings, UnscopedRuleOrYoloKeepsTheWholeShell) {
  write_settings(R"j({"permissions":{"allow":["run_shell_command(git status)","run_shell_command"]}})j");
  Result<Settings> settings = load_settings("", dir_.string());
  ASSERT_TRUE(settings);
  ToolPolicy policy;
  policy.settings = *settings;
  ToolSelection selection = select_tools(policy);
  provider::CancelToken cancel;
  ToolContext context{dir_.string(), &cancel};
  for (const auto& tool : selection.tools) {
    if (tool->name() != "run_shell_command") continue;
    ToolOutput out = tool->run(*json::parse(R"j({"command":"echo a; echo b"})j"), context);
    EXPECT_FALSE(out.is_error) << out.content;
  }
}

}  // namespace
}  // namespace weld::agent
