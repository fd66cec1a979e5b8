// A client connection (SPEC §3.1, §3.5): request reading with limits and
// timeouts, keep-alive, local endpoints, dispatch, access log. The relay and
// the weld exchange live in relay.cc and weld_exchange.cc.

#include "session.h"

#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <limits>

#include "request_target.h"
#include "weld/json/parse.h"
#include "weld/json/serialize.h"
#include "weld/proxy/tag_scan.h"
#include "weld/proxy/weld.h"

namespace weld::proxy {
namespace {

using beast::iequals;

// After a refusal, what the client still sends is read and dropped for this
// long, up to this much (Session::linger).
constexpr std::chrono::milliseconds kLinger{2000};
constexpr std::size_t kLingerBytes = 4u << 20;

// A target's path, without the query.
std::string_view path_of(std::string_view target) { return target.substr(0, target.find('?')); }

// The client closed or reset the connection, or the server is closing it.
bool is_disconnect(error_code ec) {
  return ec == http::error::end_of_stream || ec == http::error::partial_message || ec == asio::error::eof ||
         ec == asio::error::operation_aborted || ec == asio::error::connection_reset;
}

// The error shape of the API a path belongs to (OpenAI's for every path but
// /v1/messages).
Api api_of_path(std::string_view path) {
  return path.substr(0, 12) == "/v1/messages" ? Api::Anthropic : Api::OpenAI;
}

// Interim (1xx) answers read past before a response; more is a broken upstream.
constexpr int kMaxInterim = 8;

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// Removes `__schema=<agent>` from the top-level model of a JSON body, in
// place; leaves anything else (and unparsable bodies) untouched.
void strip_model_suffix(ClientRequest& req) {
  Result<json::Value> body = json::parse(req.body());
  if (!body || !body->is_object()) return;
  json::Value* model = body->find("model");
  if (model == nullptr || !model->is_string()) return;
  auto tag = parse_model_tag(model->as_string());
  if (!tag) return;
  *model = json::Value(tag->base_model);
  req.body() = json::serialize(*body);
}

}  // namespace

Session::Session(Worker& worker, tcp::socket socket)
    : worker_(worker), shared_(worker.shared), trace_(shared_.config.telemetry), socket_(std::move(socket)),
      monitor_done_(socket_.get_executor()), wake_(socket_.get_executor()) {
  worker_.sessions.insert(this);
  worker_.ticks.add(this);
  shared_.metrics.connection_opened();
  error_code ignored;
  socket_.set_option(tcp::no_delay(true), ignored);
  // Non-blocking for the direct writes (asynchronous operations are unaffected).
  socket_.non_blocking(true, ignored);
}

Session::~Session() {
  worker_.ticks.remove(this);
  worker_.sessions.erase(this);
  shared_.metrics.connection_closed();
}

void Session::close_if_idle() {
  if (idle_) {
    error_code ignored;
    socket_.cancel(ignored);
  }
}

void Session::on_tick(Deadline::Clock::time_point now) {
  if (client_deadline_.check(now)) {
    error_code ignored;
    socket_.cancel(ignored);  // the pending read or write ends; its caller sees the expired deadline
  }
  if (want_monitor_ && !monitoring_ && !client_gone_ && ++monitor_ticks_ >= 2) arm_monitor();
}

awaitable<error_code> Session::read_client(ClientRequest& parser, ParseGoal goal,
                                           std::chrono::milliseconds timeout) {
  error_code ec;
  bool armed = false;
  for (;;) {
    if (feed_parser(parser, buffer_, goal, ec) || ec) break;
    // Past the head, what stays buffered is an unfinished chunk-size line or
    // trailer section (body bytes are consumed as they come): bounded like
    // a head, so an endless one is refused rather than held.
    if (parser.is_header_done() && buffer_.size() > shared_.config.max_header_bytes) {
      ec = http::error::buffer_overflow;
      break;
    }
    if (!armed) {
      client_deadline_.arm(timeout);
      armed = true;
    }
    std::size_t n = co_await socket_.async_read_some(buffer_.prepare(read_room(parser, buffer_)),
                                                     asio::redirect_error(asio::use_awaitable, ec));
    buffer_.commit(n);
    if (ec == asio::error::eof) {
      if (n > 0) {
        ec = {};
        continue;
      }
      finish_at_eof(parser, ec);
      if (!ec) ec = http::error::end_of_stream;  // a request cannot end at EOF
      break;
    }
    if (ec) break;
  }
  if (!armed) co_return ec;
  client_deadline_.disarm();
  if (ec && client_deadline_.expired()) ec = beast::error::timeout;
  co_return ec;
}

std::string Session::connection_header() {
  if (worker_.stopping) keep_alive_ = false;
  return keep_alive_ ? std::string() : std::string("Connection: close\r\n");
}

awaitable<void> Session::run() {
  const ServerConfig& config = shared_.config;
  bool refused = false;
  for (;;) {
    idle_ = true;
    if (worker_.stopping) break;
    error_code ec;
    if (buffer_.size() == 0) {
      // Between requests: the idle timeout applies until the first byte.
      client_deadline_.arm(config.idle_timeout);
      std::size_t n = co_await socket_.async_read_some(buffer_.prepare(kHeadRead),
                                                       asio::redirect_error(asio::use_awaitable, ec));
      client_deadline_.disarm();
      buffer_.commit(n);
      if (ec) break;
    }
    idle_ = false;
    answer_started_ = false;
    path_.clear();
    RequestLog log;
    ClientRequest req;
    const ReadResult read = co_await read_request(req, log);
    if (read == ReadResult::Gone) break;
    if (read == ReadResult::Refused) {
      write_log(log);
      refused = true;
      break;
    }
    // A long body grew the read buffer; give it back rather than hold it
    // for the connection's life (it regrows to kHeadRead for the next head).
    if (buffer_.size() == 0 && buffer_.capacity() > kHeadRead) buffer_.shrink_to_fit();
    keep_alive_ = req.keep_alive();
    client_is_http10_ = req.version() < 11;
    path_ = log.path;
    current_log_ = &log;
    shared_.metrics.request_started();
    if (trace_.active()) trace_.start(req.method_string(), log.path, req["traceparent"]);
    try {
      co_await handle(req, log);
    } catch (const std::exception& e) {
      // Never reached by design (the data plane returns errors as values);
      // a bug must cost one request, not the worker.
      keep_alive_ = false;
      shared_.log(std::string("{\"event\":\"internal_error\",\"error\":") + json::quote(e.what()) + "}");
    }
    current_log_ = nullptr;
    shared_.metrics.request_finished();
    write_log(log);
    trace_.finish(log);
    if (!keep_alive_ || worker_.stopping || !socket_.is_open()) break;
    if (buffer_.capacity() > (64u << 10) && buffer_.size() == 0) buffer_.shrink_to_fit();
  }
  if (refused && !client_gone_ && socket_.is_open()) co_await linger();
  error_code ignored;
  socket_.shutdown(tcp::socket::shutdown_send, ignored);
  socket_.close(ignored);
}

awaitable<Session::ReadResult> Session::read_request(ClientRequest& req, RequestLog& log) {
  const ServerConfig& config = shared_.config;
  const std::string too_large = "request body is larger than " + std::to_string(config.max_body_bytes) + " bytes";
  req.header_limit(config.max_header_bytes);
  req.body_limit(config.max_body_bytes);
  error_code ec = co_await read_client(req, ParseGoal::Header, config.header_timeout);
  keep_alive_ = false;  // until a request was read completely
  // The request line, once read, names the request in the log and picks
  // the shape of an error.
  log.method = req.method_string();
  log.path = std::string(path_of(req.target()));
  if (ec == http::error::header_limit) {
    co_return co_await refuse(log, Outcome::TooLarge, 431, "request header fields too large");
  }
  if (ec == http::error::body_limit) {  // the Content-Length alone is over the limit
    co_return co_await refuse(log, Outcome::TooLarge, 413, too_large);
  }
  if (ec == beast::error::timeout) {
    co_return co_await refuse(log, Outcome::ClientTimeout, 408, "request header not received in time");
  }
  if (is_disconnect(ec)) co_return ReadResult::Gone;
  if (ec) {
    const ClientRequest::Refusal refusal = req.refusal(ec);
    co_return co_await refuse(log, Outcome::BadRequest, refusal.status, refusal.message);
  }
  Result<std::string> origin = origin_form(req.target());
  if (!origin) co_return co_await refuse(log, Outcome::BadRequest, 400, origin.error().message);
  req.set_target(*origin);
  log.path = std::string(path_of(*origin));
  if (req.content_length() && *req.content_length() > config.max_body_bytes) {
    co_return co_await refuse(log, Outcome::TooLarge, 413, too_large);
  }
  if (iequals(req[http::field::expect], "100-continue")) {
    static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
    if (!co_await write_client(kContinue)) co_return ReadResult::Gone;
  }
  ec = co_await read_client(req, ParseGoal::Message, config.body_timeout);
  if (ec == http::error::body_limit) co_return co_await refuse(log, Outcome::TooLarge, 413, too_large);
  if (ec == beast::error::timeout) {
    co_return co_await refuse(log, Outcome::ClientTimeout, 408, "request body not received in time");
  }
  if (ec == http::error::buffer_overflow) {
    co_return co_await refuse(log, Outcome::BadRequest, 400,
                              "malformed HTTP request body: a chunk header or the trailers are over " +
                                  std::to_string(config.max_header_bytes) + " bytes");
  }
  if (is_disconnect(ec)) co_return ReadResult::Gone;
  if (ec) {
    const ClientRequest::Refusal refusal = req.refusal(ec);
    co_return co_await refuse(log, Outcome::BadRequest, refusal.status, refusal.message);
  }
  co_return ReadResult::Complete;
}

awaitable<Session::ReadResult> Session::refuse(RequestLog& log, Outcome outcome, int status, std::string_view message) {
  co_await send_error(outcome, status, status == 413 ? "request_too_large" : "invalid_request_error", message, log);
  co_return ReadResult::Refused;
}

awaitable<void> Session::linger() {
  error_code ec;
  socket_.shutdown(tcp::socket::shutdown_send, ec);
  client_deadline_.arm(kLinger);
  std::size_t discarded = 0;
  while (!ec && discarded < kLingerBytes) {
    discarded += co_await socket_.async_read_some(buffer_.prepare(kMaxBodyPiece),
                                                  asio::redirect_error(asio::use_awaitable, ec));
  }
  client_deadline_.disarm();
}

awaitable<void> Session::handle(ClientRequest& req, RequestLog& log) {
  const http::verb method = req.method();
  if (method == http::verb::get || method == http::verb::head) {
    if (log.path == "/healthz") {
      log.outcome = Outcome::Local;
      co_await send_simple(200, "application/json", "{\"status\":\"ok\"}", log);
      co_return;
    }
    if (log.path == "/readyz") {
      log.outcome = Outcome::Local;
      co_await serve_ready(log);
      co_return;
    }
    if (log.path == "/metrics") {
      log.outcome = Outcome::Local;
      co_await send_simple(200, "text/plain; version=0.0.4; charset=utf-8", shared_.metrics.render(), log);
      co_return;
    }
  }
  if (method == http::verb::post) {
    std::optional<Api> api;
    if (log.path == "/v1/messages") api = Api::Anthropic;
    if (std::string_view(log.path).ends_with("/chat/completions")) api = Api::OpenAI;
    if (std::string_view(log.path).ends_with("/responses")) api = Api::Responses;
    if (api) {
      std::string_view agent_header = req["X-Agent-Name"];
      if (!agent_header.empty() || may_be_suffix_tagged(req.body())) {
        co_await weld(req, *api, agent_header, log);
        co_return;
      }
    } else if (may_be_suffix_tagged(req.body())) {
      // Other model calls of a tagged client (e.g. /v1/messages/count_tokens
      // from Claude Code): the upstream must not see the suffix (SPEC §3.3).
      strip_model_suffix(req);
    }
  }
  co_await relay(req, log);
}

awaitable<void> Session::serve_ready(RequestLog& log) {
  const UpstreamTarget& up = shared_.upstream;
  std::string head = "GET " + up.path_prefix + shared_.config.ready_path + " HTTP/1.1\r\nHost: " + up.host_header +
                     "\r\nAccept: application/json\r\n\r\n";
  std::optional<UpstreamParser> parser;
  std::unique_ptr<UpstreamConnection> connection;
  const auto probe_timeout = std::min<std::chrono::milliseconds>(shared_.config.connect_timeout, std::chrono::seconds(5));
  std::optional<Error> error =
      co_await open_upstream(head, {}, parser, connection, false, probe_timeout, probe_timeout);
  std::string body;
  if (!error) {
    int status = parser->status();
    std::string discard;
    error_code ec = co_await read_body(*connection, *parser, discard, 1u << 20, probe_timeout);
    if (!ec) release_upstream(std::move(connection), *parser);
    if (status < 500) {
      co_await send_simple(200, "application/json",
                           "{\"status\":\"ready\",\"upstream_status\":" + std::to_string(status) + "}", log);
      co_return;
    }
    error = Error{ErrorCode::UpstreamStatus, "upstream answered HTTP " + std::to_string(status), ""};
  }
  std::string out = "{\"status\":\"not ready\",\"error\":";
  json::write_string(out, error->message);
  out += "}";
  co_await send_simple(503, "application/json", out, log);
}

awaitable<bool> Session::write_client(std::span<const asio::const_buffer> buffers) {
  if (client_gone_ || !socket_.is_open()) co_return false;
  // At once when the socket takes it all (the common case: no asynchronous
  // operation); what it does not take is written asynchronously.
  error_code ec;
  const std::size_t total = asio::buffer_size(buffers);
  std::size_t n = socket_.write_some(buffers, ec);
  if (ec == asio::error::would_block || ec == asio::error::try_again) {
    ec = {};
    n = 0;
  }
  if (n > 0) answer_started_ = true;
  if (!ec && n < total) {
    answer_started_ = true;
    beast::buffers_suffix<std::span<const asio::const_buffer>> rest(buffers);
    rest.consume(n);
    client_deadline_.arm(shared_.config.write_timeout);
    co_await asio::async_write(socket_, rest, asio::redirect_error(asio::use_awaitable, ec));
    client_deadline_.disarm();
  }
  if (ec) {
    client_gone_ = true;
    keep_alive_ = false;
    co_return false;
  }
  co_return true;
}

awaitable<void> Session::send_simple(int status, std::string_view content_type, std::string_view body,
                                     RequestLog& log, std::string_view extra_headers) {
  std::string head = "HTTP/1.1 " + std::to_string(status) + " ";
  head += http::obsolete_reason(static_cast<http::status>(status));
  head += "\r\nContent-Type: ";
  head += content_type;
  head += "\r\nContent-Length: ";
  head += std::to_string(body.size());
  head += "\r\n";
  head += extra_headers;
  head += connection_header();
  head += "\r\n";
  log.status = status;
  const std::array<asio::const_buffer, 2> buffers{asio::buffer(head), asio::buffer(body)};
  co_await write_client(buffers);
}

awaitable<bool> Session::write_client(std::string_view data) {
  const std::array<asio::const_buffer, 1> buffers{asio::buffer(data)};
  co_return co_await write_client(buffers);
}

awaitable<void> Session::send_error(Outcome outcome, int status, std::string_view type, std::string_view message,
                                    RequestLog& log) {
  const std::string body = json::serialize(render_error(api_of_path(log.path), type, message));
  log.outcome = outcome;
  co_await send_simple(status, "application/json", body, log, is_final(outcome) ? kFinalAnswer : "");
}

void Session::abandon() {
  if (idle_ || client_gone_ || !socket_.is_open()) return;
  if (!answer_started_) {
    const std::string body = json::serialize(render_error(
        api_of_path(path_), "api_error",
        "weld proxy is shutting down: the request did not finish within the shutdown timeout (--shutdown-timeout)"));
    std::string answer = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: " +
                         std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
    error_code ignored;
    socket_.write_some(asio::buffer(answer), ignored);  // non-blocking: what the socket takes now
    if (current_log_ != nullptr) {
      current_log_->status = 503;
      current_log_->outcome = Outcome::ShuttingDown;
    }
  }
  // The request's coroutine never resumes: its log line is written here.
  if (current_log_ != nullptr) write_log(*current_log_);
  current_log_ = nullptr;
  if (current_upstream_ != nullptr) current_upstream_->close();
  error_code ignored;
  socket_.shutdown(tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
}

void Session::arm_monitor() {
  if (monitoring_ || client_gone_) return;
  monitoring_ = true;
  // Wait for readability only (no speculative read: one syscall less per
  // request than async_read_some), then peek: EOF means the client left.
  socket_.async_wait(tcp::socket::wait_read, [this](error_code ec) {
    monitoring_ = false;
    if (!ec) {
      char byte;
      ssize_t n = ::recv(socket_.native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
      if (n > 0) {
        // A pipelined request: leave its bytes in the socket for the next read.
      } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
        // A spurious wake-up: stop watching rather than re-arm (re-arming
        // could outlive stop_monitor's cancel).
      } else {
        ec = n == 0 ? error_code(asio::error::eof) : error_code(errno, boost::system::system_category());
      }
    }
    if (ec && ec != asio::error::operation_aborted) {
      // The client went away: cancel its upstream request (SPEC §3.5).
      client_gone_ = true;
      keep_alive_ = false;
      if (current_upstream_ != nullptr) current_upstream_->close();
      wake_.cancel();
    }
    monitor_done_.cancel();
  });
}

awaitable<void> Session::stop_monitor() {
  want_monitor_ = false;
  if (!monitoring_) co_return;
  error_code ec;
  socket_.cancel(ec);
  while (monitoring_) {
    monitor_done_.expires_after(std::chrono::hours(1));
    co_await monitor_done_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }
}

std::string Session::upstream_head(const ClientRequest& req, bool tagged, std::size_t body_size) const {
  const UpstreamTarget& up = shared_.upstream;
  std::string head;
  head.reserve(512);
  head += req.method_string();
  head += ' ';
  head += up.path_prefix;
  head += req.target();
  head += " HTTP/1.1\r\nHost: ";
  head += up.host_header;
  head += "\r\n";
  // Headers named in Connection are hop-by-hop too.
  std::string_view connection_tokens = req[http::field::connection];
  for (const auto& field : req) {
    const http::field known = field.name();
    if (is_hop_by_hop(known) || known == http::field::host || known == http::field::content_length ||
        known == http::field::expect) {
      continue;
    }
    std::string_view name = field.name_string();
    if (!connection_tokens.empty() && connection_tokens.find(name) != std::string_view::npos &&
        !iequals(name, "content-type")) {
      continue;
    }
    if (tagged && (known == http::field::accept_encoding || known == http::field::accept ||
                   (known == http::field::unknown && iequals(name, "x-agent-name")))) {
      continue;
    }
    // With telemetry the upstream gets our attempt's traceparent instead (SPEC §8).
    if (trace_.active() && known == http::field::unknown && iequals(name, "traceparent")) continue;
    head += name;
    head += ": ";
    head += field.value();
    head += "\r\n";
  }
  if (body_size > 0 || req.method() == http::verb::post || req.method() == http::verb::put ||
      req.method() == http::verb::patch) {
    head += "Content-Length: ";
    head += std::to_string(body_size);
    head += "\r\n";
  }
  if (tagged) head += "Accept: text/event-stream, application/json\r\n";
  head += trace_.upstream_header();
  head += "\r\n";
  return head;
}

awaitable<std::optional<Error>> Session::open_upstream(std::string_view head, std::string_view body,
                                                       std::optional<UpstreamParser>& parser,
                                                       std::unique_ptr<UpstreamConnection>& connection,
                                                       bool head_request, std::chrono::milliseconds connect_timeout,
                                                       std::chrono::milliseconds read_timeout) {
  const UpstreamTarget& up = shared_.upstream;
  std::string where = up.host + ":" + up.port;
  for (int attempt = 0; attempt < 2; ++attempt) {
    connection = worker_.pool.take();
    const bool reused = connection != nullptr;
    error_code ec;
    if (!connection) {
      connection = std::make_unique<UpstreamConnection>(
          worker_.io.get_executor(), shared_.tls_context ? &*shared_.tls_context : nullptr, worker_.ticks);
      current_upstream_ = connection.get();
      ec = co_await connection->connect(up, connect_timeout);
      current_upstream_ = nullptr;
      if (client_gone_) co_return Error{ErrorCode::Cancelled, "the client went away", ""};
      if (ec == beast::error::timeout) {
        co_return Error{ErrorCode::Timeout, "could not connect to the upstream " + where + " within " +
                                       std::to_string(connect_timeout.count()) + " ms", ""};
      }
      if (ec) co_return Error{ErrorCode::Connect, "could not connect to the upstream " + where + ": " + ec.message(), ""};
    }
    current_upstream_ = connection.get();
    const std::array<asio::const_buffer, 2> buffers{asio::buffer(head), asio::buffer(body)};
    ec = co_await connection->write(buffers, read_timeout);
    if (client_gone_) {
      current_upstream_ = nullptr;
      co_return Error{ErrorCode::Cancelled, "the client went away", ""};
    }
    if (ec && reused) continue;  // the server closed it while idle
    if (ec) {
      current_upstream_ = nullptr;
      co_return Error{ec == beast::error::timeout ? ErrorCode::Timeout : ErrorCode::Connect,
                      "could not send the request to the upstream " + where + ": " + ec.message(), ""};
    }
    // Interim answers (100 Continue, 103 Early Hints) come before the
    // response to this request: read past them (a bounded number), so the
    // response relayed is the one that answers it.
    int interim = 0;
    do {
      parser.emplace();
      // Not boost::none: Beast 1.74 compares a Content-Length against an empty optional as "greater".
      parser->body_limit(std::numeric_limits<std::uint64_t>::max());
      parser->header_limit(256u << 10);
      if (head_request) parser->skip(true);
      ec = co_await connection->read_header(*parser, read_timeout);
    } while (!ec && parser->status() / 100 == 1 && parser->status() != 101 && ++interim <= kMaxInterim);
    current_upstream_ = nullptr;
    if (interim > kMaxInterim) {
      co_return Error{ErrorCode::Protocol, "the upstream sent more than " + std::to_string(kMaxInterim) +
                                      " interim (1xx) answers", ""};
    }
    if (client_gone_) co_return Error{ErrorCode::Cancelled, "the client went away", ""};
    if (ec && reused && (ec == http::error::end_of_stream || ec == asio::error::eof ||
                         ec == asio::error::connection_reset || ec == asio::error::broken_pipe)) {
      continue;
    }
    if (ec == beast::error::timeout) {
      co_return Error{ErrorCode::Timeout, "the upstream did not answer within " +
                                     std::to_string(read_timeout.count()) + " ms", ""};
    }
    if (ec == http::error::end_of_stream || ec == asio::error::eof || ec == asio::error::connection_reset) {
      co_return Error{ErrorCode::Truncated, "the upstream closed the connection without answering", ""};
    }
    if (ec) co_return Error{ErrorCode::Protocol, "the upstream's answer is not valid HTTP: " + ec.message(), ""};
    co_return std::nullopt;
  }
  co_return Error{ErrorCode::Connect, "could not reach the upstream " + where, ""};
}

awaitable<error_code> Session::read_body(UpstreamConnection& connection, UpstreamParser& parser, std::string& out,
                                         std::size_t limit, std::chrono::milliseconds timeout) {
  // Straight into `out` (no buffer in the coroutine frame: a large frame is
  // a large allocation per call).
  std::size_t chunked_piece = 4096;
  current_upstream_ = &connection;
  error_code ec;
  while (!parser.is_done()) {
    const std::size_t piece = next_body_piece(parser, chunked_piece);
    if (chunked_piece < kMaxBodyPiece) chunked_piece *= 2;  // a whole body of unknown length: grow
    const std::size_t base = out.size();
    out.resize(base + piece);
    parser.body().data = out.data() + base;
    parser.body().size = piece;
    ec = co_await connection.read_some(parser, timeout);
    out.resize(base + (piece - parser.body().size));
    if (out.size() > limit) {
      ec = http::error::body_limit;
      break;
    }
    if (ec || client_gone_) break;
  }
  current_upstream_ = nullptr;
  if (!ec && client_gone_) ec = asio::error::operation_aborted;
  co_return ec;
}

void Session::release_upstream(std::unique_ptr<UpstreamConnection> connection, const UpstreamParser& parser) {
  if (connection && connection->reusable(parser)) {
    worker_.pool.put(std::move(connection));
  }
}

void Session::write_log(const RequestLog& log) {
  double total = seconds_since(log.start);
  if (log.attempts > 0) {
    shared_.metrics.observe_upstream(log.upstream_seconds);
    shared_.metrics.observe_added(std::max(0.0, total - log.upstream_seconds));
  }
  shared_.metrics.record_request(log.agent, log.outcome);
  if (!shared_.config.log || !shared_.config.access_log) return;
  std::string line;
  line.reserve(256);
  line += "{\"time\":\"";
  line += utc_timestamp();
  line += "\",\"method\":";
  json::write_string(line, log.method);
  line += ",\"path\":";
  json::write_string(line, log.path);
  line += ",\"agent\":";
  if (log.agent.empty()) {
    line += "null";
  } else {
    json::write_string(line, log.agent);
  }
  line += ",\"status\":" + std::to_string(log.status);
  line += ",\"outcome\":";
  json::write_string(line, outcome_name(log.outcome));
  line += ",\"attempts\":" + std::to_string(log.attempts);
  char numbers[96];
  std::snprintf(numbers, sizeof numbers, ",\"upstream_ms\":%.3f,\"total_ms\":%.3f}", log.upstream_seconds * 1e3,
                total * 1e3);
  line += numbers;
  worker_.log(line);
}

}  // namespace weld::proxy
