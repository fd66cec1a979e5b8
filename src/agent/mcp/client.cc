// The MCP client of a run (docs/run.md, "MCP servers"): one child process per server, started
// by the subprocess runner (own process group, no provider keys in its
// environment beyond the server's own `env`), JSON-RPC requests with deadlines over its stdin and
// stdout, its stderr drained in the background (a chatty server must not
// block on a full pipe) and kept for error messages, and a stop that kills
// the whole group, so no server outlives the run — SIGINT included (the
// CLI's signal deadline calls stop_all before it exits).

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <thread>

#include "connection.h"
#include "weld/agent/mcp.h"
#include "weld/agent/subprocess.h"
#include "weld/json/serialize.h"

namespace weld::agent {

using Clock = std::chrono::steady_clock;

/// One running server.
class McpClient : public McpConnection {
 public:
  explicit McpClient(McpServerConfig config) : config_(std::move(config)) {}
  ~McpClient() override { stop(); }
  McpClient(const McpClient&) = delete;
  McpClient& operator=(const McpClient&) = delete;

  const McpServerConfig& config() const override { return config_; }
  int pid() const override { return process_ ? process_->pid() : -1; }

  /// Starts the process. An Error says why it could not be started.
  Status spawn(const std::string& run_cwd) {
    SubprocessOptions options;
    options.argv = {config_.command};
    options.argv.insert(options.argv.end(), config_.args.begin(), config_.args.end());
    options.cwd = config_.cwd.empty() ? run_cwd : config_.cwd;
    if (!config_.cwd.empty() && config_.cwd.front() != '/') options.cwd = run_cwd + "/" + config_.cwd;
    options.env = config_.env;  // the server's own entries apply on top of the scrubbed environment
    options.stdin_mode = SubprocessOptions::Input::Pipe;
    options.stdout_mode = SubprocessOptions::Output::Pipe;
    options.stderr_mode = SubprocessOptions::Output::Pipe;
    options.die_with_parent = true;  // weld killed outright: the server follows
    auto started = Subprocess::start(options);
    if (!started) return Error{ErrorCode::Mcp, started.error().message, ""};
    process_ = std::move(*started);
    stdin_fd_ = process_->stdin_fd();
    stdout_fd_ = process_->stdout_fd();
    stderr_fd_ = process_->stderr_fd();
    stderr_thread_ = std::thread([this] { drain_stderr(); });
    return Ok{};
  }

  /// Sends a request and waits for its response until `deadline`.
  Result<json::Value> request(const std::string& method, json::Value params, Clock::time_point deadline,
                              const provider::CancelToken* cancel) override {
    const std::int64_t id = next_id_++;
    json::Value message = json::Object{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
    if (Status sent = send(message); !sent) return sent.error();
    for (;;) {
      while (std::optional<std::string> line = reader_.next_line()) {
        JsonRpcMessage incoming = parse_jsonrpc_message(*line);
        switch (incoming.kind) {
          case JsonRpcMessage::Kind::Response:
            if (!(incoming.id.is_integer() && incoming.id.as_integer() == id)) break;  // a late answer to an abandoned request
            return response_result(std::move(incoming), method);
          case JsonRpcMessage::Kind::Request:
            (void)send(reply_to_server_request(incoming));
            break;
          case JsonRpcMessage::Kind::Notification:
          case JsonRpcMessage::Kind::Invalid:
            break;  // logging, list_changed, and stray output: nothing a run needs
        }
      }
      if (reader_.overflowed()) return Error{ErrorCode::Mcp, "sent a line longer than 64 MiB", ""};
      if (cancel && cancel->cancelled.load()) {
        notify_cancelled(id, "cancelled");
        return Error{ErrorCode::Cancelled, "Operation cancelled.", ""};
      }
      auto now = Clock::now();
      if (now >= deadline) {
        notify_cancelled(id, "timed out");
        return Error{ErrorCode::Timeout, method + " timed out", ""};
      }
      auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count();
      pollfd pfd{stdout_fd_, POLLIN, 0};
      int ready = ::poll(&pfd, 1, static_cast<int>(wait < 50 ? wait : 50));
      if (ready < 0 && errno != EINTR) return os_error("poll");
      if (ready <= 0) continue;
      char buffer[65536];
      ssize_t n = ::read(stdout_fd_, buffer, sizeof buffer);
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n <= 0) return Error{ErrorCode::Mcp, "the server exited or closed its stdio" + stderr_note(), ""};
      reader_.feed(std::string_view(buffer, static_cast<std::size_t>(n)));
    }
  }

  Status notify(const std::string& method) override {
    return send(json::Object{{"jsonrpc", "2.0"}, {"method", method}});
  }

