#pragma once
/// \file
/// ECMAScript-syntax regular expressions that never take super-linear time
/// (docs/schema.md, "What validates"): translated to RE2 when RE2 can express them; patterns with
/// look-around or back-references run under PCRE2 with a hard step budget.
///
/// \code
///   auto re = weld::schema::Regex::compile("^(a+)+b$");
///   if (!re) report(re.error().message);
///   weld::schema::Regex::Match m = re->search(text);  // Yes, No or BudgetExceeded
/// \endcode

#include <memory>
#include <string>
#include <string_view>

#include "weld/base/result.h"

namespace weld::schema {

/// A compiled ECMAScript pattern (with the `u` flag, as JSON Schema
/// requires). Immutable, thread-safe to search concurrently.
class Regex {
 public:
  /// Outcome of a search.
  enum class Match { No, Yes, BudgetExceeded };

  /// Compiles `pattern`; an invalid pattern is an Error naming why.
  static Result<Regex> compile(std::string_view pattern);

  /// Checks `pattern` against the ECMAScript grammar only (format "regex"):
  /// a few valid patterns (variable-length look-behind) parse but do not
  /// compile, because PCRE2 cannot run them.
  static Status check_syntax(std::string_view pattern);

  /// Unanchored search, as ECMAScript `RegExp.prototype.test` does.
  Match search(std::string_view subject) const;

  /// The pattern as written.
  const std::string& pattern() const;
  /// True when the pattern runs on the bounded (backtracking) engine.
  bool is_bounded() const;

  Regex(Regex&&) noexcept;
  Regex& operator=(Regex&&) noexcept;
  ~Regex();

 private:
  struct Impl;
  explicit Regex(std::shared_ptr<const Impl> impl);
  std::shared_ptr<const Impl> impl_;  // shared: copies of a compiled schema share patterns
};

}  // namespace weld::schema
