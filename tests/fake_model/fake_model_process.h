#pragma once
// C++ tests' handle on the fake model server (tests/fake_model/server.js):
// starts `node server.js --script FILE --record FILE --port 0` on 127.0.0.1,
// reads the port it prints (waiting at most 20 s), and stops it on
// destruction. Compile fake_model_process.cc into the test, link weld_agent
// and define WELD_NODE (the node binary) and WELD_SOURCE_DIR (weld_test() does).
//
//   weld::testing::FakeModelServer server(R"({"responses":[{"text":"hi"}]})");
//   if (server.port() == 0) GTEST_FAIL() << "the fake model server did not start";
//   ... requests to server.url() ...
//   std::vector<json::Value> seen = server.requests();

#include <memory>
#include <string>
#include <vector>

#include "weld/agent/subprocess.h"
#include "weld/json/value.h"

namespace weld::testing {

class FakeModelServer {
 public:
  /// Starts the server with `script_json` (see tests/fake_model/README.md).
  explicit FakeModelServer(const std::string& script_json);
  ~FakeModelServer();
  FakeModelServer(const FakeModelServer&) = delete;
  FakeModelServer& operator=(const FakeModelServer&) = delete;

  /// 0 when the server did not start.
  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  /// The requests the server received, as recorded (one JSON object each:
  /// method, path, headers, body).
  std::vector<json::Value> requests() const;

 private:
  std::string dir_;
  std::unique_ptr<agent::Subprocess> server_;  ///< weld's subprocess runner (tests/support/child_process.h)
  int port_ = 0;
};

}  // namespace weld::testing
