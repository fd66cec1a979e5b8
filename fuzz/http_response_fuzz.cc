// Fuzzes the proxy's upstream side: bytes an upstream sends, through the
// same read loop (src/proxy/http_read.h) into UpstreamParser
// (src/proxy/upstream_parser.h), arriving in pieces of a size the first byte
// picks and drained into body buffers of a size the second byte picks (as
// the relay and the tagged path do); then what the proxy reads from it.
// Must never crash, hang or write outside the body buffer.
//
// The model of the upstream includes bytes after a complete response (a
// second response, a stray CRLF, never to be read as the next request's
// answer): the read loop must stop at the
// response's exact end, wherever the pieces split the input (the same bytes
// offered at once end the message at the same place), and the connection
// is reusable only when nothing follows; what follows is then read as the
// next response on that connection would be.
#include <utility>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "../src/proxy/http_read.h"
#include "../src/proxy/http_test_util.h"
#include "../src/proxy/upstream_parser.h"

namespace http = boost::beast::http;
using weld::proxy::ParseGoal;

namespace {

struct Read {
  std::size_t consumed = 0;       // bytes of the input the response took
  bool ended_before_eof = false;  // complete without the upstream closing
  bool reusable = false;          // the connection would be pooled
  std::string body;
};

// One response as the proxy reads it: each round a fresh body buffer (with
// a guard byte after it), bytes offered until the parser needs more, then
// one more socket read of `piece` bytes.
Read read_response(std::string_view input, std::size_t piece, std::size_t room, bool head_request) {
  weld::proxy::UpstreamParser parser;
  parser.header_limit(256u << 10);
  parser.body_limit(1u << 20);
  if (head_request) parser.skip(true);
  boost::beast::flat_buffer buffer;
  boost::system::error_code ec;
  Read read;
  std::size_t at = 0;
  bool eof = false;
  for (int rounds = 0; rounds < 1'000'000 && !parser.is_done(); ++rounds) {
    std::string space(room + 1, '\xA5');
    parser.body().data = space.data();
    parser.body().size = room;
    const bool reached = weld::proxy::feed_parser(parser, buffer, ParseGoal::Some, ec);
    if (space[room] != '\xA5') __builtin_trap();  // wrote past the body buffer
    read.body.append(space.data(), room - parser.body().size);
    if (ec) break;
    if (reached) continue;
    if (at >= input.size()) {
      eof = true;
      weld::proxy::finish_at_eof(parser, ec);
      break;
    }
    at = weld::proxy::testing::deliver(buffer, input, at, piece);
  }
  if (parser.is_header_done()) {
    std::size_t bytes = parser.relayed_fields().size() + parser.content_type().size() + parser.reason().size();
    (void)bytes;
    (void)parser.status();
    (void)parser.keep_alive();
  }
  read.consumed = at - buffer.size();
  read.ended_before_eof = parser.is_done() && !eof && !ec;
  read.reusable = weld::proxy::ends_cleanly(parser, buffer) && at == input.size() && !eof;
  return read;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const std::size_t piece = 1 + data[0] % 64;
  const std::size_t room = 1 + data[1] % 128;
  const std::string_view input(reinterpret_cast<const char*>(data) + 2, size - 2);

  const bool head_request = (data[1] & 0x80) != 0;
  Read first = read_response(input, piece, room, head_request);
  if (first.ended_before_eof) {
    // The end does not depend on how the bytes arrived.
    Read whole = read_response(input.substr(0, first.consumed), first.consumed + 1, first.consumed + 1, head_request);
    if (!whole.ended_before_eof || whole.consumed != first.consumed || whole.body != first.body) __builtin_trap();
  }
  // Pooled only when nothing follows the response (the socket's bytes are
  // the ones not yet delivered).
  if (first.reusable && first.consumed != input.size()) __builtin_trap();
  if (first.ended_before_eof && first.consumed < input.size()) {
    (void)read_response(input.substr(first.consumed), piece, room, false);
  }
  return 0;
}
