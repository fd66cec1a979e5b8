#pragma once
// The two transports of an MCP server in a run (docs/run.md, "MCP servers"): a
// child process over stdio (client.cc) and Streamable HTTP (http_client.cc).
// McpServers and the tools it offers talk to either through this interface.

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "weld/agent/mcp.h"

namespace weld::agent {

/// One MCP server's connection.
class McpConnection {
 public:
  using Clock = std::chrono::steady_clock;
  virtual ~McpConnection() = default;
  virtual const McpServerConfig& config() const = 0;
  /// Sends a request and waits for its response until `deadline`. Error
  /// codes: "timeout", "cancelled", "mcp" (anything else, with a message).
  virtual Result<json::Value> request(const std::string& method, json::Value params, Clock::time_point deadline,
                                      const provider::CancelToken* cancel) = 0;
  /// Sends a notification.
  virtual Status notify(const std::string& method) = 0;
  /// More about a failure, e.g. "; its stderr ends: …", or "".
  virtual std::string failure_note() { return ""; }
  /// Ends the connection (kills the process; ends the HTTP session).
  /// Idempotent; callable from any thread.
  virtual void stop() = 0;
  /// The process id of a stdio server; 0 for HTTP.
  virtual int pid() const { return 0; }
};

/// A Streamable HTTP connection to `config.url` (nothing is sent until the
/// first request).
std::shared_ptr<McpConnection> make_http_connection(McpServerConfig config);

/// The result of a JSON-RPC response to `method`, or its error as an Error
/// ("<method> failed: error <code>: <message>").
Result<json::Value> response_result(JsonRpcMessage&& response, const std::string& method);

/// weld's reply to a request a server sends: `ping` is answered, anything
/// else is "Method not found" (a run offers no client capabilities).
json::Value reply_to_server_request(const JsonRpcMessage& request);

}  // namespace weld::agent