  /// The last lines the server wrote on stderr, as " (stderr: …)", or "".
  std::string failure_note() override { return stderr_note(); }

  std::string stderr_note() {
    // The server has gone (or will not answer): let the drain thread read
    // what it said last, briefly.
    auto until = Clock::now() + std::chrono::milliseconds(200);
    while (!stderr_eof_.load() && Clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    std::lock_guard lock(stderr_mutex_);
    std::string text = stderr_tail_;
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) text.pop_back();
    if (text.empty()) return "";
    return "; its stderr ends: " + json::quote(text);
  }

  /// SIGTERM to the group, a short grace, then SIGKILL; reaps the child.
  /// The pipes stay open until the client is destroyed (another thread may
  /// still be polling them).
  void stop() override {
    std::lock_guard lock(stop_mutex_);
    if (process_) process_->stop(std::chrono::milliseconds(300));
    stop_stderr_ = true;
    if (stderr_thread_.joinable() && stderr_thread_.get_id() != std::this_thread::get_id()) stderr_thread_.join();
  }

 private:
  static Error os_error(const char* what) { return Error{ErrorCode::Mcp, std::string(what) + ": " + std::strerror(errno), ""}; }

  Status send(const json::Value& message) {
    std::string line = json::serialize(message);
    line += '\n';
    // A server that exited turns the write into EPIPE; the SIGPIPE that
    // comes with it is blocked in this thread and consumed, so the library
    // does not depend on the program ignoring SIGPIPE.
    sigset_t pipe_set, previous;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    ::pthread_sigmask(SIG_BLOCK, &pipe_set, &previous);
    std::size_t offset = 0;
    bool broken = false;
    while (offset < line.size()) {
      ssize_t n = ::write(stdin_fd_, line.data() + offset, line.size() - offset);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        broken = true;
        if (errno == EPIPE) {
          timespec zero{0, 0};
          ::sigtimedwait(&pipe_set, nullptr, &zero);
        }
        break;
      }
      offset += static_cast<std::size_t>(n);
    }
    ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    if (broken) return Error{ErrorCode::Mcp, "the server exited or closed its stdio" + stderr_note(), ""};
    return Ok{};
  }

  void notify_cancelled(std::int64_t id, const char* reason) {
    (void)send(json::Object{{"jsonrpc", "2.0"},
                            {"method", "notifications/cancelled"},
                            {"params", json::Object{{"requestId", id}, {"reason", reason}}}});
  }

  void drain_stderr() {
    char buffer[4096];
    while (!stop_stderr_.load()) {
      pollfd pfd{stderr_fd_, POLLIN, 0};
      int ready = ::poll(&pfd, 1, 100);
      if (ready <= 0) continue;
      ssize_t n = ::read(stderr_fd_, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        stderr_eof_ = true;
        return;
      }
      std::lock_guard lock(stderr_mutex_);
      stderr_tail_.append(buffer, static_cast<std::size_t>(n));
      constexpr std::size_t kKeep = 2048;
      if (stderr_tail_.size() > kKeep) stderr_tail_.erase(0, stderr_tail_.size() - kKeep);
    }
  }

  McpServerConfig config_;
  std::unique_ptr<Subprocess> process_;
  int stdin_fd_ = -1;
  int stdout_fd_ = -1;
  int stderr_fd_ = -1;
  std::int64_t next_id_ = 1;
  JsonRpcLineReader reader_;
  std::thread stderr_thread_;
  std::atomic<bool> stop_stderr_{false};
  std::atomic<bool> stderr_eof_{false};
  std::mutex stderr_mutex_;
  std::string stderr_tail_;
  std::mutex stop_mutex_;
};

namespace {

/// An MCP tool, offered under `offered` and called by its own name.
class McpTool : public Tool {
 public:
  McpTool(std::shared_ptr<McpConnection> client, McpToolInfo info, std::string offered)
      : client_(std::move(client)), info_(std::move(info)), offered_(std::move(offered)) {}
  std::string name() const override { return offered_; }
  std::string description() const override { return info_.description; }
  json::Value parameters() const override { return info_.input_schema; }
  bool has_side_effects() const override { return !info_.read_only; }
  ToolOutput run(const json::Value& arguments, const ToolContext& context) const override {
    const McpServerConfig& config = client_->config();
    auto deadline = Clock::now() + config.call_timeout;
    Result<json::Value> result = client_->request(
        "tools/call", json::Object{{"name", info_.name}, {"arguments", arguments}}, deadline, context.cancel);
    if (!result) {
      std::string message = result.error().code == ErrorCode::Timeout
                                ? "timed out after " + std::to_string(config.call_timeout.count()) + " ms"
                                : result.error().message;
      return {"MCP server \"" + config.name + "\", tool \"" + info_.name + "\": " + message, true};
    }
    return tool_output_from_call_result(*result);
  }

