#pragma once
// ECMAScript (`u` flag) pattern syntax -> RE2 and PCRE2 syntax. Private to
// weld_schema_regex. The parser validates the whole ECMAScript grammar, so a
// pattern that translates is a valid ECMAScript pattern (format "regex").

#include <string>
#include <string_view>

#include "weld/base/result.h"

namespace weld::schema::regex_detail {

/// The same pattern in both engines' syntax.
struct Translation {
  /// RE2 syntax; meaningful only when `needs_backtracking` is false.
  std::string re2;
  /// PCRE2 syntax (UTF mode, DOLLAR_ENDONLY, MATCH_UNSET_BACKREF).
  std::string pcre2;
  /// Look-around, back-references or a property RE2 lacks.
  bool needs_backtracking = false;
};

/// Parses `pattern` as an ECMAScript pattern with the `u` flag and
/// translates it. An invalid pattern is an Error (code "regex") whose
/// message reads like JavaScript's: `Invalid regular expression: /(?i)a/u: Invalid group`.
Result<Translation> translate(std::string_view pattern);

}  // namespace weld::schema::regex_detail
