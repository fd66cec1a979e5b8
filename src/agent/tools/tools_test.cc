#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "paths.h"
#include "weld/agent/tool.h"
#include "weld/json/parse.h"

namespace weld::agent {
namespace {
namespace fs = std::filesystem;

class ToolsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("weld_tools_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(root_ / "src/deep");
    std::ofstream(root_ / "a.txt") << "one\ntwo\nthree\n";
    std::ofstream(root_ / "src/main.cc") << "int main() { return 0; }\n";
    std::ofstream(root_ / "src/deep/x.cc") << "// TODO fix\n";
    context_.cwd = root_.string();
    context_.cancel = &cancel_;
  }
  void TearDown() override { fs::remove_all(root_); }
  ToolOutput call(const std::unique_ptr<Tool>& tool, const char* args) {
    return tool->run(*json::parse(args), context_);
  }
  std::string slurp(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  fs::path root_;
  provider::CancelToken cancel_;
  ToolContext context_;
};

TEST_F(ToolsTest, ReadFileReturnsLinesAndRange) {
  auto tool = make_read_file_tool();
  auto out = call(tool, R"({"path":"a.txt"})");
  EXPECT_FALSE(out.is_error);
  EXPECT_EQ(out.content, "one\ntwo\nthree\n");
  out = call(tool, R"({"path":"a.txt","offset":1,"limit":1})");
  EXPECT_EQ(out.content, "[Showing lines 2-2 of 3 in a.txt]\ntwo\n");
}

TEST_F(ToolsTest, ReadFileErrorsAreResultsNamingThePath) {
  auto tool = make_read_file_tool();
  auto out = call(tool, R"({"path":"missing.txt"})");
  EXPECT_TRUE(out.is_error);
  EXPECT_EQ(out.content, "read_file: File not found: \"" + (root_ / "missing.txt").string() + "\".");
  out = call(tool, R"({"path":"../outside.txt"})");
  EXPECT_TRUE(out.is_error);
  EXPECT_EQ(out.content, "read_file: Path \"" + (root_.parent_path() / "outside.txt").string() +
                             "\" is outside the workspace \"" + root_.string() + "\".");
  out = call(tool, R"({})");
  EXPECT_EQ(out.content, "read_file: missing required parameter \"path\".");
  out = call(tool, R"({"path":7})");
  EXPECT_EQ(out.content, "read_file: parameter \"path\" must be a string.");
}

TEST_F(ToolsTest, SymlinkOutOfTheWorkspaceIsRefused) {
  fs::create_symlink("/etc", root_ / "etc_link");
  auto out = call(make_read_file_tool(), R"({"path":"etc_link/hostname"})");
  EXPECT_TRUE(out.is_error);
  EXPECT_NE(out.content.find("is outside the workspace"), std::string::npos);
}

TEST_F(ToolsTest, ListDirectorySortsAndMarksDirectories) {
  auto out = call(make_list_directory_tool(), R"({})");
  EXPECT_EQ(out.content, "Directory " + root_.string() + " (2 entries)\na.txt\nsrc/\n");
}

TEST_F(ToolsTest, GlobMatchesAcrossSegments) {
  auto out = call(make_glob_tool(), R"({"pattern":"**/*.cc"})");
  EXPECT_EQ(out.content, "2 file(s) match \"**/*.cc\" under " + root_.string() + ":\nsrc/deep/x.cc\nsrc/main.cc\n");
  out = call(make_glob_tool(), R"({"pattern":"*.cc"})");
  EXPECT_EQ(out.content, "No files match \"*.cc\" under " + root_.string() + ".");
}

TEST(GlobMatch, Segments) {
  EXPECT_TRUE(tools::glob_match("**/*.cc", "a.cc"));
  EXPECT_TRUE(tools::glob_match("src/**", "src/a/b"));
  EXPECT_FALSE(tools::glob_match("src/*.cc", "src/a/b.cc"));
  EXPECT_TRUE(tools::glob_match("s?c/[mn]ain.cc", "src/main.cc"));
}

// "1 file(s) larger than 4 MiB not searched" left the model to guess which:
// the files are named (up to a few), so it can read them another way.
TEST_F(ToolsTest, GrepSearchNamesTheLargeFilesItSkipped) {
  const std::string big(4 * 1024 * 1024 + 1, 'x');
  for (const char* name : {"big1.log", "src/big2.log", "src/deep/big3.log", "z4.log", "z5.log", "z6.log", "z7.log"})
    std::ofstream(root_ / name) << big;
  auto out = call(make_grep_search_tool(), R"({"pattern":"TODO"})");
  EXPECT_FALSE(out.is_error);
  EXPECT_EQ(out.content,
            "1 match(es) for \"TODO\":\nsrc/deep/x.cc:1: // TODO fix\n"
            "[7 file(s) larger than 4 MiB not searched: big1.log, src/big2.log, src/deep/big3.log, z4.log, z5.log, and 2 "
            "more; read_file reads them in parts]\n");
  out = call(make_grep_search_tool(), R"({"pattern":"TODO","path":"src/big2.log"})");
  EXPECT_EQ(out.content, "No matches for \"TODO\" under " + (root_ / "src/big2.log").string() +
                             ".\n[1 file(s) larger than 4 MiB not searched: src/big2.log; read_file reads them in parts]\n");
}

TEST_F(ToolsTest, GrepSearchFindsLinesAndRejectsBadRegex) {
  auto out = call(make_grep_search_tool(), R"({"pattern":"TODO|main","include":"**/*.cc"})");
  EXPECT_EQ(out.content, "2 match(es) for \"TODO|main\":\nsrc/deep/x.cc:1: // TODO fix\nsrc/main.cc:1: int main() { return 0; }\n");
  out = call(make_grep_search_tool(), R"({"pattern":"(unclosed"})");
  EXPECT_TRUE(out.is_error);
  EXPECT_EQ(out.content.rfind("grep_search: invalid regular expression: ", 0), 0u);
}

TEST_F(ToolsTest, WriteFileAndEdit) {
  auto write = make_write_file_tool();
  auto out = call(write, R"({"path":"new/dir/f.txt","content":"hello world"})");
  EXPECT_FALSE(out.is_error) << out.content;
  EXPECT_EQ(out.content, "Created " + (root_ / "new/dir/f.txt").string() + " (11 bytes).");
  EXPECT_EQ(slurp(root_ / "new/dir/f.txt"), "hello world");
  auto edit = make_edit_tool();
  out = call(edit, R"({"path":"new/dir/f.txt","old_string":"world","new_string":"weld"})");
  EXPECT_FALSE(out.is_error) << out.content;
  EXPECT_EQ(slurp(root_ / "new/dir/f.txt"), "hello weld");
  out = call(edit, R"({"path":"new/dir/f.txt","old_string":"absent","new_string":"x"})");
  EXPECT_TRUE(out.is_error);
  EXPECT_EQ(out.content, "edit: old_string was not found in \"" + (root_ / "new/dir/f.txt").string() + "\"; nothing changed.");
  out = call(edit, R"({"path":"a.txt","old_string":"o","new_string":"0"})");
  EXPECT_TRUE(out.is_error);
  EXPECT_EQ(out.content, "edit: old_string occurs 2 times in \"" + (root_ / "a.txt").string() + "\", expected 1; nothing changed.");
}

TEST_F(ToolsTest, ShellReportsExitCodeAndOutput) {
  auto shell = make_run_shell_command_tool();
  auto out = call(shell, R"({"command":"echo hi; echo err >&2; exit 3"})");
  EXPECT_TRUE(out.is_error);
  EXPECT_EQ(out.content, "Command: echo hi; echo err >&2; exit 3\nDirectory: " + root_.string() +
                             "\nExit code: 3\nOutput:\nhi\nerr\n");
}

TEST_F(ToolsTest, ShellTimesOutAndKillsTheGroup) {
  auto shell = make_run_shell_command_tool();
  auto started = std::chrono::steady_clock::now();
  auto out = call(shell, R"({"command":"sleep 30","timeout_ms":200})");
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
  EXPECT_TRUE(out.is_error);
  EXPECT_NE(out.content.find("Timed out after 200 ms; the process group was killed."), std::string::npos);
}

TEST_F(ToolsTest, ShellStopsWhenCancelled) {
  auto shell = make_run_shell_command_tool();
  cancel_.cancelled = true;
  auto out = call(shell, R"({"command":"sleep 30"})");
  EXPECT_TRUE(out.is_error);
  EXPECT_EQ(out.content, "run_shell_command: cancelled.");
}

}  // namespace
}  // namespace weld::agent

namespace weld::agent {
namespace {
TEST(ShellTool, ChildGetsDefaultSigpipeEvenWhenTheParentIgnoresIt) {
  ::signal(SIGPIPE, SIG_IGN);
  provider::CancelToken cancel;
  ToolContext context{std::filesystem::temp_directory_path().string(), &cancel};
  auto out = make_run_shell_command_tool()->run(*json::parse(R"({"command":"yes | head -n 2","timeout_ms":10000})"), context);
  ::signal(SIGPIPE, SIG_DFL);
  EXPECT_FALSE(out.is_error) << out.content;
  const std::string tail = "Exit code: 0\nOutput:\ny\ny\n";  // no "Broken pipe" from `yes`
  ASSERT_GE(out.content.size(), tail.size());
  EXPECT_EQ(out.content.substr(out.content.size() - tail.size()), tail) << out.content;
}
}  // namespace
}  // namespace weld::agent

namespace weld::agent {
namespace {
TEST(GlobMatch, ManyDoubleStarsStayLinear) {
  std::string pattern;
  for (int i = 0; i < 40; ++i) pattern += "**/a/";
  pattern += "b";
  std::string path;
  for (int i = 0; i < 200; ++i) path += "a/";
  path += "c";
  EXPECT_FALSE(tools::glob_match(pattern, path));  // backtracking would not finish before the CTest timeout
  EXPECT_TRUE(tools::glob_match("**", "x/y"));
  EXPECT_TRUE(tools::glob_match("**/**/z", "z"));
  EXPECT_FALSE(tools::glob_match("a/**", "b/c"));
}
}  // namespace
}  // namespace weld::agent

// ---- no file tool reaches outside the workspace, by any route ----
namespace weld::agent {
namespace {

class WorkspaceEscapeTest : public ToolsTest {
 protected:
  void SetUp() override {
    ToolsTest::SetUp();
    outside_ = root_.parent_path() / (root_.filename().string() + "_outside");
    fs::create_directories(outside_ / "dir");
    std::ofstream(outside_ / "secret.txt") << "SECRET outside\n";
    std::ofstream(outside_ / "dir/inner.txt") << "SECRET inner\n";
  }
  void TearDown() override {
    ToolsTest::TearDown();
    fs::remove_all(outside_);
  }
  fs::path outside_;
};

TEST_F(WorkspaceEscapeTest, grep_does_not_read_through_links_leading_outside) {
  fs::create_symlink(outside_ / "secret.txt", root_ / "abs_file_link");
  fs::create_symlink("../../" + root_.filename().string() + "_outside/secret.txt", root_ / "src/rel_file_link");
  fs::create_symlink(outside_ / "dir", root_ / "src/deep/dir_link");
  auto out = call(make_grep_search_tool(), R"({"pattern":"SECRET"})");
  EXPECT_FALSE(out.is_error) << out.content;
  EXPECT_EQ(out.content, "No matches for \"SECRET\" under " + root_.string() +
                             ".\n[3 symbolic link(s) leading outside the workspace (or nowhere) skipped]\n");
  out = call(make_grep_search_tool(), R"({"pattern":"SECRET","path":"src/deep/dir_link"})");
  EXPECT_TRUE(out.is_error);
  EXPECT_NE(out.content.find("is outside the workspace"), std::string::npos) << out.content;
  out = call(make_glob_tool(), R"({"pattern":"**"})");
  EXPECT_EQ(out.content, "3 file(s) match \"**\" under " + root_.string() + ":\na.txt\nsrc/deep/x.cc\nsrc/main.cc\n"
                         "[3 symbolic link(s) leading outside the workspace (or nowhere) skipped]\n");
  fs::create_symlink("deep", root_ / "src/deep_alias");  // inside, but walks never enter linked directories
  out = call(make_grep_search_tool(), R"({"pattern":"TODO"})");
  EXPECT_EQ(out.content, "1 match(es) for \"TODO\":\nsrc/deep/x.cc:1: // TODO fix\n"
                         "[3 symbolic link(s) leading outside the workspace (or nowhere) skipped]\n"
                         "[1 symbolic link(s) to directories not followed]\n");
  out = call(make_list_directory_tool(), R"({"path":"src/deep/dir_link"})");
  EXPECT_TRUE(out.is_error);
  EXPECT_NE(out.content.find("is outside the workspace"), std::string::npos) << out.content;
}

TEST_F(WorkspaceEscapeTest, grep_follows_links_that_stay_inside) {
  fs::create_symlink("../a.txt", root_ / "src/a_link");
  auto out = call(make_grep_search_tool(), R"({"pattern":"two"})");
  EXPECT_EQ(out.content, "2 match(es) for \"two\":\na.txt:2: two\nsrc/a_link:2: two\n");
}

TEST_F(WorkspaceEscapeTest, write_file_on_a_dangling_link_out_creates_nothing) {
  fs::create_symlink(outside_ / "created.txt", root_ / "dangling_abs");
  fs::create_symlink("../" + root_.filename().string() + "_outside/created2.txt", root_ / "dangling_rel");
  auto out = call(make_write_file_tool(), R"({"path":"dangling_abs","content":"x"})");
  EXPECT_TRUE(out.is_error);
  EXPECT_NE(out.content.find("is outside the workspace"), std::string::npos) << out.content;
  out = call(make_write_file_tool(), R"({"path":"dangling_rel","content":"x"})");
  EXPECT_TRUE(out.is_error);
  out = call(make_edit_tool(), R"({"path":"dangling_rel","old_string":"","new_string":"x"})");
  EXPECT_TRUE(out.is_error);
  EXPECT_FALSE(fs::exists(outside_ / "created.txt"));
  EXPECT_FALSE(fs::exists(outside_ / "created2.txt"));
  // A parent directory that is a link out: nothing created there either.
  fs::create_symlink(outside_ / "dir", root_ / "dir_out");
  out = call(make_write_file_tool(), R"({"path":"dir_out/new/f.txt","content":"x"})");
  EXPECT_TRUE(out.is_error);
  EXPECT_FALSE(fs::exists(outside_ / "dir/new"));
}

TEST_F(WorkspaceEscapeTest, write_through_a_link_inside_writes_its_target) {
  fs::create_symlink("a.txt", root_ / "alias");
  fs::create_symlink("src/deep/fresh.txt", root_ / "dangling_in");
  auto out = call(make_write_file_tool(), R"({"path":"alias","content":"new"})");
  EXPECT_FALSE(out.is_error) << out.content;
  EXPECT_EQ(slurp(root_ / "a.txt"), "new");
  EXPECT_TRUE(fs::is_symlink(root_ / "alias"));
  out = call(make_write_file_tool(), R"({"path":"dangling_in","content":"made"})");
  EXPECT_FALSE(out.is_error) << out.content;
  EXPECT_EQ(slurp(root_ / "src/deep/fresh.txt"), "made");
}

TEST_F(WorkspaceEscapeTest, hard_link_to_an_outside_file_is_replaced_not_written_through) {
  fs::create_hard_link(outside_ / "secret.txt", root_ / "hard.txt");
  auto out = call(make_edit_tool(), R"({"path":"hard.txt","old_string":"outside","new_string":"inside"})");
  EXPECT_FALSE(out.is_error) << out.content;
  EXPECT_EQ(slurp(root_ / "hard.txt"), "SECRET inside\n");
  EXPECT_EQ(slurp(outside_ / "secret.txt"), "SECRET outside\n");
}

TEST_F(WorkspaceEscapeTest, proc_and_deep_links_are_refused) {
  fs::create_symlink("/proc/self/cwd", root_ / "proc_link");
  auto out = call(make_read_file_tool(), R"({"path":"proc_link/etc/passwd"})");
  EXPECT_TRUE(out.is_error);
  out = call(make_read_file_tool(), R"({"path":"/proc/self/root/etc/passwd"})");
  EXPECT_TRUE(out.is_error);
  EXPECT_NE(out.content.find("is outside the workspace"), std::string::npos) << out.content;
  fs::create_symlink("../..", root_ / "src/deep/up");
  out = call(make_read_file_tool(), R"({"path":"src/deep/up/a.txt"})");
  EXPECT_FALSE(out.is_error) << out.content;  // ../.. from src/deep is the root: inside
  fs::create_symlink("../../..", root_ / "src/deep/too_far");
  const std::string args = R"({"path":"src/deep/too_far/)" + root_.filename().string() + R"(_outside/secret.txt"})";
  out = call(make_read_file_tool(), args.c_str());
  EXPECT_TRUE(out.is_error);
  EXPECT_NE(out.content.find("is outside the workspace"), std::string::npos) << out.content;
}

TEST_F(WorkspaceEscapeTest, fifo_is_refused_without_blocking) {
  ASSERT_EQ(::mkfifo((root_ / "fifo").c_str(), 0600), 0);
  auto out = call(make_read_file_tool(), R"({"path":"fifo"})");
  EXPECT_TRUE(out.is_error);
  EXPECT_EQ(out.content, "read_file: \"" + (root_ / "fifo").string() + "\" is not a regular file.");
  out = call(make_grep_search_tool(), R"({"pattern":"x"})");
  EXPECT_FALSE(out.is_error) << out.content;
}

// Both resolvers apply the same rule (the portable one runs where the kernel
// has no openat2).
TEST_F(WorkspaceEscapeTest, kernel_and_portable_resolvers_agree) {
  fs::create_symlink(outside_, root_ / "abs_out");
  fs::create_symlink("../" + root_.filename().string() + "_outside", root_ / "rel_out");
  fs::create_symlink("src/deep", root_ / "in_dir");
  fs::create_symlink("../main.cc", root_ / "src/deep/main_link");
  fs::create_symlink("loop_b", root_ / "loop_a");
  fs::create_symlink("loop_a", root_ / "loop_b");
  struct Case {
    const char* path;
    const char* code;  // "" when the open succeeds
  };
  const Case cases[] = {{"a.txt", ""},
                        {"in_dir/x.cc", ""},
                        {"in_dir/main_link", ""},
                        {"in_dir/../main.cc", ""},
                        {"abs_out/secret.txt", "outside"},
                        {"rel_out/secret.txt", "outside"},
                        {"in_dir/../../../x", "outside"},
                        {"loop_a", "outside"},
                        {"missing", "not_found"}};
  for (tools::Resolver resolver : {tools::Resolver::Kernel, tools::Resolver::Portable}) {
    for (const Case& c : cases) {
      // Build the WorkspacePath without lexical normalisation, so ".." reaches the resolver.
      tools::WorkspacePath path{root_.string() + "/" + c.path, c.path};
      auto fd = tools::open_in_workspace(root_.string(), path, O_RDONLY, 0, true, resolver);
      if (!fd && fd.error().code == ErrorCode::Io && resolver == tools::Resolver::Kernel) break;  // no openat2 here
      EXPECT_EQ(fd ? std::string() : std::string(error_code_name(fd.error().code)), c.code)
          << c.path << (resolver == tools::Resolver::Kernel ? " (kernel)" : " (portable)");
    }
  }
}

}  // namespace
}  // namespace weld::agent
