#pragma once
/// \file
/// MCP servers in a run (docs/run.md, "MCP servers"): servers from settings `mcpServers`,
/// spoken to with JSON-RPC 2.0 over newline-delimited stdio, or over
/// Streamable HTTP for `url` entries (initialize, notifications/initialized,
/// tools/list, tools/call). Their
/// tools are offered under their own names; one named `structured_output`
/// (or one that collides with a built-in or an earlier server's tool) is
/// offered as `mcp__<server>__<name>`. A server that fails to start or
/// times out is left out with a warning; the run goes on. Every server is
/// killed (its whole process group) when the run ends.
///
/// \code
///   weld::agent::McpServers servers;
///   servers.start(settings.mcp_servers, cwd, {"read_file", "glob"}, &cancel);
///   for (const auto& warning : servers.warnings()) print_warning(warning);
///   for (const weld::agent::Tool* tool : servers.tools()) tools.push_back(tool);
///   … weld::agent::run(…) …
///   servers.stop_all();   // also safe from another thread (signal deadline)
/// \endcode

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "weld/agent/tool.h"
#include "weld/base/result.h"
#include "weld/json/value.h"
#include "weld/provider/model.h"

namespace weld::agent {

/// One `mcpServers` entry: a stdio server `{"command": …, "args": […],
/// "env": {…}, "cwd": …}` or a Streamable HTTP server `{"url": …, "headers":
/// {…}}` (also `"httpUrl"`, `"type": "http"`), each with "timeout" (ms per
/// tool call) and "startupTimeout" (ms for initialize + tools/list).
struct McpServerConfig {
  std::string name;
  /// Streamable HTTP: the endpoint, and headers sent with every request
  /// (e.g. Authorization; never printed). Empty url: a stdio server.
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string command;
  std::vector<std::string> args;
  /// Added to weld's own environment.
  std::vector<std::pair<std::string, std::string>> env;
  /// Working directory; empty: the run's.
  std::string cwd;
  std::chrono::milliseconds startup_timeout{30'000};
  std::chrono::milliseconds call_timeout{600'000};
};

/// Reads a settings `mcpServers` object into `out` (an entry whose name is
/// already there replaces it). Errors name the file and the field.
Status parse_mcp_servers(const json::Value& value, const std::string& file, std::vector<McpServerConfig>& out);

// ---- JSON-RPC 2.0 over newline-delimited stdio (parsing is fuzzed) ----

/// Splits a byte stream into lines. A line longer than `max_line` bytes is
/// an overflow (the stream is then unusable).
class JsonRpcLineReader {
 public:
  explicit JsonRpcLineReader(std::size_t max_line = 64u << 20) : max_line_(max_line) {}
  /// Appends bytes; false on overflow.
  bool feed(std::string_view bytes);
  /// The next complete line (without "\n" or a trailing "\r"), if any.
  std::optional<std::string> next_line();
  bool overflowed() const { return overflowed_; }

 private:
  std::string buffer_;
  std::size_t start_ = 0;
  std::size_t max_line_;
  bool overflowed_ = false;
};

/// One decoded JSON-RPC message.
struct JsonRpcMessage {
  enum class Kind { Response, Request, Notification, Invalid };
  Kind kind = Kind::Invalid;
  /// Request/response id (integer or string); null for notifications.
  json::Value id;
  /// Requests and notifications.
  std::string method;
  json::Value params;
  /// Responses: exactly one of `result` and `error` (code, message).
  std::optional<json::Value> result;
  std::optional<std::pair<std::int64_t, std::string>> error;
  /// Invalid: why.
  std::string problem;
};

/// Decodes one line. Never throws; anything malformed is `Kind::Invalid`
/// with a `problem`.
JsonRpcMessage parse_jsonrpc_message(std::string_view line);

/// A tool a server lists.
struct McpToolInfo {
  std::string name;
  std::string description;
  json::Value input_schema;
  /// `annotations.readOnlyHint`.
  bool read_only = false;
};

/// The tools of a `tools/list` result, and its `nextCursor` (if any).
/// Entries without a string name are skipped; a result without a `tools`
/// array is an Error.
Result<std::vector<McpToolInfo>> parse_tools_list(const json::Value& result, std::optional<std::string>& next_cursor);

/// A `tools/call` result as a tool result: text content joined by
/// newlines, other content described (`[image: image/png, 1234 bytes of
/// base64]`), `structuredContent` serialised when there is no text,
/// `isError` kept.
ToolOutput tool_output_from_call_result(const json::Value& result);

/// The name a tool is offered under: `tool` when free, else
/// `mcp__<server>__<tool>` (docs/run.md, "MCP servers"), both cut to the 64 characters
/// and the `[A-Za-z0-9_-]` the provider APIs accept. nullopt when even the
/// prefixed name is taken.
std::optional<std::string> mcp_offered_name(std::string_view server, std::string_view tool,
                                            const std::vector<std::string>& taken);

class McpConnection;

/// The MCP servers of one run.
class McpServers {
 public:
  McpServers();
  ~McpServers();
  McpServers(const McpServers&) = delete;
  McpServers& operator=(const McpServers&) = delete;

  /// Starts every server (all processes first, so they boot in parallel),
  /// initializes each and lists its tools. `taken` are the names already
  /// offered (built-in tools); structured_output is always taken.
  void start(const std::vector<McpServerConfig>& servers, const std::string& cwd,
             const std::vector<std::string>& taken, const provider::CancelToken* cancel);

  /// The tools to offer (owned here; valid until destruction).
  std::vector<const Tool*> tools() const;
  /// Drops the tools whose offered names `keep` rejects (deny rules).
  template <typename Predicate>
  void filter_tools(Predicate keep) {
    std::vector<std::unique_ptr<Tool>> kept;
    for (auto& tool : tools_)
      if (keep(*tool)) kept.push_back(std::move(tool));
    tools_ = std::move(kept);
  }
  /// One line per server that was left out, ready for stderr.
  const std::vector<std::string>& warnings() const { return warnings_; }
  /// (name, "connected" | "failed") in settings order.
  const std::vector<std::pair<std::string, std::string>>& status() const { return status_; }
  /// Process ids of the running servers (tests and diagnostics).
  std::vector<int> pids() const;

  /// Terminates every server's process group (SIGTERM, then SIGKILL after
  /// a short grace) and reaps it. Idempotent; callable from any thread.
  void stop_all();

 private:
  std::vector<std::shared_ptr<McpConnection>> clients_;
  std::vector<std::unique_ptr<Tool>> tools_;
  std::vector<std::string> warnings_;
  std::vector<std::pair<std::string, std::string>> status_;
  mutable std::mutex mutex_;
};

}  // namespace weld::agent
