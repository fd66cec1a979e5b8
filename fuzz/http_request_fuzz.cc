// Fuzzes the proxy's request path: bytes read from a client through the
// server's own read loop (src/proxy/http_read.h: header first, then the
// body, bytes arriving in pieces as socket reads deliver them) into the
// server's request parser (src/proxy/client_request.h, on Beast's
// basic_parser) with weld proxy's limits; then what the server reads from a
// request: the request line, field lookups, every field, the hot-path tag
// scan on the body; and the SSE decoder the tagged path uses on upstream
// streams. Must never crash, hang or read out of bounds.
//
// Trailers (docs/proxy.md, "Errors and timeouts"): the fields seen once the head is read are the only
// fields: a trailer section after a chunked body must add none (checked,
// not just run). The request target goes through origin_form(), whose
// answer must be a path without a dot segment.
#include <utility>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "../src/proxy/client_request.h"
#include "../src/proxy/http_read.h"
#include "../src/proxy/http_test_util.h"
#include "../src/proxy/request_target.h"
#include "weld/provider/sse.h"
#include "weld/proxy/server.h"
#include "weld/proxy/tag_scan.h"

namespace http = boost::beast::http;
using weld::proxy::ParseGoal;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const weld::proxy::ServerConfig defaults;

  // As the server: the first byte picks the size of each "socket read".
  const std::size_t piece = size > 0 ? 1 + data[0] % 64 : 1;
  weld::proxy::ClientRequest parser;
  parser.header_limit(defaults.max_header_bytes);
  parser.body_limit(1u << 20);  // the fuzzer's memory, not the default 32 MiB
  boost::beast::flat_buffer buffer;
  boost::system::error_code ec;
  std::size_t at = 0;
  bool failed = false;
  std::size_t head_fields = 0;
  bool head_counted = false;
  for (ParseGoal goal : {ParseGoal::Header, ParseGoal::Message}) {
    if (goal == ParseGoal::Message) {
      for (auto it = parser.begin(); it != parser.end(); ++it) ++head_fields;
      head_counted = true;
    }
    for (;;) {
      if (weld::proxy::feed_parser(parser, buffer, goal, ec)) break;
      if (ec) {
        failed = true;
        break;
      }
      if (at >= size) {  // the client closed its side
        weld::proxy::finish_at_eof(parser, ec);
        failed = true;
        break;
      }
      at = weld::proxy::testing::deliver(buffer, input, at, piece);
    }
    if (failed) break;
  }
  if (head_counted) {
    std::size_t fields = 0;
    for (auto it = parser.begin(); it != parser.end(); ++it) ++fields;
    if (fields != head_fields) __builtin_trap();  // a trailer became a field
  }
  if (failed && ec) (void)parser.refusal(ec);
  if (parser.is_header_done()) {
    weld::Result<std::string> origin = weld::proxy::origin_form(parser.target());
    if (origin && (origin->empty() || origin->front() != '/')) __builtin_trap();
    if (origin && !weld::proxy::origin_form(*origin)) __builtin_trap();  // a forwarded target is itself refused
    std::size_t bytes = parser["X-Agent-Name"].size() + parser[http::field::connection].size() +
                        parser[http::field::expect].size() + parser.method_string().size();
    for (const auto& field : parser) bytes += field.name_string().size() + field.value().size();
    (void)bytes;
    std::string_view target = parser.target();
    (void)target.substr(0, target.find('?'));
    (void)parser.keep_alive();
    if (parser.is_done()) (void)weld::proxy::may_be_suffix_tagged(parser.body());
  }
  (void)weld::proxy::may_be_suffix_tagged(input);

  weld::provider::SseDecoder decoder(weld::provider::SseLimits{1u << 16, 1u << 16});
  std::vector<weld::provider::SseEvent> events;
  (void)decoder.feed(input, events);
  (void)decoder.finish();
  return 0;
}
