#include "weld/provider/sse.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace weld::provider {
namespace {

std::vector<SseEvent> decode_all(std::string_view bytes, std::size_t chunk = 0) {
  SseDecoder decoder;
  std::vector<SseEvent> events;
  if (chunk == 0) chunk = bytes.size() ? bytes.size() : 1;
  for (std::size_t i = 0; i < bytes.size(); i += chunk) {
    auto st = decoder.feed(bytes.substr(i, chunk), events);
    EXPECT_TRUE(st) << st.error().message;
  }
  return events;
}

TEST(SseDecoder, ParsesEventDataIdAndDefaultsTypeToMessage) {
  auto events = decode_all("event: message_start\ndata: {\"a\":1}\nid: 7\n\ndata: x\n\n");
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].type, "message_start");
  EXPECT_EQ(events[0].data, "{\"a\":1}");
  EXPECT_EQ(events[0].id, "7");
  EXPECT_EQ(events[1].type, "message");
  EXPECT_EQ(events[1].data, "x");
  EXPECT_EQ(events[1].id, "7");  // the last event id persists
}

TEST(SseDecoder, JoinsMultiLineDataWithNewlines) {
  auto events = decode_all("data: first\ndata:second\ndata\ndata:  two spaces\n\n");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].data, "first\nsecond\n\n two spaces");
}

TEST(SseDecoder, AcceptsCrLfCrAndLfLineEnds) {
  for (std::string_view text : {"data: a\r\n\r\ndata: b\r\n\r\n", "data: a\r\rdata: b\r\r",
                                "data: a\n\ndata: b\n\n", "data: a\r\n\ndata: b\r\r\n"}) {
    auto events = decode_all(text);
    ASSERT_EQ(events.size(), 2u) << text;
    EXPECT_EQ(events[0].data, "a");
    EXPECT_EQ(events[1].data, "b");
  }
}

TEST(SseDecoder, CrLfSplitAcrossChunksIsOneLineEnd) {
  SseDecoder decoder;
  std::vector<SseEvent> events;
  ASSERT_TRUE(decoder.feed("data: a\r", events));
  ASSERT_TRUE(decoder.feed("\n", events));
  EXPECT_TRUE(events.empty());  // "\r\n" was one line end, not two
  ASSERT_TRUE(decoder.feed("\r\n", events));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].data, "a");
}

TEST(SseDecoder, IgnoresCommentsAndUnknownFieldsAndCountsComments) {
  SseDecoder decoder;
  std::vector<SseEvent> events;
  ASSERT_TRUE(decoder.feed(": keep-alive\n\n:ping\nfoo: bar\ndata: x\n\n", events));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].data, "x");
  EXPECT_EQ(decoder.comment_count(), 2u);
}

TEST(SseDecoder, EventWithoutDataIsNotDispatchedAndResetsType) {
  auto events = decode_all("event: ping\n\ndata: y\n\n");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, "message");
  EXPECT_EQ(events[0].data, "y");
}

TEST(SseDecoder, EmptyDataFieldDispatchesEmptyEvent) {
  auto events = decode_all("data:\n\n");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].data, "");
}

TEST(SseDecoder, StripsOnlyOneSpaceAfterColon) {
  auto events = decode_all("event:x\ndata:   3\n\n");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, "x");
  EXPECT_EQ(events[0].data, "  3");
}

TEST(SseDecoder, SkipsLeadingBomEvenWhenSplit) {
  std::string text = "\xEF\xBB\xBF" "data: a\n\n";
  for (std::size_t chunk = 1; chunk <= text.size(); ++chunk) {
    auto events = decode_all(text, chunk);
    ASSERT_EQ(events.size(), 1u) << chunk;
    EXPECT_EQ(events[0].data, "a") << chunk;
  }
  // Only the first BOM is special; a BOM-like prefix that is not one stays.
  auto events = decode_all("\xEF\xBB" "data: a\n\n");
  ASSERT_EQ(events.size(), 0u);  // field name "\xEF\xBB data" → U+FFFD…, ignored
}

TEST(SseDecoder, RetryFieldNeedsDigits) {
  auto events = decode_all("retry: 1500\ndata: a\n\nretry: 15x\ndata: b\n\n");
  ASSERT_EQ(events.size(), 2u);
  ASSERT_TRUE(events[0].retry_ms.has_value());
  EXPECT_EQ(*events[0].retry_ms, 1500);
  EXPECT_FALSE(events[1].retry_ms.has_value());
}

