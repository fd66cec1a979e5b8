#pragma once
/// \file
/// Strict RFC 8259 parser into `Value`.

#include <string_view>

#include "weld/base/result.h"
#include "weld/json/value.h"

namespace weld::json {

/// Limits for `parse()`.
struct ParseOptions {
  /// Deepest nesting of arrays/objects accepted; deeper input is an error,
  /// never a stack overflow.
  int max_depth = 512;
};

/// Parses one JSON document (surrounding whitespace allowed). Strings must be
/// valid UTF-8; lone surrogate escapes are errors. On failure the `Error` has
/// code "parse" ("depth" when nested deeper than `max_depth`), a message like `unexpected character 'x'`, and `where` like
/// `line 1 column 5` (columns count bytes, from 1).
///
/// \code
///   auto doc = weld::json::parse(R"({"a":[1,2.5,"x"]})");
///   if (!doc) std::cerr << doc.error().message << " at " << doc.error().where;
/// \endcode
Result<Value> parse(std::string_view text, const ParseOptions& options = {});

}  // namespace weld::json
