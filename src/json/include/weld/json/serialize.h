#pragma once
/// \file
/// Serialising a `Value` back to JSON text.

#include <string>

#include "weld/json/value.h"

namespace weld::json {

/// How to write JSON.
struct SerializeOptions {
  /// 0: compact (no whitespace at all). N > 0: pretty, N spaces per level.
  int indent = 0;
};

/// Writes `value` as JSON: keys in stored order, non-ASCII UTF-8 written raw,
/// only `"`, `\` and control characters escaped; reals in shortest
/// round-trip form with a `.0` kept for integral reals (`1.0` stays `1.0`).
std::string serialize(const Value& value, const SerializeOptions& options = {});

/// Appends `value` to `out` (same rules as `serialize`).
void serialize_to(std::string& out, const Value& value, const SerializeOptions& options = {});

/// Appends `s` as a quoted, escaped JSON string to `out`.
void write_string(std::string& out, std::string_view s);

/// `s` as a quoted, escaped JSON string.
std::string quote(std::string_view s);

}  // namespace weld::json
