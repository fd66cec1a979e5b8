// The client's side of a connection (docs/proxy.md, "Errors and timeouts"): request reading with
// limits and timeouts, keep-alive, answers, lingering close, disconnects.

#include "http_write.h"
#include "client_connection.h"

#include <sys/socket.h>

#include <array>
#include <cerrno>

#include "request_target.h"
#include "upstream.h"
#include "weld/json/serialize.h"
#include "weld/proxy/weld.h"

namespace weld::proxy {
namespace {

using beast::iequals;

// After a refusal, what the client still sends is read and dropped for this
// long, up to this much (ClientConnection::linger).
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
Protocol api_of_path(std::string_view path) {
  return path.substr(0, 12) == "/v1/messages" ? Protocol::AnthropicMessages : Protocol::OpenAiChat;
}

}  // namespace

ClientConnection::ClientConnection(Worker& worker, tcp::socket socket)
    : worker_(worker), shared_(worker.shared), socket_(std::move(socket)), monitor_done_(socket_.get_executor()),
      waiter_(socket_.get_executor()) {
  worker_.ticks.add(this);
  shared_.metrics.connection_opened();
  error_code ignored;
  socket_.set_option(tcp::no_delay(true), ignored);
  // Non-blocking for the direct writes (asynchronous operations are unaffected).
  socket_.non_blocking(true, ignored);
}

ClientConnection::~ClientConnection() {
  worker_.ticks.remove(this);
  shared_.metrics.connection_closed();
}

void ClientConnection::close_if_idle() {
  if (idle_) {
    error_code ignored;
    socket_.cancel(ignored);
  }
}

void ClientConnection::on_tick(Deadline::Clock::time_point now) {
  if (deadline_.check(now)) {
    error_code ignored;
    socket_.cancel(ignored);  // the pending read or write ends; its caller sees the expired deadline
  }
  if (want_monitor_ && !monitoring_ && !gone_ && ++monitor_ticks_ >= 2) arm_monitor();
}

awaitable<bool> ClientConnection::wait_for_request() {
  idle_ = true;
  if (worker_.stopping) co_return false;
  // A long request grew the read buffer past what heads need: give it back.
  if (buffer_.capacity() > (64u << 10) && buffer_.size() == 0) buffer_.shrink_to_fit();
  if (buffer_.size() == 0) {
    // Between requests: the idle timeout applies until the first byte.
    error_code ec;
    deadline_.arm(shared_.config.idle_timeout);
    // The answer was just written, so a read now finds nothing (a system
    // call for EAGAIN, and another when the reactor sees the request). On
    // a busy worker, read after what is queued on it: the next request is
    // often here by then, and one read takes it.
    if (worker_.busy()) {
      co_await asio::post(socket_.get_executor(), asio::use_awaitable);
      // A shutdown (close_if_idle) or the idle deadline may have come while
      // queued, with no read to cancel.
      if (worker_.stopping || deadline_.expired()) {
        deadline_.disarm();
        co_return false;
      }
    }
    std::size_t n = co_await socket_.async_read_some(buffer_.prepare(kHeadRead),
                                                     asio::redirect_error(asio::use_awaitable, ec));
    deadline_.disarm();
    buffer_.commit(n);
    if (ec) co_return false;
  }
  idle_ = false;
  answer_started_ = false;
  co_return true;
}

awaitable<error_code> ClientConnection::read(ClientRequest& parser, ParseGoal goal,
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
      deadline_.arm(timeout);
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
  deadline_.disarm();
  if (ec && deadline_.expired()) ec = beast::error::timeout;
  co_return ec;
}

awaitable<ClientConnection::ReadResult> ClientConnection::read_request(ClientRequest& req, RequestLog& log) {
  const ServerConfig& config = shared_.config;
  // Built only for a refusal (an allocation per request otherwise).
  const auto too_large = [&config] {
    return "request body is larger than " + std::to_string(config.max_body_bytes) + " bytes";
  };
  req.header_limit(config.max_header_bytes);
  req.body_limit(config.max_body_bytes);
  error_code ec = co_await read(req, ParseGoal::Header, config.header_timeout);
  keep_alive_ = false;  // until a request was read completely
  // The request line, once read, names the request in the log and picks
  // the shape of an error.
  log.method = req.method_string();
  log.path = std::string(path_of(req.target()));
  if (ec == http::error::header_limit) {
    co_return co_await refuse(log, Outcome::TooLarge, 431, "request header fields too large");
  }
  if (ec == http::error::body_limit) {  // the Content-Length alone is over the limit
    co_return co_await refuse(log, Outcome::TooLarge, 413, too_large());
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
  if (*origin != req.target()) {  // an absolute URL, or a path without "/"
    req.set_target(*origin);
    log.path = std::string(path_of(*origin));
  }
  if (req.content_length() && *req.content_length() > config.max_body_bytes) {
    co_return co_await refuse(log, Outcome::TooLarge, 413, too_large());
  }
  if (iequals(req[http::field::expect], "100-continue")) {
    static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
    if (!co_await write(kContinue)) co_return ReadResult::Gone;
  }
  ec = co_await read(req, ParseGoal::Message, config.body_timeout);
  if (ec == http::error::body_limit) co_return co_await refuse(log, Outcome::TooLarge, 413, too_large());
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
  // A long body grew the read buffer; give it back rather than hold it
  // for the connection's life (it regrows to kHeadRead for the next head).
  if (buffer_.size() == 0 && buffer_.capacity() > kHeadRead) buffer_.shrink_to_fit();
  keep_alive_ = req.keep_alive();
  http10_ = req.version() < 11;
  co_return ReadResult::Complete;
}

awaitable<ClientConnection::ReadResult> ClientConnection::refuse(RequestLog& log, Outcome outcome, int status,
                                                                 std::string_view message) {
  co_await send_error(outcome, status, status == 413 ? "request_too_large" : "invalid_request_error", message, log);
  co_return ReadResult::Refused;
}

awaitable<void> ClientConnection::linger() {
  if (gone_ || !socket_.is_open()) co_return;
  error_code ec;
  socket_.shutdown(tcp::socket::shutdown_send, ec);
  deadline_.arm(kLinger);
  std::size_t discarded = 0;
  while (!ec && discarded < kLingerBytes) {
    discarded += co_await socket_.async_read_some(buffer_.prepare(kMaxBodyPiece),
                                                  asio::redirect_error(asio::use_awaitable, ec));
  }
  deadline_.disarm();
}

void ClientConnection::close() {
  error_code ignored;
  socket_.shutdown(tcp::socket::shutdown_send, ignored);
  socket_.close(ignored);
}

std::string ClientConnection::connection_header() {
  if (worker_.stopping) keep_alive_ = false;
  return keep_alive_ ? std::string() : std::string("Connection: close\r\n");
}

awaitable<bool> ClientConnection::write(std::span<const asio::const_buffer> buffers) {
  if (gone_ || !socket_.is_open()) co_return false;
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
    deadline_.arm(shared_.config.write_timeout);
    co_await asio::async_write(socket_, rest, asio::redirect_error(asio::use_awaitable, ec));
    deadline_.disarm();
  }
  if (ec) {
    gone_ = true;
    keep_alive_ = false;
    co_return false;
  }
  co_return true;
}

awaitable<bool> ClientConnection::write(std::string_view data) {
  const std::array<asio::const_buffer, 1> buffers{asio::buffer(data)};
  co_return co_await write(buffers);
}

awaitable<void> ClientConnection::send_simple(int status, std::string_view content_type, std::string_view body,
                                              RequestLog& log, std::string_view extra_headers) {
  std::string head;
  http_write::head(head, {.status = status,
                          .content_type = content_type,
                          .content_length = body.size(),
                          .fields = extra_headers,
                          .connection = connection_header()});
  log.status = status;
  const std::array<asio::const_buffer, 2> buffers{asio::buffer(head), asio::buffer(body)};
  co_await write(buffers);
}

awaitable<void> ClientConnection::send_error(Outcome outcome, int status, std::string_view type,
                                             std::string_view message, RequestLog& log) {
  const std::string body = json::serialize(render_error(api_of_path(log.path), type, message));
  log.outcome = outcome;
  co_await send_simple(status, "application/json", body, log, is_final(outcome) ? kFinalAnswer : "");
}

bool ClientConnection::abandon(std::string_view path) {
  if (idle_ || gone_ || !socket_.is_open()) return false;
  bool answered = false;
  if (!answer_started_) {
    const std::string body = json::serialize(render_error(
        api_of_path(path), "api_error",
        "weld proxy is shutting down: the request did not finish within the shutdown timeout (--shutdown-timeout)"));
    std::string answer;
    http_write::head(answer, {.status = 503,
                              .content_type = "application/json",
                              .content_length = body.size(),
                              .connection = "Connection: close\r\n"});
    answer += body;
    error_code ignored;
    socket_.write_some(asio::buffer(answer), ignored);  // non-blocking: what the socket takes now
    answered = true;
  }
  if (in_flight_ != nullptr) in_flight_->close();
  error_code ignored;
  socket_.shutdown(tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
  return answered;
}

void ClientConnection::arm_monitor() {
  if (monitoring_ || gone_) return;
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
      // The client went away: cancel its upstream request (docs/proxy.md, "Errors and timeouts").
      gone_ = true;
      keep_alive_ = false;
      if (in_flight_ != nullptr) in_flight_->close();
      waiter_.cancel();
    }
    monitor_done_.cancel();
  });
}

awaitable<void> ClientConnection::stop_monitor() {
  want_monitor_ = false;
  if (!monitoring_) co_return;
  error_code ec;
  socket_.cancel(ec);
  while (monitoring_) {
    monitor_done_.expires_after(std::chrono::hours(1));
    co_await monitor_done_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }
}

}  // namespace weld::proxy
