#include "upstream_parser.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <string_view>

#include "http_read.h"
#include "http_test_util.h"

namespace weld::proxy {
namespace {

// Reads `wire` through `parser` as the proxy's read loops do, `piece` bytes
// of socket data at a time and `room` bytes of body buffer at a time;
// returns the body. `ec` is the first error.
std::string read_all(UpstreamParser& parser, std::string_view wire, std::size_t piece, std::size_t room,
                     error_code& ec) {
  beast::flat_buffer buffer;
  std::string body;
  std::size_t offset = 0;
  for (int guard = 0; guard < 100000 && !parser.is_done(); ++guard) {
    std::string space(room, '\0');
    parser.body().data = space.data();
    parser.body().size = space.size();
    const bool reached = feed_parser(parser, buffer, ParseGoal::Some, ec);
    body.append(space.data(), room - parser.body().size);
    if (ec) return body;
    if (reached) continue;
    if (offset == wire.size()) break;
    offset = testing::deliver(buffer, wire, offset, piece);
  }
  return body;
}

TEST(UpstreamParser, KeepsStatusContentTypeAndTheEndToEndFieldsInOrder) {
  const std::string wire =
      "HTTP/1.1 201 Created\r\nServer: nginx\r\nConnection: keep-alive\r\ncontent-type: text/event-stream\r\n"
      "Keep-Alive: timeout=5\r\nX-Request-Id: abc \r\nTransfer-Encoding: chunked\r\nSet-Cookie: a=1\r\n"
      "Set-Cookie: b=2\r\n\r\n5\r\nhello\r\n0\r\n\r\n";
  for (std::size_t piece : {1u, 7u, 4096u}) {
    UpstreamParser parser;
    error_code ec;
    EXPECT_EQ("hello", read_all(parser, wire, piece, 64, ec));
    ASSERT_FALSE(ec) << ec.message();
    EXPECT_TRUE(parser.is_done());
    EXPECT_EQ(201, parser.status());
    EXPECT_EQ("Created", parser.reason());
    EXPECT_EQ("text/event-stream", parser.content_type());
    // Connection, Keep-Alive and Transfer-Encoding are the proxy's own to set.
    EXPECT_EQ("Server: nginx\r\ncontent-type: text/event-stream\r\nX-Request-Id: abc\r\nSet-Cookie: a=1\r\n"
              "Set-Cookie: b=2\r\n",
              parser.relayed_fields());
    EXPECT_TRUE(parser.keep_alive());
  }
}

TEST(UpstreamParser, BodyFillsSmallBuffersAcrossReads) {
  std::string payload;
  for (int i = 0; i < 5000; ++i) payload += static_cast<char>('a' + i % 26);
  const std::string sized = "HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n" + payload;
  std::string chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (std::size_t at = 0; at < payload.size(); at += 1000) {
    char size_line[32];
    std::snprintf(size_line, sizeof size_line, "%x\r\n", 1000);
    chunked += size_line + payload.substr(at, 1000) + "\r\n";
  }
  chunked += "0\r\n\r\n";
  for (const std::string& wire : {sized, chunked}) {
    for (std::size_t piece : {3u, 512u, 65536u}) {
      for (std::size_t room : {1u, 100u, 4096u, 10000u}) {
        UpstreamParser parser;
        error_code ec;
        EXPECT_EQ(payload, read_all(parser, wire, piece, room, ec)) << piece << " " << room;
        EXPECT_FALSE(ec) << ec.message();
        EXPECT_TRUE(parser.is_done());
        EXPECT_EQ("", parser.content_type());
      }
    }
  }
}

TEST(UpstreamParser, LimitsAndBadInputFail) {
  UpstreamParser limited;
  limited.body_limit(10);
  error_code ec;
  read_all(limited, "HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nhello world", 4096, 64, ec);
  EXPECT_EQ(http::error::body_limit, ec);

  UpstreamParser bad;
  read_all(bad, "HTTP/1.1 2x0 OK\r\n\r\n", 4096, 64, ec);
  EXPECT_TRUE(ec);

  UpstreamParser closes;
  EXPECT_EQ("", read_all(closes, "HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n", 4096, 64, ec));
  EXPECT_FALSE(ec);
  EXPECT_TRUE(closes.is_done());
  EXPECT_FALSE(closes.keep_alive());
  EXPECT_EQ("", closes.relayed_fields());
}

}  // namespace
}  // namespace weld::proxy
