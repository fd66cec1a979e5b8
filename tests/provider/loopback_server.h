#pragma once
// A scripted HTTP/1.1 server on 127.0.0.1 (port 0) for the transport tests:
// each connection gets the next scripted response, written action by action
// (bytes, pauses, an early close), so tests can produce exactly the failures
// a real network produces: refused connections, stalls, truncated chunked
// bodies, Retry-After. It records every request it receives.
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace weld::provider::testing {

struct RecordedRequest {
  std::string method;
  std::string target;
  std::vector<std::pair<std::string, std::string>> headers;  // names lowercased
  std::string body;
  std::string header(const std::string& lower_name) const {
    for (const auto& [k, v] : headers)
      if (k == lower_name) return v;
    return "";
  }
};

struct Action {
  enum class Kind { Write, Pause } kind = Kind::Write;
  std::string bytes;
  std::chrono::milliseconds pause{0};
};

struct ScriptedResponse {
  std::vector<Action> actions;  // after the last action the connection closes
};

// A complete response: status, headers, body (Content-Length).
ScriptedResponse plain_response(int status, const std::string& content_type, const std::string& body,
                                const std::vector<std::pair<std::string, std::string>>& headers = {});
// An SSE response written with chunked encoding, one chunk per element of
// `chunks`, with `pause` between them. `terminate` false: the connection
// closes without the final 0-length chunk (a truncated stream).
ScriptedResponse sse_response(const std::vector<std::string>& chunks,
                              std::chrono::milliseconds pause = std::chrono::milliseconds(0),
                              bool terminate = true, int status = 200);

class LoopbackServer {
 public:
  explicit LoopbackServer(std::vector<ScriptedResponse> script);
  ~LoopbackServer();
  LoopbackServer(const LoopbackServer&) = delete;
  LoopbackServer& operator=(const LoopbackServer&) = delete;

  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::vector<RecordedRequest> requests();
  // Blocks until `n` requests were received or `timeout` passes.
  bool wait_for_requests(std::size_t n, std::chrono::milliseconds timeout);

 private:
  void serve();
  void handle(int fd);
  bool pause_or_stop(std::chrono::milliseconds duration);

  int listen_fd_ = -1;
  int port_ = 0;
  std::vector<ScriptedResponse> script_;
  std::size_t next_ = 0;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::vector<RecordedRequest> requests_;
  std::thread thread_;
};

// A port with nothing listening on it (bound, then closed).
int unused_port();

}  // namespace weld::provider::testing
