// Untagged requests (SPEC §3.1, §3.3): relayed byte-for-byte, streaming
// included — each piece of the upstream body is written to the client as it
// arrives, never buffered whole, never parsed. Only the framing may change
// (chunked towards an HTTP/1.1 client when the upstream sent no length).

#include "session.h"

namespace weld::proxy {
namespace {

constexpr std::size_t kRelayBuffer = 8192;

bool has_no_body(int status, bool head_request) {
  return head_request || status == 204 || status == 304 || (status >= 100 && status < 200);
}

}  // namespace

awaitable<void> Session::relay(ClientRequest& req, RequestLog& log) {
  const ServerConfig& config = shared_.config;
  // The attempt's span lasts the whole relay (its traceparent goes in the head).
  telemetry::Span upstream = trace_.attempt(1, req.method_string(), shared_.upstream.host_header);
  std::string head = upstream_head(req, /*tagged=*/false, req.body().size());
  const bool head_request = req.method() == http::verb::head;
  std::optional<UpstreamParser> parser;
  std::unique_ptr<UpstreamConnection> connection;
  start_monitor();
  const auto upstream_start = std::chrono::steady_clock::now();
  log.attempts = 1;
  std::optional<Error> error = co_await open_upstream(head, req.body(), parser, connection, head_request,
                                                      config.connect_timeout, config.upstream_timeout);
  if (error) {
    RequestTrace::attempt_ended(upstream, 0, &*error);
    log.upstream_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - upstream_start).count();
    co_await stop_monitor();
    if (error->code == ErrorCode::Cancelled) {
      log.outcome = Outcome::Cancelled;
      keep_alive_ = false;
      co_return;
    }
    const bool timeout = error->code == ErrorCode::Timeout;
    co_await send_error(timeout ? Outcome::UpstreamTimeout : Outcome::UpstreamError, timeout ? 504 : 502,
                        timeout ? "timeout_error" : "api_error", error->message, log);
    co_return;
  }
  // The request is with the upstream now and is never sent again: a long
  // conversation's body is not held while a stream stays open for minutes.
  std::string().swap(req.body());
  const int status = parser->status();
  upstream.set("http.response.status_code", std::int64_t{status});
  const bool no_body = has_no_body(status, head_request);
  const bool known_length = parser->content_length().has_value();
  const bool chunked = !no_body && !known_length && !client_is_http10_;
  if (!no_body && !known_length && client_is_http10_) keep_alive_ = false;  // close-delimited

  std::string out;
  out.reserve(1024);
  out += "HTTP/1.1 ";
  out += std::to_string(status);
  out += ' ';
  out += parser->reason();
  out += "\r\n";
  out += parser->relayed_fields();
  if (chunked) out += "Transfer-Encoding: chunked\r\n";
  out += connection_header();
  out += "\r\n";
  log.status = status;

  // Small answers go out in one write (head + body); streams get their head
  // at once so the client sees the response start.
  bool ok = true;
  if (!known_length && !parser->is_done()) {
    ok = co_await write_client(out);
    out.clear();
  }
  // The body is read straight into `out` behind the head (no copy); a chunk
  // size line, when we re-frame, is inserted in front of the piece.
  error_code ec;
  current_upstream_ = connection.get();
  while (ok && !parser->is_done()) {
    const std::size_t base = out.size();
    const std::size_t piece = next_body_piece(*parser, kRelayBuffer);
    out.resize(base + piece);
    parser->body().data = out.data() + base;
    parser->body().size = piece;
    ec = co_await connection->read_some(*parser, config.upstream_timeout);
    const std::size_t n = piece - parser->body().size;
    out.resize(base + n);
    if (n > 0 && chunked) {
      char hex[32];
      int len = std::snprintf(hex, sizeof hex, "%zx\r\n", n);
      out.insert(base, hex, static_cast<std::size_t>(len));
      out += "\r\n";
    }
    if (ec) break;
    if (parser->is_done() && chunked) out += "0\r\n\r\n";
    if (!out.empty()) {
      ok = co_await write_client(out);
      out.clear();
    }
  }
  current_upstream_ = nullptr;
  log.upstream_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - upstream_start).count();
  if (parser->is_done() && !out.empty() && ok) ok = co_await write_client(out);  // head-only answers
  co_await stop_monitor();
  if (client_gone_ || !ok) {
    log.outcome = Outcome::Cancelled;
    keep_alive_ = false;
    co_return;  // dropping `connection` closes it: the upstream request is cancelled
  }
  if (ec) {
    // The upstream failed mid-answer: pass the truncation on (close without
    // the terminating chunk), exactly what the upstream did.
    if (!out.empty()) co_await write_client(out);
    log.outcome = ec == beast::error::timeout ? Outcome::UpstreamTimeout : Outcome::UpstreamTruncated;
    keep_alive_ = false;
    co_return;
  }
  release_upstream(std::move(connection), *parser);
}

}  // namespace weld::proxy
