#pragma once
// One client connection's requests, one after the other: each is
// read by the ClientConnection, then answered by the unit it belongs to —
// LocalEndpoints, the Relay (untagged) or the TaggedExchange — and written to
// the access log, the metrics and its span. The units, each with one job:
//
//   Session ─┬─ ClientConnection   the socket: requests in, answers out, timeouts
//            ├─ LocalEndpoints     /healthz, /readyz, /metrics
//            ├─ Relay              untagged requests, byte-for-byte
//            ├─ TaggedExchange     tagged requests through the filter chain
//            └─ UpstreamClient     the upstream connections (pooled) and heads
//
// Dependencies go down the list: the exchange uses the relay (a request the
// chain passes through), both use the upstream client and the client
// connection; the client connection knows none of them. Lives in its
// coroutine's frame on one worker thread, so it needs no locks.

#include <string>

#include "client_connection.h"
#include "core.h"
#include "local_endpoints.h"
#include "relay.h"
#include "request_log.h"
#include "request_trace.h"
#include "upstream_client.h"
#include "weld_exchange.h"

namespace weld::proxy {

class Session final {
 public:
  Session(Worker& worker, tcp::socket socket);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  /// Serves requests until the connection closes.
  awaitable<void> run();
  /// Shutdown: closes the connection if it is waiting for a new request.
  void close_if_idle() { client_.close_if_idle(); }
  /// End of the shutdown timeout: a request still in flight that has had no
  /// answer yet gets a 503 in its API's error shape (written at once, as far
  /// as the socket takes it); then the connection and its upstream request
  /// are closed. The worker stops right after.
  void abandon();

 private:
  /// Hands a request that was read to the unit that answers it.
  awaitable<void> handle(ClientRequest& req, RequestLog& log);
  void write_log(const RequestLog& log);

  Worker& worker_;
  Shared& shared_;
  RequestTrace trace_;
  ClientConnection client_;
  UpstreamClient upstream_;
  LocalEndpoints local_;
  Relay relay_;
  TaggedExchange tagged_;
  std::string path_;                   // the request in flight's path, for abandon()'s error shape
  RequestLog* current_log_ = nullptr;  // the request in flight's, for abandon()
};

}  // namespace weld::proxy
