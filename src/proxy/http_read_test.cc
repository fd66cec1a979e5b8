#include "http_read.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "http_test_util.h"

namespace weld::proxy {
namespace {

// Offers `bytes` to `parser` through `buffer`, as the read loops do.
template <bool isRequest>
void offer(http::basic_parser<isRequest>& parser, beast::flat_buffer& buffer, std::string_view bytes) {
  testing::deliver(buffer, bytes, 0, bytes.size());
  error_code ec;
  feed_parser(parser, buffer, ParseGoal::Header, ec);
  ASSERT_FALSE(ec) << ec.message();
}

TEST(ReadRoom, HeadIsReadFourKibAtATime) {
  http::request_parser<http::string_body> parser;
  beast::flat_buffer buffer;
  EXPECT_EQ(4096u, read_room(parser, buffer));
  offer(parser, buffer, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n");  // head not complete
  EXPECT_FALSE(parser.is_header_done());
  EXPECT_EQ(4096u, read_room(parser, buffer));
}

TEST(ReadRoom, KnownLengthBodyIsReadInPiecesOfWhatIsLeft) {
  http::request_parser<http::string_body> parser;
  parser.body_limit(10'000'000);
  beast::flat_buffer buffer;
  offer(parser, buffer, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 52000\r\n\r\n");
  ASSERT_TRUE(parser.is_header_done());
  EXPECT_EQ(52000u, read_room(parser, buffer));

  http::request_parser<http::string_body> huge;
  huge.body_limit(10'000'000);
  beast::flat_buffer huge_buffer;
  offer(huge, huge_buffer, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5000000\r\n\r\n");
  EXPECT_EQ(kMaxBodyPiece, read_room(huge, huge_buffer));

  http::request_parser<http::string_body> tiny;
  beast::flat_buffer tiny_buffer;
  offer(tiny, tiny_buffer, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n");
  EXPECT_EQ(4096u, read_room(tiny, tiny_buffer));  // never less than a head's read
}

TEST(ReadRoom, ChunkedBodyAndResponsesToo) {
  http::request_parser<http::string_body> chunked;
  beast::flat_buffer buffer;
  offer(chunked, buffer, "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n");
  ASSERT_TRUE(chunked.is_header_done());
  EXPECT_EQ(4096u, read_room(chunked, buffer));  // no length to size by

  http::response_parser<http::buffer_body> response;
  beast::flat_buffer response_buffer;
  offer(response, response_buffer, "HTTP/1.1 200 OK\r\nContent-Length: 300000\r\n\r\n");
  EXPECT_EQ(kMaxBodyPiece, read_room(response, response_buffer));
}

TEST(ReadRoom, UsesTheSpaceTheBufferAlreadyHas) {
  http::request_parser<http::string_body> parser;
  beast::flat_buffer buffer;
  buffer.reserve(32768);
  EXPECT_EQ(32768u, read_room(parser, buffer));
}

}  // namespace
}  // namespace weld::proxy
