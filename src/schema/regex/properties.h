#pragma once
// Unicode property escapes (\p{…} / \P{…}) as ECMAScript names them, mapped
// to what RE2 and PCRE2 understand. Private to weld_schema_regex.

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace weld::schema::regex_detail {

/// A code point range, inclusive.
using CodeRange = std::pair<char32_t, char32_t>;

/// How to write one property escape inside a character class.
struct PropertyTranslation {
  /// When non-empty: the property is exactly these ranges (ASCII, Any, …);
  /// the caller complements them for \P.
  std::vector<CodeRange> ranges;
  /// Class items for RE2 (e.g. `\p{Lu}`); empty when RE2 cannot express it.
  std::string re2;
  /// Class items for PCRE2.
  std::string pcre2;
  /// True when `re2` is usable.
  bool re2_ok = true;
};

/// Translates the body of `\p{body}` (negated for `\P`). nullopt when
/// ECMAScript does not know the property (a syntax error).
std::optional<PropertyTranslation> translate_property(std::string_view body, bool negated);

}  // namespace weld::schema::regex_detail
