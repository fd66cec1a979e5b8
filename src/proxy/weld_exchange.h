#pragma once
// Tagged requests (docs/proxy.md, "What a tagged request goes through"): the request through the filter chain,
// the upstream attempts (with `mechanism: auto`'s probe first), and the
// answer to the client — whole, or as a stream kept alive (and fed by
// stream_partial) while the attempts run in their own coroutine.

#include <exception>
#include <optional>
#include <string>
#include <string_view>

#include "client_request.h"
#include "core.h"
#include "request_log.h"
#include "request_trace.h"

namespace weld::proxy {

class ClientConnection;
class Relay;
class UpstreamClient;

class TaggedExchange {
 public:
  TaggedExchange(Worker& worker, ClientConnection& client, UpstreamClient& upstream, Relay& relay,
                 RequestTrace& trace)
      : worker_(worker), shared_(worker.shared), client_(client), upstream_(upstream), relay_(relay), trace_(trace) {}

  /// Welds `req` (a request of `api`, tagged by `agent_header` or its model
  /// suffix) and answers it; a request the chain passes through is relayed.
  awaitable<void> run(ClientRequest& req, Protocol api, std::string_view agent_header, RequestLog& log);

 private:
  awaitable<void> run_attempts(ClientRequest& req, Exchange& ex, FilterChain& chain, RequestLog& log);
  /// Logs an exception thrown by the attempts and answers 500 in the client's shape.
  void internal_error(std::exception_ptr failure, Exchange& ex);
  /// One upstream attempt. `partial`: feed `ex.partial` (stream_partial)
  /// with the answer's fragments as they arrive (not for the auto probe).
  awaitable<std::optional<Error>> attempt(ClientRequest& req, Exchange& ex, FilterChain& chain, FilterAction& action,
                                          bool partial = true);
  /// Frames for the streaming client, from the attempts' coroutine: the
  /// waiting loop in run() writes them (one writer on the socket).
  void queue_frames(std::string_view frames);
  /// The head of a streamed tagged answer sent before the answer is known
  /// (200 text/event-stream, chunked unless HTTP/1.0; x-weld-agent only).
  std::string stream_head(const Exchange& ex, RequestLog& log);
  /// `mechanism: auto`: probes the upstream once per model (the run's probe,
  /// provider/native_probe.h) and welds the request with what it found.
  awaitable<void> resolve_auto(ClientRequest& req, Exchange& ex, FilterChain& chain);

  Worker& worker_;
  Shared& shared_;
  ClientConnection& client_;
  UpstreamClient& upstream_;
  Relay& relay_;
  RequestTrace& trace_;
  bool attempts_done_ = false;
  std::exception_ptr attempts_exception_;
  std::string queued_frames_;  // see queue_frames
};

}  // namespace weld::proxy
