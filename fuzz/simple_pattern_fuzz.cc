// Differential fuzzing of the patterns decided without the regex engine
// (src/schema/simple_pattern.h): for a pattern with a simple form, every
// valid UTF-8 subject must be decided as the engine decides it, or left to
// the engine (-1).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "../src/schema/simple_pattern.h"
#include "weld/json/utf8.h"
#include "weld/schema/regex.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  // First line: the pattern; the rest: the subject.
  std::size_t split = input.find('\n');
  std::string_view pattern = input.substr(0, split);
  std::string_view subject = split == std::string_view::npos ? std::string_view() : input.substr(split + 1);
  auto simple = weld::schema::parse_simple_pattern(pattern);
  if (!simple || !weld::json::is_valid_utf8(subject)) return 0;
  weld::Result<weld::schema::Regex> re = weld::schema::Regex::compile(pattern);
  if (!re) return 0;
  const int decided = weld::schema::match_simple_pattern(*simple, subject);
  if (decided == -1) return 0;
  const weld::schema::Regex::Match engine = re->search(subject);
  if (engine != weld::schema::Regex::Match::BudgetExceeded && (engine == weld::schema::Regex::Match::Yes) != (decided == 1)) {
    std::abort();
  }
  return 0;
}
