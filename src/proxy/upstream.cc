// Upstream connections (docs/proxy.md, "Errors and timeouts"): asynchronous, plain or TLS, with
// connect and per-read timeouts, pooled per worker.

#include "upstream.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/socket.h>

#include <cerrno>

namespace weld::proxy {

namespace {

// `url` with any userinfo ("user:password@") in its authority replaced by
// "***@".
std::string without_userinfo(std::string_view url) {
  const std::size_t scheme_end = url.find("://");
  const std::size_t authority_at = scheme_end == std::string_view::npos ? 0 : scheme_end + 3;
  const std::size_t authority_end = std::min(url.find_first_of("/?#", authority_at), url.size());
  const std::size_t at = url.substr(0, authority_end).rfind('@');
  if (at == std::string_view::npos || at < authority_at) return std::string(url);
  return std::string(url.substr(0, authority_at)) + "***" + std::string(url.substr(at));
}

}  // namespace

std::string upstream_target(const UpstreamTarget& upstream, std::string_view target) {
  std::string_view prefix = upstream.path_prefix;
  const bool client_v1 = target == "/v1" || target.substr(0, 4) == "/v1/" || target.substr(0, 4) == "/v1?";
  if (client_v1 && prefix.size() >= 3 && prefix.substr(prefix.size() - 3) == "/v1") prefix.remove_suffix(3);
  std::string out;
  out.reserve(prefix.size() + target.size());
  out += prefix;
  out += target;
  return out;
}

Result<UpstreamTarget> parse_upstream_url(std::string_view url) {
  // Credentials in the URL are refused (they would be sent to nobody and
  // shown everywhere the URL is); every message shows the URL without them.
  const std::string shown = without_userinfo(url);
  if (shown != url) {
    return Error{ErrorCode::Config, "--upstream \"" + shown + "\" must not carry credentials in the URL", "--upstream"};
  }
  UpstreamTarget target;
  std::string_view rest;
  if (url.substr(0, 7) == "http://") {
    rest = url.substr(7);
  } else if (url.substr(0, 8) == "https://") {
    rest = url.substr(8);
    target.tls = true;
  } else {
    return Error{ErrorCode::Config, "--upstream \"" + std::string(url) + "\" must start with http:// or https://", "--upstream"};
  }
  std::size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  std::string_view path = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  if (path.find_first_of("?#") != std::string_view::npos) {
    return Error{ErrorCode::Config, "--upstream \"" + std::string(url) + "\" must not have a query or fragment", "--upstream"};
  }
  target.path_prefix = std::string(path);
  std::string_view host = authority;
  std::string_view port;
  if (!authority.empty() && authority.front() == '[') {
    std::size_t close = authority.find(']');
    if (close == std::string_view::npos) {
      return Error{ErrorCode::Config, "--upstream \"" + std::string(url) + "\" has an unclosed [", "--upstream"};
    }
    host = authority.substr(1, close - 1);
    if (close + 1 < authority.size()) {
      if (authority[close + 1] != ':') return Error{ErrorCode::Config, "--upstream has a bad port", "--upstream"};
      port = authority.substr(close + 2);
    }
  } else if (std::size_t colon = authority.rfind(':'); colon != std::string_view::npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
  }
  if (host.empty()) return Error{ErrorCode::Config, "--upstream \"" + std::string(url) + "\" has no host", "--upstream"};
  if (!port.empty()) {
    bool digits = port.size() <= 5;
    for (char c : port) digits = digits && c >= '0' && c <= '9';
    if (!digits || std::stoul(std::string(port)) == 0 || std::stoul(std::string(port)) > 65535) {
      return Error{ErrorCode::Config, "--upstream \"" + std::string(url) + "\" has a bad port", "--upstream"};
    }
  }
  target.host = std::string(host);
  target.port = port.empty() ? (target.tls ? "443" : "80") : std::string(port);
  target.host_header = std::string(authority);
  return target;
}

UpstreamConnection::UpstreamConnection(asio::any_io_executor executor, asio::ssl::context* tls_context,
                                       TickList& ticks)
    : ticks_(ticks) {
  if (tls_context != nullptr) {
    tls_ = std::make_unique<asio::ssl::stream<tcp::socket>>(executor, *tls_context);
  } else {
    plain_ = std::make_unique<tcp::socket>(executor);
  }
  ticks_.add(this);
}

UpstreamConnection::~UpstreamConnection() { ticks_.remove(this); }

tcp::socket& UpstreamConnection::lowest() { return tls_ ? tls_->next_layer() : *plain_; }
const tcp::socket& UpstreamConnection::lowest() const { return tls_ ? tls_->next_layer() : *plain_; }

bool UpstreamConnection::is_open() const { return lowest().is_open(); }

bool UpstreamConnection::reusable(const UpstreamParser& parser) {
  // The socket itself is looked at once, when the pool hands the connection
  // out (UpstreamPool::take, quiet()): bytes or an EOF that are there now are
  // still there then, and one peek per request is a system call less.
  return is_open() && ends_cleanly(parser, buffer_);
}

bool UpstreamConnection::quiet() {
  if (!is_open() || buffer_.size() > 0) return false;
  // Decrypted bytes OpenSSL holds count as unread too.
  if (tls_ && ::SSL_pending(tls_->native_handle()) > 0) return false;
  char byte;
  const ssize_t n = ::recv(lowest().native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  // Nothing to read is the only clean state; bytes, EOF and errors are not.
  return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
}

void UpstreamConnection::close() {
  error_code ignored;
  lowest().shutdown(tcp::socket::shutdown_both, ignored);
  lowest().close(ignored);
}

void UpstreamConnection::on_tick(Deadline::Clock::time_point now) {
  if (deadline_.check(now)) close();  // pending operations end with operation_aborted
}

namespace {

// An operation that ended because its deadline passed reports a timeout.
error_code timed(const Deadline& deadline, error_code ec) {
  return ec && deadline.expired() ? error_code(beast::error::timeout) : ec;
}

}  // namespace

awaitable<error_code> UpstreamConnection::connect(const UpstreamTarget& target, std::chrono::milliseconds timeout) {
  error_code ec;
  tcp::resolver resolver(co_await asio::this_coro::executor);
  auto endpoints =
      co_await resolver.async_resolve(target.host, target.port, asio::redirect_error(asio::use_awaitable, ec));
  if (ec) co_return ec;
  deadline_.arm(timeout);
  co_await asio::async_connect(lowest(), endpoints, asio::redirect_error(asio::use_awaitable, ec));
  if (ec) {
    deadline_.disarm();
    co_return timed(deadline_, ec);
  }
  lowest().set_option(tcp::no_delay(true), ec);
  // Non-blocking for our direct reads and writes (asynchronous operations
  // are unaffected).
  lowest().non_blocking(true, ec);
  if (tls_) {
    // SNI and host name verification (verification mode is set on the context).
    if (!SSL_set_tlsext_host_name(tls_->native_handle(), target.host.c_str())) {
      deadline_.disarm();
      co_return error_code(static_cast<int>(::ERR_get_error()), asio::error::get_ssl_category());
    }
    tls_->set_verify_callback(asio::ssl::host_name_verification(target.host));
    co_await tls_->async_handshake(asio::ssl::stream_base::client, asio::redirect_error(asio::use_awaitable, ec));
  }
  deadline_.disarm();
  co_return timed(deadline_, ec);
}

awaitable<error_code> UpstreamConnection::write(std::span<const asio::const_buffer> data,
                                                std::chrono::milliseconds timeout) {
  error_code ec;
  if (tls_) {
    deadline_.arm(timeout);
    co_await asio::async_write(*tls_, data, asio::redirect_error(asio::use_awaitable, ec));
    deadline_.disarm();
    co_return timed(deadline_, ec);
  }
  // Plain: try at once; wait only for what the socket did not take.
  const std::size_t total = asio::buffer_size(data);
  std::size_t n = plain_->write_some(data, ec);
  if (ec == asio::error::would_block || ec == asio::error::try_again) {
    ec = {};
    n = 0;
  }
  if (ec || n == total) co_return ec;
  beast::buffers_suffix<std::span<const asio::const_buffer>> rest(data);
  rest.consume(n);
  deadline_.arm(timeout);
  co_await asio::async_write(*plain_, rest, asio::redirect_error(asio::use_awaitable, ec));
  deadline_.disarm();
  co_return timed(deadline_, ec);
}

awaitable<error_code> UpstreamConnection::read_until(UpstreamParser& parser, ParseGoal goal,
                                                     std::chrono::milliseconds timeout, bool after_queued_work) {
  error_code ec;
  bool armed = false;
  for (;;) {
    if (feed_parser(parser, buffer_, goal, ec) || ec) break;
    if (buffer_.size() >= (1u << 20)) {  // the parser's limits stop long before this
      ec = http::error::buffer_overflow;
      break;
    }
    if (!armed) {
      deadline_.arm(timeout);
      armed = true;
      // Worker::busy: after what is queued on the worker the answer is
      // often here. A close meanwhile (timeout, client gone) makes the read
      // fail at once.
      if (after_queued_work) co_await asio::post(lowest().get_executor(), asio::use_awaitable);
    }
    const std::size_t room = read_room(parser, buffer_);
    std::size_t n = 0;
    if (tls_) {
      n = co_await tls_->async_read_some(buffer_.prepare(room),
                                         asio::redirect_error(asio::use_awaitable, ec));
    } else {
      n = co_await plain_->async_read_some(buffer_.prepare(room),
                                           asio::redirect_error(asio::use_awaitable, ec));
    }
    buffer_.commit(n);
    if (ec == asio::error::eof || ec == asio::ssl::error::stream_truncated) {
      if (n > 0) {
        ec = {};
        continue;
      }
      if (finish_at_eof(parser, ec)) ec = {};
      break;
    }
    if (ec) break;
  }
  if (!armed) co_return ec;
  deadline_.disarm();
  co_return timed(deadline_, ec);
}

awaitable<error_code> UpstreamConnection::read_header(UpstreamParser& parser, std::chrono::milliseconds timeout,
                                                      bool after_queued_work) {
  return read_until(parser, ParseGoal::Header, timeout, after_queued_work);
}

awaitable<error_code> UpstreamConnection::read_some(UpstreamParser& parser,
                                                    std::chrono::milliseconds timeout) {
  return read_until(parser, ParseGoal::Some, timeout);
}

std::unique_ptr<UpstreamConnection> UpstreamPool::take() {
  auto now = std::chrono::steady_clock::now();
  while (!idle_.empty()) {
    std::unique_ptr<UpstreamConnection> connection = std::move(idle_.back());
    idle_.pop_back();
    if (now - connection->idle_since < kMaxIdle && connection->quiet()) {
      connection->reused = true;
      return connection;
    }
  }
  return nullptr;
}

void UpstreamPool::put(std::unique_ptr<UpstreamConnection> connection) {
  connection->idle_since = std::chrono::steady_clock::now();
  // Drop the oldest beyond the cap, and any that aged out.
  while (!idle_.empty() && (idle_.size() >= kMaxIdleConnections ||
                            connection->idle_since - idle_.front()->idle_since >= kMaxIdle)) {
    idle_.pop_front();
  }
  idle_.push_back(std::move(connection));
}

}  // namespace weld::proxy
