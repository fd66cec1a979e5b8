// Fuzzes the SSE decoder; the protocol readers built on it have
// their own targets (*_reader_fuzz.cc).
// Invariants: decoding in arbitrary chunks gives exactly the events of
// decoding in one piece; every event's type, data and id are valid UTF-8;
// nothing crashes, hangs or grows past the limits.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "weld/json/utf8.h"
#include "weld/provider/sse.h"

namespace {

using weld::provider::SseDecoder;
using weld::provider::SseEvent;
using weld::provider::SseLimits;

bool decode(std::string_view text, std::string_view cuts, std::vector<SseEvent>& events, bool& failed) {
  SseDecoder decoder(SseLimits{4096, 8192});
  std::size_t pos = 0, cut_index = 0;
  while (pos < text.size()) {
    std::size_t len = cuts.empty() ? text.size() : 1 + static_cast<unsigned char>(cuts[cut_index++ % cuts.size()]) % 64;
    auto st = decoder.feed(text.substr(pos, len), events);
    if (!st) {
      failed = true;
      return decoder.finish();
    }
    pos += len;
  }
  return decoder.finish();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  // The first bytes (up to the first 0xFF, at most 16) choose chunk sizes.
  std::size_t split = input.find('\xFF');
  std::string_view cuts, text = input;
  if (split != std::string_view::npos && split <= 16) {
    cuts = input.substr(0, split);
    text = input.substr(split + 1);
  }

  std::vector<SseEvent> whole, chunked;
  bool whole_failed = false, chunked_failed = false;
  bool whole_partial = decode(text, {}, whole, whole_failed);
  bool chunked_partial = decode(text, cuts.empty() ? std::string_view("\x01") : cuts, chunked, chunked_failed);
  if (whole_failed != chunked_failed) std::abort();
  if (!whole_failed) {
    if (whole_partial != chunked_partial) std::abort();
    if (whole.size() != chunked.size()) std::abort();
    for (std::size_t i = 0; i < whole.size(); ++i) {
      if (whole[i].type != chunked[i].type || whole[i].data != chunked[i].data ||
          whole[i].id != chunked[i].id || whole[i].retry_ms != chunked[i].retry_ms)
        std::abort();
    }
  }
  for (const SseEvent& event : whole) {
    if (!weld::json::is_valid_utf8(event.type) || !weld::json::is_valid_utf8(event.data) ||
        !weld::json::is_valid_utf8(event.id))
      std::abort();
  }

  return 0;
}
