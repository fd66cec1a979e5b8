// Differential fuzzer for the fast JSON parser and serializer: on any input
// they must agree with the frozen pre-speed-work implementation
// (src/json/reference_json.h) on the value (types, key order, exact doubles),
// the compact and pretty output, the error message and its position, and
// write_string of the raw bytes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "../src/json/reference_json.h"
#include "weld/json/parse.h"
#include "weld/json/serialize.h"

namespace {

void check(std::string_view text, const weld::json::ParseOptions& options) {
  auto fast = weld::json::parse(text, options);
  auto slow = weld::json::reference::parse(text, options);
  if (fast.ok() != slow.ok()) std::abort();
  if (!fast) {
    if (fast.error().message != slow.error().message || fast.error().where != slow.error().where) std::abort();
    return;
  }
  if (!weld::json::reference::same_exact(*fast, *slow)) std::abort();
  if (weld::json::serialize(*fast) != weld::json::reference::serialize(*slow)) std::abort();
  if (weld::json::serialize(*fast, {.indent = 2}) != weld::json::reference::serialize(*slow, {.indent = 2})) {
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  check(text, {});
  check(text, {.max_depth = 1 + static_cast<int>(size % 5)});
  std::string fast = "x", slow = "x";
  weld::json::write_string(fast, text);
  weld::json::reference::write_string(slow, text);
  if (fast != slow) std::abort();
  return 0;
}
