#include "fake_model_process.h"

#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "weld/json/parse.h"

extern char** environ;

namespace weld::testing {

FakeModelServer::FakeModelServer(const std::string& script_json) {
  using namespace std::chrono_literals;
  char dir_template[] = "/tmp/weld-fake-XXXXXX";
  if (mkdtemp(dir_template) == nullptr) return;
  dir_ = dir_template;
  std::ofstream(dir_ + "/script.json") << script_json;
  int fds[2];
  if (pipe(fds) != 0) return;
  out_fd_ = fds[0];
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  std::vector<std::string> args = {WELD_NODE, std::string(WELD_SOURCE_DIR) + "/tests/fake_model/server.js",
                                   "--script", dir_ + "/script.json", "--record", dir_ + "/requests.jsonl",
                                   "--port", "0"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  if (posix_spawn(&pid_, WELD_NODE, &actions, nullptr, argv.data(), environ) != 0) pid_ = -1;
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  std::string line;
  auto deadline = std::chrono::steady_clock::now() + 20s;
  while (pid_ > 0 && std::chrono::steady_clock::now() < deadline) {
    pollfd pfd{out_fd_, POLLIN, 0};
    if (poll(&pfd, 1, 100) <= 0) continue;
    char c;
    if (read(out_fd_, &c, 1) != 1) break;
    if (c == '\n') break;
    line.push_back(c);
  }
  auto parsed = json::parse(line);
  if (parsed && parsed->find("port")) port_ = static_cast<int>(parsed->find("port")->as_integer());
}

FakeModelServer::~FakeModelServer() {
  if (pid_ > 0) {
    kill(pid_, SIGTERM);
    waitpid(pid_, nullptr, 0);
  }
  if (out_fd_ >= 0) close(out_fd_);
  std::error_code ignored;
  if (!dir_.empty()) std::filesystem::remove_all(dir_, ignored);
}

std::vector<json::Value> FakeModelServer::requests() const {
  std::ifstream in(dir_ + "/requests.jsonl");
  std::vector<json::Value> out;
  std::string line;
  while (std::getline(in, line))
    if (auto v = json::parse(line)) out.push_back(std::move(*v));
  return out;
}

}  // namespace weld::testing
