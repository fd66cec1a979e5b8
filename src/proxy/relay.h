#pragma once
// Untagged requests (docs/proxy.md, "Tagging a request"): relayed byte-for-byte, streaming
// included — each piece of the upstream body is written to the client as it
// arrives, never buffered whole, never parsed.

#include "client_request.h"
#include "core.h"
#include "request_log.h"
#include "request_trace.h"

namespace weld::proxy {

class ClientConnection;
class UpstreamClient;

class Relay {
 public:
  Relay(Shared& shared, ClientConnection& client, UpstreamClient& upstream, RequestTrace& trace)
      : shared_(shared), client_(client), upstream_(upstream), trace_(trace) {}

  /// Sends `req` upstream (one attempt) and its answer back to the client;
  /// upstream failures before the answer become 502/504 in the API's shape.
  awaitable<void> run(ClientRequest& req, RequestLog& log);

 private:
  Shared& shared_;
  ClientConnection& client_;
  UpstreamClient& upstream_;
  RequestTrace& trace_;
};

}  // namespace weld::proxy
