#pragma once
// The upstream side of one client connection's requests: the
// request head weld sends, an upstream connection from the worker's pool
// (or a new one) with the request written and the response header read,
// retrying once on a pooled connection the server had closed, bodies read
// whole, and connections handed back to the pool. Every wait registers the
// upstream connection with the client connection, so a client that leaves
// cancels it.

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "client_request.h"
#include "core.h"
#include "request_trace.h"
#include "upstream_parser.h"

namespace weld::proxy {

class ClientConnection;

class UpstreamClient {
 public:
  UpstreamClient(Worker& worker, ClientConnection& client, const RequestTrace& trace)
      : worker_(worker), shared_(worker.shared), client_(client), trace_(trace) {}

  /// The upstream request's head for the client's `req`: its end-to-end
  /// fields (hop-by-hop ones, and those the Connection field names, left
  /// out), the upstream's Host and path prefix, Content-Length `body_size`,
  /// our traceparent when telemetry is on. `tagged`: without the client's
  /// Accept, Accept-Encoding and X-Agent-Name, asking for a stream or JSON.
  std::string head(const ClientRequest& req, bool tagged, std::size_t body_size) const;
  /// Sends head+body and reads the response header into `parser` (past
  /// interim 1xx answers), on a pooled connection or a new one; retries once
  /// on a pooled connection that turned out to be closed. The error's code:
  /// cancelled (the client left), timeout, connect, truncated, protocol.
  awaitable<std::optional<Error>> open(std::string_view head, std::string_view body,
                                       std::optional<UpstreamParser>& parser,
                                       std::unique_ptr<UpstreamConnection>& connection, bool head_request,
                                       std::chrono::milliseconds connect_timeout,
                                       std::chrono::milliseconds read_timeout);
  /// Reads the rest of a (small) body into `out`, up to `limit` bytes
  /// (http::error::body_limit past it; operation_aborted when the client left).
  awaitable<error_code> read_body(UpstreamConnection& connection, UpstreamParser& parser, std::string& out,
                                  std::size_t limit, std::chrono::milliseconds timeout);
  /// Returns the connection to the worker's pool when it may carry the next
  /// request after the response `parser` read; drops (closes) it otherwise.
  void release(std::unique_ptr<UpstreamConnection> connection, const UpstreamParser& parser);

 private:
  Worker& worker_;
  Shared& shared_;
  ClientConnection& client_;
  const RequestTrace& trace_;
};

}  // namespace weld::proxy
