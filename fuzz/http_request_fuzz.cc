// Fuzzes the proxy's request path: bytes into a Beast request parser with
// weld proxy's limits (as the server reads a client), then the hot-path tag
// scan on the body and the X-Agent-Name lookup; and the upstream SSE decoder
// the tagged path uses. Must never crash, hang or read out of bounds.
#include <utility>

#include <boost/beast/http.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "../src/proxy/sse_decoder.h"
#include "weld/proxy/server.h"
#include "weld/proxy/tag_scan.h"

namespace http = boost::beast::http;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const weld::proxy::ServerConfig defaults;

  // As the server: header and body limits, the whole input offered at once
  // and re-offered from where the parser stopped (as a socket read loop does).
  http::request_parser<http::string_body> parser;
  parser.header_limit(defaults.max_header_bytes);
  parser.body_limit(1u << 20);  // the fuzzer's memory, not the default 32 MiB
  parser.eager(true);
  boost::system::error_code ec;
  std::size_t at = 0;
  while (at < size && !parser.is_done()) {
    std::size_t used = parser.put(boost::asio::buffer(input.data() + at, size - at), ec);
    if (ec || used == 0) break;
    at += used;
  }
  if (!parser.is_done() && !ec && parser.got_some()) parser.put_eof(ec);  // Beast requires bytes first
  if (parser.is_header_done()) {
    const auto& request = parser.get();
    std::string_view agent = request["X-Agent-Name"];
    (void)agent;
    std::string_view target = request.target();
    (void)target.substr(0, target.find('?'));
    (void)weld::proxy::may_be_suffix_tagged(request.body());
  }
  (void)weld::proxy::may_be_suffix_tagged(input);

  weld::proxy::SseDecoder decoder(1u << 16);
  std::size_t events = 0;
  decoder.feed(input, [&](std::string_view payload) {
    events += payload.size() > 0;
    return true;
  });
  return 0;
}
