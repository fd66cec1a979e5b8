#pragma once
/// \file
/// A shortcut for the patterns real schemas use most (`^[a-zA-Z0-9_.-]*$`,
/// `.+`, `^x-`, `^.{1,256}$`, `^[a-z][a-z0-9_]*$` …): one character class
/// with a repetition (after, when anchored at the start, a run of single
/// characters or classes: an identifier's first character, `#` before a
/// colour's digits; before, when anchored at the end, another such run:
/// `^\{\{\w[\w.-]*\}\}$`), or one literal, with optional anchors.
/// Decided without the regex engine on ASCII subjects; anything else goes
/// to weld::schema::Regex.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace weld::schema {

struct SimplePattern {
  enum class Kind : std::uint8_t { Class, Literal };
  Kind kind = Kind::Class;
  bool anchored_start = false;
  bool anchored_end = false;
  /// ASCII membership of the class (Kind::Class).
  std::uint64_t bits[2] = {0, 0};
  std::uint32_t min = 1, max = 1;  // repetition; max == UINT32_MAX: unbounded
  /// Kind::Class anchored at the start: one character of each of these
  /// classes, in order, before the repeated class.
  std::vector<std::array<std::uint64_t, 2>> prefix;
  /// Kind::Class anchored at the end: one character of each of these
  /// classes, in order, after the repeated class.
  std::vector<std::array<std::uint64_t, 2>> suffix;
  bool has_affixes = false;  // a prefix or a suffix
  bool dot = false;          // the class is `.` (any ASCII but \n and \r)
  std::string literal;  // Kind::Literal
};

/// The simple form of `pattern`, or nullopt when it is not one.
std::optional<SimplePattern> parse_simple_pattern(std::string_view pattern);

/// 1 match, 0 no match, -1 undecided (non-ASCII subject): use the regex.
int match_simple_pattern(const SimplePattern& pattern, std::string_view subject);

}  // namespace weld::schema
