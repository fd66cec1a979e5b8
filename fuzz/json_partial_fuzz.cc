// close_prefix (src/json/partial.cc) on arbitrary bytes: no crash, no hang;
// and when the input is a JSON document with a container root, every prefix
// must close into valid JSON (abort otherwise, so the fuzzer reports it).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "weld/json/parse.h"
#include "weld/json/partial.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)weld::json::close_prefix(text);
  if (size > 2048) return 0;  // the property check below is quadratic
  auto doc = weld::json::parse(text);
  if (!doc || !(doc->is_object() || doc->is_array())) return 0;
  for (std::size_t i = 1; i <= size; ++i) {
    auto closed = weld::json::close_prefix(text.substr(0, i));
    if (closed && !weld::json::parse(closed->text)) std::abort();
  }
  return 0;
}
