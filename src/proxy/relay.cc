// Untagged requests (docs/proxy.md, "Tagging a request"), byte-for-byte. Only the framing may
// change (chunked towards an HTTP/1.1 client when the upstream sent no
// length).

#include "http_write.h"
#include "relay.h"

#include "client_connection.h"
#include "upstream_client.h"

namespace weld::proxy {
namespace {

constexpr std::size_t kRelayBuffer = 8192;

bool has_no_body(int status, bool head_request) {
  return head_request || status == 204 || status == 304 || (status >= 100 && status < 200);
}

}  // namespace

awaitable<void> Relay::run(ClientRequest& req, RequestLog& log) {
  const ServerConfig& config = shared_.config;
  // The attempt's span lasts the whole relay (its traceparent goes in the head).
  telemetry::Span upstream = trace_.attempt(1, req.method_string(), shared_.upstream.host_header);
  std::string head = upstream_.head(req, /*tagged=*/false, req.body().size());
  const bool head_request = req.method() == http::verb::head;
  std::optional<UpstreamParser> parser;
  std::unique_ptr<UpstreamConnection> connection;
  client_.start_monitor();
  const auto upstream_start = std::chrono::steady_clock::now();
  log.attempts = 1;
  std::optional<Error> error = co_await upstream_.open(head, req.body(), parser, connection, head_request,
                                                      config.connect_timeout, config.upstream_timeout);
  if (error) {
    RequestTrace::attempt_ended(upstream, 0, &*error);
    log.upstream_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - upstream_start).count();
    co_await client_.stop_monitor();
    if (error->code == ErrorCode::Cancelled) {
      log.outcome = Outcome::Cancelled;
      client_.end_keep_alive();
      co_return;
    }
    const bool timeout = error->code == ErrorCode::Timeout;
    co_await client_.send_error(timeout ? Outcome::UpstreamTimeout : Outcome::UpstreamError, timeout ? 504 : 502,
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
  const bool chunked = !no_body && !known_length && !client_.is_http10();
  if (!no_body && !known_length && client_.is_http10()) client_.end_keep_alive();  // close-delimited

  std::string out;
  out.reserve(1024);
  http_write::head(out, {.status = status,
                         .reason = parser->reason(),
                         .fields = parser->relayed_fields(),
                         .chunked = chunked,
                         .connection = client_.connection_header()});
  log.status = status;

  // Small answers go out in one write (head + body); streams get their head
  // at once so the client sees the response start.
  bool ok = true;
  if (!known_length && !parser->is_done()) {
    ok = co_await client_.write(out);
    out.clear();
  }
  // The body is read straight into `out` behind the head (no copy); a chunk
  // size line, when we re-frame, is inserted in front of the piece.
  error_code ec;
  client_.set_in_flight(connection.get());
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
      out.insert(base, http_write::chunk_size_line(n));
      out += "\r\n";
    }
    if (ec) break;
    if (parser->is_done() && chunked) out += http_write::kLastChunk;
    if (!out.empty()) {
      ok = co_await client_.write(out);
      out.clear();
    }
  }
  client_.set_in_flight(nullptr);
  log.upstream_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - upstream_start).count();
  if (parser->is_done() && !out.empty() && ok) ok = co_await client_.write(out);  // head-only answers
  co_await client_.stop_monitor();
  if (client_.gone() || !ok) {
    log.outcome = Outcome::Cancelled;
    client_.end_keep_alive();
    co_return;  // dropping `connection` closes it: the upstream request is cancelled
  }
  if (ec) {
    // The upstream failed mid-answer: pass the truncation on (close without
    // the terminating chunk), exactly what the upstream did.
    if (!out.empty()) co_await client_.write(out);
    log.outcome = ec == beast::error::timeout ? Outcome::UpstreamTimeout : Outcome::UpstreamTruncated;
    client_.end_keep_alive();
    co_return;
  }
  upstream_.release(std::move(connection), *parser);
}

}  // namespace weld::proxy
