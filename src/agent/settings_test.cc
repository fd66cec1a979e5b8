#include "weld/agent/settings.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace weld::agent {
namespace {

std::vector<std::string> names(const ToolSelection& s) {
  std::vector<std::string> out;
  for (const auto& t : s.tools) out.push_back(t->name());
  return out;
}

using Names = std::vector<std::string>;

TEST(SelectTools, DefaultOffersOnlyReadOnlyTools) {
  ToolSelection s = select_tools({});
  EXPECT_EQ(names(s), (Names{"read_file", "list_directory", "glob", "grep_search"}));
  EXPECT_TRUE(s.structured_output_allowed);
}

TEST(SelectTools, YoloOffersAllAndAutoEditAllButTheShell) {
  ToolPolicy yolo;
  yolo.approval = ApprovalMode::Yolo;
  EXPECT_EQ(names(select_tools(yolo)),
            (Names{"read_file", "list_directory", "glob", "grep_search", "write_file", "edit", "run_shell_command"}));
  ToolPolicy edit;
  edit.approval = ApprovalMode::AutoEdit;
  EXPECT_EQ(names(select_tools(edit)), (Names{"read_file", "list_directory", "glob", "grep_search", "write_file", "edit"}));
}

TEST(SelectTools, CoreToolsIsAnAllowListThatExemptsStructuredOutput) {
  ToolPolicy p;
  p.approval = ApprovalMode::Yolo;
  p.core_tools = {"read_file", "run_shell_command"};
  ToolSelection s = select_tools(p);
  EXPECT_EQ(names(s), (Names{"read_file", "run_shell_command"}));
  EXPECT_TRUE(s.structured_output_allowed);
}

TEST(SelectTools, ExcludeAndDenyRemoveToolsIncludingStructuredOutput) {
  ToolPolicy p;
  p.exclude_flag = {"glob"};
  p.settings.deny = {"structured_output", "grep_search"};
  ToolSelection s = select_tools(p);
  EXPECT_EQ(names(s), (Names{"read_file", "list_directory"}));
  EXPECT_FALSE(s.structured_output_allowed);
}

TEST(SelectTools, BareIgnoresSettingsButNotTheFlag) {
  ToolPolicy p;
  p.bare = true;
  p.settings.deny = {"structured_output"};
  p.settings.exclude = {"read_file"};
  EXPECT_TRUE(select_tools(p).structured_output_allowed);
  EXPECT_EQ(names(select_tools(p)).front(), "read_file");
  p.exclude_flag = {"structured_output"};
  EXPECT_FALSE(select_tools(p).structured_output_allowed);
}

TEST(SelectTools, AllowRuleOffersASideEffectTool) {
  ToolPolicy p;
  p.settings.allow = {"run_shell_command(git status)"};
  EXPECT_EQ(names(select_tools(p)).back(), "run_shell_command");
}

TEST(SplitToolList, TrimsAndDropsEmpty) {
  EXPECT_EQ(split_tool_list(" a, b,,c "), (Names{"a", "b", "c"}));
  EXPECT_TRUE(split_tool_list("").empty());
}

TEST(LoadSettings, MergesUserThenProjectAndNamesBadFields) {
  namespace fs = std::filesystem;
  fs::path root = fs::temp_directory_path() / ("weld_settings_" + std::to_string(::getpid()));
  fs::create_directories(root / "home/.weld");
  fs::create_directories(root / "proj/.weld");
  std::ofstream(root / "home/.weld/settings.json") << R"({"permissions":{"deny":["glob"]},"tools":{"exclude":["a"]}})";
  std::ofstream(root / "proj/.weld/settings.json") << R"({"permissions":{"allow":["edit"],"deny":["b"]}})";
  auto s = load_settings((root / "home").string(), (root / "proj").string());
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->deny, (Names{"glob", "b"}));
  EXPECT_EQ(s->allow, (Names{"edit"}));
  EXPECT_EQ(s->exclude, (Names{"a"}));
  std::ofstream(root / "proj/.weld/settings.json") << R"({"permissions":{"deny":"glob"}})";
  auto bad = load_settings((root / "home").string(), (root / "proj").string());
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "Settings file \"" + (root / "proj/.weld/settings.json").string() +
                                     "\": permissions.deny must be an array of strings.");
  fs::remove_all(root);
}

// Settings and MCP servers given as JSON text are named in the caller's
// terms: the library's by default, the CLI's flags when it passes them.
TEST(MergeSettings, JsonTextIsNamedAsTheCallerNamesIt) {
  Settings settings;
  Status bad = merge_settings("{\"permissions\": 1}", "", settings);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "Settings file \"settings\": permissions must be an object.");
  SettingNames flags;
  flags.settings = "--settings";
  flags.mcp_config = "--mcp-config";
  bad = merge_settings("{\"permissions\": 1}", "", settings, flags);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "Settings file \"--settings\": permissions must be an object.");
  bad = merge_settings("{nope", "", settings, flags);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message.rfind("--settings is not valid JSON: ", 0), 0u) << bad.error().message;

  std::vector<McpServerConfig> servers;
  bad = read_mcp_config("{\"servers\": {}}", "", servers);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message,
            "mcp_config {\"servers\": {}}: expected a JSON object with \"mcpServers\" (as Claude Code's .mcp.json).");
  bad = read_mcp_config("{\"servers\": {}}", "", servers, flags);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message,
            "--mcp-config {\"servers\": {}}: expected a JSON object with \"mcpServers\" (as Claude Code's .mcp.json).");
}

TEST(ApprovalMode, ParsesTheNames) {
  EXPECT_EQ(parse_approval_mode("auto-edit"), ApprovalMode::AutoEdit);
  EXPECT_EQ(parse_approval_mode("yolo"), ApprovalMode::Yolo);
  EXPECT_EQ(parse_approval_mode("sure"), std::nullopt);
}

}  // namespace
}  // namespace weld::agent
