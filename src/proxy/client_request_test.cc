#include "client_request.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "http_read.h"
#include "http_test_util.h"

namespace weld::proxy {
namespace {

// Reads `wire` into `request` `piece` bytes at a time, as the server's read
// loop does; returns the first error.
error_code read_all(ClientRequest& request, std::string_view wire, std::size_t piece) {
  beast::flat_buffer buffer;
  error_code ec;
  std::size_t offset = 0;
  for (ParseGoal goal : {ParseGoal::Header, ParseGoal::Message}) {
    while (!feed_parser(request, buffer, goal, ec)) {
      if (ec) return ec;
      if (offset == wire.size()) {
        finish_at_eof(request, ec);
        return ec ? ec : http::error::end_of_stream;
      }
      offset = testing::deliver(buffer, wire, offset, piece);
    }
  }
  return ec;
}

TEST(ClientRequest, KeepsTheRequestLineFieldsAndBody) {
  const std::string wire =
      "POST /v1/chat/completions?x=1 HTTP/1.1\r\nHost: a\r\nx-agent-name: router\r\nContent-Type: application/json\r\n"
      "X-Trace: 1\r\nX-Trace: 2\r\nContent-Length: 11\r\n\r\nhello world";
  for (std::size_t piece : {1u, 5u, 4096u}) {
    ClientRequest request;
    ASSERT_FALSE(read_all(request, wire, piece));
    EXPECT_TRUE(request.is_done());
    EXPECT_EQ(http::verb::post, request.method());
    EXPECT_EQ("POST", request.method_string());
    EXPECT_EQ("/v1/chat/completions?x=1", request.target());
    EXPECT_EQ(11, request.version());
    EXPECT_TRUE(request.keep_alive());
    EXPECT_EQ("hello world", request.body());
    EXPECT_EQ("router", request["X-Agent-Name"]);  // any case
    EXPECT_EQ("application/json", request[http::field::content_type]);
    EXPECT_EQ("application/json", request["content-type"]);
    EXPECT_EQ("1", request["x-trace"]);  // the first of repeated fields
    EXPECT_EQ("", request["X-Missing"]);
    EXPECT_EQ("", request[http::field::expect]);
    std::vector<std::string> fields;
    for (const auto& field : request) {
      fields.push_back(std::string(field.name_string()) + "=" + std::string(field.value()));
    }
    EXPECT_EQ((std::vector<std::string>{"Host=a", "x-agent-name=router", "Content-Type=application/json",
                                        "X-Trace=1", "X-Trace=2", "Content-Length=11"}),
              fields);
    EXPECT_EQ(http::field::host, (*request.begin()).name());
    EXPECT_EQ(http::field::unknown, (*std::next(request.begin())).name());
  }
}

TEST(ClientRequest, ChunkedBodyHttp10AndConnectionClose) {
  ClientRequest chunked;
  ASSERT_FALSE(read_all(chunked,
                        "POST /v1/messages HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
                        "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n",
                        3));
  EXPECT_EQ("hello world", chunked.body());

  ClientRequest old;
  ASSERT_FALSE(read_all(old, "GET /healthz HTTP/1.0\r\n\r\n", 4096));
  EXPECT_EQ(10, old.version());
  EXPECT_FALSE(old.keep_alive());
  EXPECT_EQ(old.begin(), old.end());

  ClientRequest closing;
  ASSERT_FALSE(read_all(closing, "GET / HTTP/1.1\r\nConnection: close\r\n\r\n", 4096));
  EXPECT_FALSE(closing.keep_alive());
  EXPECT_EQ("close", closing[http::field::connection]);
}

TEST(ClientRequest, LimitsAndMalformedInputFail) {
  ClientRequest limited;
  limited.body_limit(4);
  EXPECT_EQ(http::error::body_limit, read_all(limited, "POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello", 4096));

  ClientRequest header;
  header.header_limit(64);
  EXPECT_EQ(http::error::header_limit,
            read_all(header, "GET / HTTP/1.1\r\nX-Long: " + std::string(100, 'a') + "\r\n\r\n", 4096));

  ClientRequest bad;
  EXPECT_TRUE(read_all(bad, "GET / HTTP/1.1\r\nBad Field: x\r\n\r\n", 4096));

  ClientRequest cut;
  EXPECT_TRUE(read_all(cut, "POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\nshort", 4096));
}


TEST(ClientRequest, Issue13_9_TrailersAreDroppedNotMergedIntoTheHead) {
  for (std::size_t piece : {1u, 7u, 4096u}) {
    ClientRequest request;
    ASSERT_FALSE(read_all(request,
                          "POST /v1/chat/completions HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
                          "2\r\n{}\r\n0\r\nX-Agent-Name: router\r\nAuthorization: Bearer stolen\r\n\r\n",
                          piece));
    EXPECT_EQ("{}", request.body());
    EXPECT_EQ("", request["X-Agent-Name"]);
    EXPECT_EQ("", request[http::field::authorization]);
    std::vector<std::string> names;
    for (const auto& field : request) names.emplace_back(field.name_string());
    EXPECT_EQ((std::vector<std::string>{"Host", "Transfer-Encoding"}), names);
  }
}

TEST(ClientRequest, Issue13_9_TransferEncodingWithContentLengthIsRefused) {
  for (const char* fields : {"Transfer-Encoding: gzip\r\nContent-Length: 2",
                             "Content-Length: 2\r\nTransfer-Encoding: gzip",
                             "Transfer-Encoding: chunked\r\nContent-Length: 2",
                             "Content-Length: 2\r\nTransfer-Encoding: chunked"}) {
    ClientRequest request;
    const error_code ec = read_all(request, std::string("POST / HTTP/1.1\r\n") + fields + "\r\n\r\n0\r\n\r\n", 4096);
    ASSERT_TRUE(ec) << fields;
    EXPECT_EQ(400, request.refusal(ec).status) << fields;
    EXPECT_EQ("malformed HTTP request: Transfer-Encoding together with Content-Length", request.refusal(ec).message);
  }
}

TEST(ClientRequest, Issue13_9_OnlyChunkedIsAcceptedAsTransferEncoding) {
  ClientRequest gzip;
  error_code ec = read_all(gzip, "POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\nabc", 4096);
  EXPECT_EQ(400, gzip.refusal(ec).status);
  EXPECT_EQ("malformed HTTP request: Transfer-Encoding \"gzip\" does not end with chunked (the body length is unknown)",
            gzip.refusal(ec).message);
  ClientRequest layered;
  ec = read_all(layered, "POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: Chunked\r\n\r\n0\r\n\r\n",
                4096);
  EXPECT_EQ(501, layered.refusal(ec).status);
  EXPECT_EQ("Transfer-Encoding \"gzip, Chunked\" is not supported: only chunked", layered.refusal(ec).message);
  ClientRequest plain;
  EXPECT_FALSE(read_all(plain, "POST / HTTP/1.1\r\nTransfer-Encoding: CHUNKED\r\n\r\n1\r\nx\r\n0\r\n\r\n", 4096));
  EXPECT_EQ("x", plain.body());
}

TEST(ClientRequest, Issue13_9_ChunkSizeOverflowIsAMalformedBody) {
  ClientRequest request;
  const error_code ec =
      read_all(request, "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n1ffffffffffffffff\r\nx\r\n", 4096);
  ASSERT_TRUE(ec);
  EXPECT_EQ(400, request.refusal(ec).status);
  EXPECT_EQ("malformed HTTP request body: bad chunk", request.refusal(ec).message);
}

}  // namespace
}  // namespace weld::proxy
