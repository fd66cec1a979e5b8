// Fuzzes every format checker: any string, any known format, must return
// (no crash, no hang, no sanitizer report).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "weld/json/utf8.h"
#include "weld/schema/format.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  // Formats only ever see JSON strings, which are valid UTF-8.
  if (!weld::json::is_valid_utf8(input)) return 0;
  static constexpr std::string_view kFormats[] = {
      "date-time", "date", "time", "duration", "email", "idn-email", "hostname", "idn-hostname", "ipv4", "ipv6",
      "uri", "uri-reference", "iri", "iri-reference", "uri-template", "uuid", "json-pointer",
      "relative-json-pointer", "regex"};
  for (std::string_view format : kFormats) (void)weld::schema::check_format(format, input);
  return 0;
}
