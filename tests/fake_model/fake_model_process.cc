#include "fake_model_process.h"

#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "child_process.h"
#include "weld/json/parse.h"

namespace weld::testing {

FakeModelServer::FakeModelServer(const std::string& script_json) {
  using namespace std::chrono_literals;
  char dir_template[] = "/tmp/weld-fake-XXXXXX";
  if (mkdtemp(dir_template) == nullptr) return;
  dir_ = dir_template;
  std::ofstream(dir_ + "/script.json") << script_json;
  server_ = start_child({WELD_NODE, std::string(WELD_SOURCE_DIR) + "/tests/fake_model/server.js", "--script",
                         dir_ + "/script.json", "--record", dir_ + "/requests.jsonl", "--port", "0"});
  if (!server_) return;
  // Its first line: {"port": N}.
  auto parsed = json::parse(wait_for_line(*server_, "{", 20s));
  if (parsed && parsed->find("port")) port_ = static_cast<int>(parsed->find("port")->as_integer());
}

FakeModelServer::~FakeModelServer() {
  server_.reset();  // stopped before its files go
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