TEST(SseDecoder, IdWithNulIsIgnored) {
  auto events = decode_all(std::string("id: 1\ndata: a\n\nid: 2\0x\ndata: b\n\n", 32));
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[1].id, "1");
}

TEST(SseDecoder, EveryChunkSizeGivesTheSameEvents) {
  std::string text =
      "event: content_block_delta\r\ndata: {\"t\":\"caf\xC3\xA9 \xF0\x9F\x8C\x8D\"}\r\n\r\n"
      ": c\rdata: a\rdata: b\r\r\xEF\xBB\xBF";  // a BOM that is not leading is data
  auto whole = decode_all(text);
  ASSERT_EQ(whole.size(), 2u);
  EXPECT_EQ(whole[0].data, "{\"t\":\"caf\xC3\xA9 \xF0\x9F\x8C\x8D\"}");
  EXPECT_EQ(whole[1].data, "a\nb");
  for (std::size_t chunk = 1; chunk < text.size(); ++chunk) {
    auto events = decode_all(text, chunk);
    ASSERT_EQ(events.size(), whole.size()) << chunk;
    for (std::size_t i = 0; i < events.size(); ++i) {
      EXPECT_EQ(events[i].type, whole[i].type);
      EXPECT_EQ(events[i].data, whole[i].data);
    }
  }
}

// Regression test: a multi-byte UTF-8 sequence split across two
// network reads must come out whole, not as replacement characters.
TEST(SseDecoder, split_utf8_in_sse) {
  const std::string text = "data: {\"s\":\"\xE2\x82\xAC \xF0\x9F\x98\x80\"}\n\n";  // € 😀
  for (std::size_t cut = 1; cut < text.size(); ++cut) {
    SseDecoder decoder;
    std::vector<SseEvent> events;
    ASSERT_TRUE(decoder.feed(std::string_view(text).substr(0, cut), events));
    ASSERT_TRUE(decoder.feed(std::string_view(text).substr(cut), events));
    ASSERT_EQ(events.size(), 1u) << cut;
    EXPECT_EQ(events[0].data, "{\"s\":\"\xE2\x82\xAC \xF0\x9F\x98\x80\"}") << cut;
  }
}

TEST(SseDecoder, InvalidUtf8BecomesReplacementCharacter) {
  auto events = decode_all("data: a\xFF" "b\xC3\n\n");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].data, "a\xEF\xBF\xBD" "b\xEF\xBF\xBD");
  events = decode_all("data: \xED\xA0\x80|\xC0\xAF\n\n");  // a surrogate, an overlong
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].data,
            "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD|\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST(SseDecoder, LineOverTheLimitIsAnErrorAndTheDecoderStaysFailed) {
  SseDecoder decoder(SseLimits{16, 1024});
  std::vector<SseEvent> events;
  ASSERT_TRUE(decoder.feed("data: 0123456789", events));  // 16 bytes: at the limit
  auto st = decoder.feed("x", events);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, ErrorCode::Protocol);
  EXPECT_EQ(st.error().message, "SSE line longer than 16 bytes");
  EXPECT_FALSE(decoder.feed("\n\n", events));
  EXPECT_TRUE(events.empty());
}

TEST(SseDecoder, EventOverTheLimitIsAnError) {
  SseDecoder decoder(SseLimits{1024, 10});
  std::vector<SseEvent> events;
  ASSERT_TRUE(decoder.feed("data: 12345\ndata: 6789\n", events));  // 5 + 1 + 4 = 10
  auto st = decoder.feed("data: x\n", events);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().message, "SSE event larger than 10 bytes");
}

TEST(SseDecoder, FinishReportsAPartialEventAndDiscardsIt) {
  SseDecoder decoder;
  std::vector<SseEvent> events;
  ASSERT_TRUE(decoder.feed("data: complete\n\ndata: cut", events));
  EXPECT_EQ(events.size(), 1u);
  EXPECT_TRUE(decoder.finish());
  SseDecoder clean;
  ASSERT_TRUE(clean.feed("data: a\n\n", events));
  EXPECT_FALSE(clean.finish());
  SseDecoder unterminated;
  ASSERT_TRUE(unterminated.feed("data: a\n", events));  // no blank line
  EXPECT_TRUE(unterminated.finish());
}

}  // namespace
}  // namespace weld::provider
