#pragma once
// Schema-aligned coercion and clamping (docs/design.md, "Repairs"). Private to weld_repair.
//
// The walk reads only the schema JSON: it follows properties,
// additionalProperties, items/prefixItems/additionalItems, $ref into the same
// document ($defs, definitions, any JSON Pointer fragment) and allOf; it
// enters anyOf/oneOf only when the choice is unambiguous. It never decides
// validity: check_arguments validates the result and keeps it only if valid.

#include <vector>

#include "weld/json/value.h"
#include "weld/repair/repair.h"

namespace weld::repair {

/// Which coercions the walk may apply.
struct CoerceOptions {
  /// "true"/"false" → boolean, numeric string → number, stringified
  /// object/array → object/array, where the schema expects it and does not
  /// accept a string.
  bool coerce = true;
  /// Clamp numbers into minimum/maximum/exclusiveMinimum/exclusiveMaximum.
  bool clamp = false;
  /// Parse a stringified object/array leniently (code fences, trailing
  /// commas…) rather than strictly.
  bool lenient_strings = true;
};

/// Rewrites `value` in place towards `schema` and returns the repairs made
/// (empty when nothing changed).
///
/// \code
///   json::Value v = json::Object{{"n", "42"}};
///   auto repairs = coerce_to_schema(v, schema_json, {});  // v == {"n":42}
/// \endcode
std::vector<Repair> coerce_to_schema(json::Value& value, const json::Value& schema, const CoerceOptions& options);

}  // namespace weld::repair
