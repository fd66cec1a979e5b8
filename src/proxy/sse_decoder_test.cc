#include "sse_decoder.h"

#include <gtest/gtest.h>

#include <vector>

namespace weld::proxy {
namespace {

std::vector<std::string> decode_in_pieces(std::string_view text, std::size_t piece) {
  SseDecoder decoder;
  std::vector<std::string> events;
  for (std::size_t at = 0; at < text.size(); at += piece) {
    decoder.feed(text.substr(at, piece), [&](std::string_view data) {
      events.emplace_back(data);
      return true;
    });
  }
  return events;
}

TEST(SseDecoder, EventsSplitAnywhere) {
  std::string_view text =
      "event: message_start\ndata: {\"a\":1}\n\n: comment\n\nevent: ping\r\ndata: {}\r\n\r\ndata: x\ndata: y\r\r"
      "data:[DONE]\n\n";
  for (std::size_t piece = 1; piece <= text.size(); ++piece) {
    EXPECT_EQ((std::vector<std::string>{"{\"a\":1}", "{}", "x\ny", "[DONE]"}), decode_in_pieces(text, piece))
        << "piece " << piece;
  }
}

TEST(SseDecoder, StopsWhenAskedAndOnHugeEvents) {
  SseDecoder decoder(16);
  int calls = 0;
  EXPECT_FALSE(decoder.feed("data: a\n\ndata: b\n\n", [&](std::string_view) { return ++calls < 1; }));
  EXPECT_EQ(1, calls);
  SseDecoder small(8);
  EXPECT_FALSE(small.feed("data: 0123456789\n\n", [](std::string_view) { return true; }));
  EXPECT_TRUE(small.too_large());
}

}  // namespace
}  // namespace weld::proxy
