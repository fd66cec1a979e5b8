#pragma once
// The lenient parser behind the parse repairs (docs/design.md, "Repairs"). Private to weld_repair.
//
// It is deliberately separate from the strict parser in src/json: the strict
// parser decides what is valid JSON; this one only recovers a value from text
// a model meant as JSON, and says every liberty it took.

#include <string_view>
#include <vector>

#include "weld/base/result.h"
#include "weld/json/value.h"
#include "weld/repair/repair.h"

namespace weld::repair {

/// What the lenient parser recovered and which parse repairs it needed.
struct LenientParse {
  json::Value value;
  /// One entry per repair kind (first occurrence's path; detail counts the
  /// rest). Empty when the text was strict JSON.
  std::vector<Repair> repairs;
};

/// Recovers a JSON value from `text`: accepts trailing commas, single-quoted
/// strings, unquoted keys, Python's True/False/None, raw control characters
/// inside strings, a Markdown code fence around the document, and a document
/// (object or array) inside surrounding prose — unless the prose holds a
/// second complete document of the same kind: then it fails saying where both
/// are (no guess). Otherwise fails with the strict parser's error when
/// nothing can be recovered. Never reads past `text`,
/// nesting is capped at 512 levels, and the work is linear in the text size
/// times a small constant (at most 64 start positions are tried in prose).
///
/// \code
///   auto r = weld::repair::lenient_parse("```json\n{a: 'x', b: True,}\n```");
///   // r->value == {"a":"x","b":true}; r->repairs kinds: code_fence,
///   // unquoted_keys, single_quotes, python_literals, trailing_comma
/// \endcode
Result<LenientParse> lenient_parse(std::string_view text);

}  // namespace weld::repair
