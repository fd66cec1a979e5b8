// Fuzzes the strict JSON parser and the serializer: anything that parses must
// serialize and parse again to an equal value.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "weld/json/parse.h"
#include "weld/json/serialize.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto doc = weld::json::parse(text);
  if (!doc) return 0;
  std::string out = weld::json::serialize(*doc);
  auto again = weld::json::parse(out);
  if (!again || !(*again == *doc)) std::abort();
  return 0;
}