 private:
  std::shared_ptr<McpConnection> client_;
  McpToolInfo info_;
  std::string offered_;
};

constexpr const char* kProtocolVersion = "2025-06-18";

}  // namespace

McpServers::McpServers() = default;
McpServers::~McpServers() { stop_all(); }

void McpServers::start(const std::vector<McpServerConfig>& servers, const std::string& cwd,
                       const std::vector<std::string>& taken_in, const provider::CancelToken* cancel) {
  std::vector<std::string> taken = taken_in;
  std::vector<std::shared_ptr<McpConnection>> spawned(servers.size());
  std::vector<Clock::time_point> deadlines(servers.size());
  std::vector<std::string> failures(servers.size());
  for (std::size_t i = 0; i < servers.size(); ++i) {
    deadlines[i] = Clock::now() + servers[i].startup_timeout;
    std::shared_ptr<McpConnection> client;
    if (!servers[i].url.empty()) {
      client = make_http_connection(servers[i]);  // Streamable HTTP
    } else {
      auto stdio = std::make_shared<McpClient>(servers[i]);
      Status started = stdio->spawn(cwd);
      if (!started) {
        failures[i] = started.error().message;
        continue;
      }
      client = std::move(stdio);
    }
    spawned[i] = client;
    std::lock_guard lock(mutex_);
    clients_.push_back(client);
  }
  for (std::size_t i = 0; i < servers.size(); ++i) {
    const McpServerConfig& config = servers[i];
    std::shared_ptr<McpConnection> client = spawned[i];
    std::vector<McpToolInfo> listed;
    if (client) {
      Result<json::Value> init = client->request(
          "initialize",
          json::Object{{"protocolVersion", kProtocolVersion},
                       {"capabilities", json::Object{}},
                       {"clientInfo", json::Object{{"name", "weld"}, {"version", "0.1.0"}}}},
          deadlines[i], cancel);
      if (!init) {
        failures[i] = init.error().code == ErrorCode::Timeout
                          ? "no answer to initialize within " + std::to_string(config.startup_timeout.count()) + " ms" +
                                client->failure_note()
                          : init.error().message;
      } else if (Status s = client->notify("notifications/initialized"); !s) {
        failures[i] = s.error().message;
      } else {
        std::optional<std::string> cursor;
        for (int page = 0; page < 100; ++page) {
          json::Value params = json::Object{};
          if (cursor) params.set("cursor", *cursor);
          Result<json::Value> list = client->request("tools/list", std::move(params), deadlines[i], cancel);
          if (!list) {
            failures[i] = list.error().code == ErrorCode::Timeout
                              ? "no answer to tools/list within " + std::to_string(config.startup_timeout.count()) +
                                    " ms"
                              : list.error().message;
            break;
          }
          Result<std::vector<McpToolInfo>> tools = parse_tools_list(*list, cursor);
          if (!tools) {
            failures[i] = tools.error().message;
            break;
          }
          for (auto& tool : *tools) listed.push_back(std::move(tool));
          if (!cursor) break;
        }
      }
    }
    if (!failures[i].empty()) {
      if (client) client->stop();
      warnings_.push_back("weld: warning: MCP server \"" + config.name + "\" is not available (" + failures[i] +
                          "); continuing without its tools.");
      status_.emplace_back(config.name, "failed");
      continue;
    }
    status_.emplace_back(config.name, "connected");
    for (auto& info : listed) {
      std::optional<std::string> offered = mcp_offered_name(config.name, info.name, taken);
      if (!offered) {
        warnings_.push_back("weld: warning: MCP server \"" + config.name + "\": tool \"" + info.name +
                            "\" left out: its name is taken.");
        continue;
      }
      taken.push_back(*offered);
      tools_.push_back(std::make_unique<McpTool>(client, std::move(info), *offered));
    }
  }
}

std::vector<const Tool*> McpServers::tools() const {
  std::vector<const Tool*> out;
  for (const auto& tool : tools_) out.push_back(tool.get());
  return out;
}

std::vector<int> McpServers::pids() const {
  std::lock_guard lock(mutex_);
  std::vector<int> out;
  for (const auto& client : clients_)
    if (client->pid() > 0) out.push_back(client->pid());
  return out;
}

void McpServers::stop_all() {
  std::vector<std::shared_ptr<McpConnection>> clients;
  {
    std::lock_guard lock(mutex_);
    clients = clients_;
  }
  for (auto& client : clients) client->stop();
}

}  // namespace weld::agent
