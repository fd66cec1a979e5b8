// Fuzzes the ECMAScript pattern translator and both engines: any byte string
// as a pattern must compile or fail cleanly, and searching must terminate.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "weld/schema/regex.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  // First line: the pattern; the rest: the subject.
  std::size_t split = input.find('\n');
  std::string_view pattern = input.substr(0, split);
  std::string_view subject = split == std::string_view::npos ? std::string_view() : input.substr(split + 1);
  (void)weld::schema::Regex::check_syntax(pattern);
  weld::Result<weld::schema::Regex> re = weld::schema::Regex::compile(pattern);
  if (re) {
    (void)re->search(subject);
    (void)re->search(pattern);
  }
  return 0;
}
