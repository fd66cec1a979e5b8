// json::Compactor (src/json/compact.cc) on arbitrary bytes fed in pieces
// (the first byte sets the piece size): no crash, no hang, every piece valid
// UTF-8; and when the input is a JSON document, the output adds up to what
// serialize gives for it (abort otherwise, so the fuzzer reports it).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "weld/json/compact.h"
#include "weld/json/parse.h"
#include "weld/json/serialize.h"
#include "weld/json/utf8.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t step = 1 + data[0] % 16;
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  weld::json::Compactor compactor;
  std::string out;
  for (std::size_t at = 0; at < text.size(); at += step) {
    std::string piece = compactor.feed(text.substr(at, step));
    if (!weld::json::is_valid_utf8(piece)) std::abort();
    out += piece;
  }
  std::string tail = compactor.finish();
  if (!weld::json::is_valid_utf8(tail)) std::abort();
  out += tail;
  auto doc = weld::json::parse(text);
  if (!doc) return 0;
  if (compactor.stopped()) std::abort();
  const std::string want = weld::json::serialize(*doc);
  if (out == want) return 0;
  // Duplicate keys: the parser keeps the last value, the stream has both.
  auto again = weld::json::parse(out);
  if (!again || weld::json::serialize(*again) != want) std::abort();
  return 0;
}
