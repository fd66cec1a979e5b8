// Fuzzes the proxy's upstream side: bytes an upstream sends, through the
// same read loop (src/proxy/http_read.h) into UpstreamParser
// (src/proxy/upstream_parser.h), arriving in pieces of a size the first byte
// picks and drained into body buffers of a size the second byte picks (as
// the relay and the tagged path do); then what the proxy reads from it.
// Must never crash, hang or write outside the body buffer.
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

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const std::size_t piece = 1 + data[0] % 64;
  const std::size_t room = 1 + data[1] % 128;
  const std::string_view input(reinterpret_cast<const char*>(data) + 2, size - 2);

  weld::proxy::UpstreamParser parser;
  parser.header_limit(256u << 10);
  parser.body_limit(1u << 20);
  if (data[1] & 0x80) parser.skip(true);  // an answer to HEAD
  boost::beast::flat_buffer buffer;
  boost::system::error_code ec;
  std::string body;
  std::size_t at = 0;
  // Each round: a fresh body buffer (with a guard byte after it), bytes
  // offered until the parser needs more, then one more socket read.
  for (int rounds = 0; rounds < 1'000'000 && !parser.is_done(); ++rounds) {
    std::string space(room + 1, '\xA5');
    parser.body().data = space.data();
    parser.body().size = room;
    const bool reached = weld::proxy::feed_parser(parser, buffer, ParseGoal::Some, ec);
    if (space[room] != '\xA5') __builtin_trap();  // wrote past the body buffer
    body.append(space.data(), room - parser.body().size);
    if (ec) break;
    if (reached) continue;
    if (at >= input.size()) {
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
  return 0;
}
