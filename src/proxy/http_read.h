#pragma once
// Offering buffered bytes to a Beast parser, as the server's read loops do
// (the socket reads live in client_connection.cc and upstream.cc; this part is pure so
// fuzz/http_request_fuzz.cc runs the same code). Beast's composed
// async_read/async_read_header do the same thing through several layers of
// intermediate handlers per call; calling the parser directly costs nothing
// when the bytes are already buffered. Private to src/proxy.

#include <algorithm>
#include <cstdint>

#include "asio.h"

namespace weld::proxy {

/// The most room one socket read makes (client or upstream).
inline constexpr std::size_t kMaxBodyPiece = 65536;

/// The room a read makes while a message head is read.
inline constexpr std::size_t kHeadRead = 4096;

/// How many bytes to make room for before the next body read: what is left
/// of a Content-Length body (at most kMaxBodyPiece), else `otherwise`. Making
/// room zero-fills it (std::string::resize), so a fixed large piece costs a
/// large memset for every small answer.
template <bool isRequest>
std::size_t next_body_piece(const http::basic_parser<isRequest>& parser, std::size_t otherwise) {
  if (auto remaining = parser.content_length_remaining()) {
    return static_cast<std::size_t>(std::clamp<std::uint64_t>(*remaining, 1, kMaxBodyPiece));
  }
  return otherwise;
}

/// The room to make in `buffer` for the next socket read while `parser`
/// reads a message: kHeadRead while the head is read; for a body of known
/// length, what is left of it (next_body_piece), so a long conversation
/// arrives in a few reads rather than 4 KiB ones; never less than the space
/// the buffer already has, never more than kMaxBodyPiece.
template <bool isRequest>
std::size_t read_room(const http::basic_parser<isRequest>& parser, const beast::flat_buffer& buffer) {
  const std::size_t want = parser.is_header_done() ? std::max(next_body_piece(parser, kHeadRead), kHeadRead) : kHeadRead;
  return std::min(std::max(want, buffer.capacity() - buffer.size()), kMaxBodyPiece);
}

/// Where a read loop stops.
enum class ParseGoal {
  Header,   ///< the header is complete
  Message,  ///< the whole message is complete
  Some,     ///< header complete and any progress in the body (buffer_body)
};

/// Offers `buffer`'s bytes to `parser` (consuming what it used) until it
/// reaches `goal`: true then; false when it needs more bytes or failed
/// (`ec` set, e.g. header_limit, body_limit, bad_method).
template <bool isRequest>
bool feed_parser(http::basic_parser<isRequest>& parser, beast::flat_buffer& buffer, ParseGoal goal, error_code& ec) {
  ec = {};
  bool progressed = false;
  for (;;) {
    if (parser.is_done()) return true;
    if (parser.is_header_done()) {
      if (goal == ParseGoal::Header) return true;
      if (goal == ParseGoal::Some && progressed) return true;
    }
    if (buffer.size() == 0) return false;
    const bool header_was_done = parser.is_header_done();
    const std::size_t used = parser.put(buffer.data(), ec);
    buffer.consume(used);
    if (ec == http::error::need_buffer) {  // a buffer_body is full: the caller drains it
      ec = {};
      return true;
    }
    if (ec == http::error::need_more) {
      ec = {};
      if (goal == ParseGoal::Some && header_was_done && used > 0) return true;
      if (used == 0) return false;
      continue;
    }
    if (ec) return false;
    if (used == 0) return parser.is_done() || (goal == ParseGoal::Header && parser.is_header_done());
    progressed = progressed || header_was_done;
  }
}

/// Whether a connection that read a response with `parser` may carry another
/// request, as far as the bytes read so far tell: the response is complete
/// and keep-alive, and nothing was read past its end (a second
/// response or a stray CRLF left there would be read as the next request's
/// answer). What is still in the socket is checked by the caller
/// (UpstreamConnection::reusable).
template <bool isRequest>
bool ends_cleanly(const http::basic_parser<isRequest>& parser, const beast::flat_buffer& buffer) {
  return parser.is_done() && parser.keep_alive() && buffer.size() == 0;
}

/// After the peer closed its side: true when `parser` accepts the end of
/// input (a close-delimited body), else `ec` = end_of_stream (nothing of
/// this message was received) or partial_message.
template <bool isRequest>
bool finish_at_eof(http::basic_parser<isRequest>& parser, error_code& ec) {
  if (!parser.got_some()) {
    ec = http::error::end_of_stream;
    return false;
  }
  parser.put_eof(ec);
  return !ec;
}

}  // namespace weld::proxy
