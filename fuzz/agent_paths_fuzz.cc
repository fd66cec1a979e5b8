// Fuzzes the workspace rule of the file tools (src/agent/tools/paths.cc,
// docs/run.md "File tools stay in the working directory") against a fixed tree full of symbolic links (inside, out,
// absolute, dangling, loops, /proc): whatever path the model writes, and
// with either resolver, what gets opened is the workspace or beneath it.
#include <fcntl.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "../src/agent/tools/paths.h"

namespace {
namespace fs = std::filesystem;

struct Tree {
  std::string base;
  std::string root;  // the workspace (real path)
  ~Tree() {
    std::error_code ignored;
    fs::remove_all(base, ignored);
  }
  Tree() {
    char dir_template[] = "/tmp/weld-paths-fuzz-XXXXXX";
    char* made = ::mkdtemp(dir_template);
    if (made == nullptr) std::abort();
    base = made;
    fs::create_directories(fs::path(base) / "ws/a/b");
    fs::create_directories(fs::path(base) / "outside");
    std::ofstream(fs::path(base) / "ws/a/f") << "inside";
    std::ofstream(fs::path(base) / "outside/secret") << "outside";
    fs::create_symlink("a/f", fs::path(base) / "ws/in");
    fs::create_symlink("../outside", fs::path(base) / "ws/out");
    fs::create_symlink("../../..", fs::path(base) / "ws/a/b/up3");
    fs::create_symlink("..", fs::path(base) / "ws/a/b/up1");
    fs::create_symlink(fs::path(base) / "outside", fs::path(base) / "ws/abs");
    fs::create_symlink("/proc/self/cwd", fs::path(base) / "ws/proc");
    fs::create_symlink("missing/../../outside/secret", fs::path(base) / "ws/dangling");
    fs::create_symlink("loop2", fs::path(base) / "ws/loop1");
    fs::create_symlink("loop1", fs::path(base) / "ws/loop2");
    root = fs::canonical(fs::path(base) / "ws").string();
  }
};

bool beneath(const std::string& root, int fd) {
  char target[4096];
  ssize_t n = ::readlink(("/proc/self/fd/" + std::to_string(fd)).c_str(), target, sizeof target - 1);
  if (n < 0) return true;  // no /proc: nothing to check against
  std::string_view path(target, static_cast<std::size_t>(n));
  return path == root || (path.size() > root.size() && path.substr(0, root.size()) == root && path[root.size()] == '/');
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static Tree tree;
  std::string_view text(reinterpret_cast<const char*>(data), size > 512 ? 512 : size);
  auto path = weld::agent::tools::workspace_path(tree.root, text);
  if (!path) return 0;
  for (auto resolver : {weld::agent::tools::Resolver::Kernel, weld::agent::tools::Resolver::Portable}) {
    for (bool follow : {true, false}) {
      auto fd = weld::agent::tools::open_in_workspace(tree.root, *path, O_RDONLY | O_NONBLOCK, 0, follow, resolver);
      if (fd && !beneath(tree.root, fd->get())) std::abort();
      // The same path as the model could also give it, unnormalised.
      weld::agent::tools::WorkspacePath raw{tree.root + "/" + std::string(text), std::string(text)};
      if (!text.empty() && text.front() != '/' && text.find('\0') == std::string_view::npos) {
        auto raw_fd = weld::agent::tools::open_in_workspace(tree.root, raw, O_RDONLY | O_NONBLOCK, 0, follow, resolver);
        if (raw_fd && !beneath(tree.root, raw_fd->get())) std::abort();
      }
    }
  }
  return 0;
}
