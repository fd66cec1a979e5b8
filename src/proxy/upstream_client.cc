// Upstream requests: heads, pooled connections, response headers.

#include "upstream_client.h"

#include <array>
#include <limits>

#include "client_connection.h"

namespace weld::proxy {
namespace {

using beast::iequals;

// Interim (1xx) answers read past before a response; more is a broken upstream.
constexpr int kMaxInterim = 8;

}  // namespace

std::string UpstreamClient::head(const ClientRequest& req, bool tagged, std::size_t body_size) const {
  const UpstreamTarget& up = shared_.upstream;
  std::string head;
  head.reserve(512);
  head += req.method_string();
  head += ' ';
  head += upstream_target(up, req.target());
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
    // With telemetry the upstream gets our attempt's traceparent instead (docs/telemetry.md).
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

awaitable<std::optional<Error>> UpstreamClient::open(std::string_view head, std::string_view body,
                                                     std::optional<UpstreamParser>& parser,
                                                     std::unique_ptr<UpstreamConnection>& connection,
                                                     bool head_request, std::chrono::milliseconds connect_timeout,
                                                     std::chrono::milliseconds read_timeout) {
  const UpstreamTarget& up = shared_.upstream;
  // For the error messages only (not built for every request).
  const auto where = [&up] { return up.host + ":" + up.port; };
  for (int attempt = 0; attempt < 2; ++attempt) {
    connection = worker_.pool.take();
    const bool reused = connection != nullptr;
    error_code ec;
    if (!connection) {
      connection = std::make_unique<UpstreamConnection>(
          worker_.io.get_executor(), shared_.tls_context ? &*shared_.tls_context : nullptr, worker_.ticks);
      client_.set_in_flight(connection.get());
      ec = co_await connection->connect(up, connect_timeout);
      client_.set_in_flight(nullptr);
      if (client_.gone()) co_return Error{ErrorCode::Cancelled, "the client went away", ""};
      if (ec == beast::error::timeout) {
        co_return Error{ErrorCode::Timeout, "could not connect to the upstream " + where() + " within " +
                                       std::to_string(connect_timeout.count()) + " ms", ""};
      }
      if (ec) co_return Error{ErrorCode::Connect, "could not connect to the upstream " + where() + ": " + ec.message(), ""};
    }
    client_.set_in_flight(connection.get());
    const std::array<asio::const_buffer, 2> buffers{asio::buffer(head), asio::buffer(body)};
    ec = co_await connection->write(buffers, read_timeout);
    if (client_.gone()) {
      client_.set_in_flight(nullptr);
      co_return Error{ErrorCode::Cancelled, "the client went away", ""};
    }
    if (ec && reused) continue;  // the server closed it while idle
    if (ec) {
      client_.set_in_flight(nullptr);
      co_return Error{ec == beast::error::timeout ? ErrorCode::Timeout : ErrorCode::Connect,
                      "could not send the request to the upstream " + where() + ": " + ec.message(), ""};
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
      ec = co_await connection->read_header(*parser, read_timeout, worker_.busy());
    } while (!ec && parser->status() / 100 == 1 && parser->status() != 101 && ++interim <= kMaxInterim);
    client_.set_in_flight(nullptr);
    if (interim > kMaxInterim) {
      co_return Error{ErrorCode::Protocol, "the upstream sent more than " + std::to_string(kMaxInterim) +
                                      " interim (1xx) answers", ""};
    }
    if (client_.gone()) co_return Error{ErrorCode::Cancelled, "the client went away", ""};
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
  co_return Error{ErrorCode::Connect, "could not reach the upstream " + where(), ""};
}

awaitable<error_code> UpstreamClient::read_body(UpstreamConnection& connection, UpstreamParser& parser,
                                                std::string& out, std::size_t limit,
                                                std::chrono::milliseconds timeout) {
  // Straight into `out` (no buffer in the coroutine frame: a large frame is
  // a large allocation per call).
  std::size_t chunked_piece = 4096;
  client_.set_in_flight(&connection);
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
    if (ec || client_.gone()) break;
  }
  client_.set_in_flight(nullptr);
  if (!ec && client_.gone()) ec = asio::error::operation_aborted;
  co_return ec;
}

void UpstreamClient::release(std::unique_ptr<UpstreamConnection> connection, const UpstreamParser& parser) {
  if (connection && connection->reusable(parser)) {
    worker_.pool.put(std::move(connection));
  }
}

}  // namespace weld::proxy
