#pragma once
/// \file
/// Repair before retry (docs/design.md, "Repairs"): repairs that cannot change a correct
/// answer's meaning, accepted only when the repaired value then validates.
/// Shared by the headless run and the proxy.
///
/// \code
///   weld::repair::Options options;            // parse + coerce on, clamp off
///   weld::repair::Checked c = weld::repair::check_arguments(args_text, schema, options);
///   if (c.valid) emit(c.value);               // c.repairs lists what changed
///   else feed_back(weld::schema::describe(c.validation.violations));
/// \endcode

#include <string>
#include <string_view>
#include <vector>

#include "weld/json/value.h"
#include "weld/schema/lower.h"
#include "weld/schema/schema.h"

namespace weld::repair {

/// One repair applied, reported in the result envelope's `repairs`.
struct Repair {
  /// Parse repairs (one entry per kind; the detail counts repeats):
  /// "code_fence", "extracted_json", "trailing_comma", "single_quotes",
  /// "unquoted_keys", "python_literals", "control_characters" (a raw
  /// newline/tab inside a string). Schema repairs (one entry per place):
  /// "coerce_boolean", "coerce_number", "coerce_json_string", "clamp"; the
  /// lowering's own (see Options::lowering): "drop_null", "entries",
  /// "json_text", "tuple", "unwrap".
  /// An empty argument text is `{}` by rule (a tool without parameters), not a repair: it is
  /// never reported and applies under `--no-repair` too.
  std::string kind;
  /// JSON Pointer into the value ("" for the whole text).
  std::string path;
  /// Human-readable detail, e.g. "\"true\" -> true", "1.4 -> 1".
  std::string detail;
};

/// Which repairs are allowed.
struct Options {
  /// Parse repairs of the argument text. (`--no-repair` turns all off.)
  bool parse = true;
  /// Schema-aligned coercions.
  bool coerce = true;
  /// Clamp numbers into minimum/maximum (proxy `clamp`, run `--clamp`).
  bool clamp = false;
  /// The lowering the answer was asked for with (the `native` mechanism,
  /// weld/schema/lower.h): the parsed answer is first mapped back to the
  /// original's shape (Lowering::map_back) — a null only the lowering
  /// allowed dropped, entries made objects, JSON text parsed — whatever the
  /// other switches, since the lowered shape is weld's doing. What it
  /// changed is listed in `repairs` (kinds "drop_null", "entries",
  /// "json_text", "tuple", "unwrap"). Not owned; outlives the call.
  const schema::Lowering* lowering = nullptr;
};

/// Result of checking a tool call's argument text against a schema.
struct Checked {
  /// True when `value` validates.
  bool valid = false;
  /// False when the text could not be parsed as JSON even after repair.
  bool parsed = false;
  /// The value (repaired when repairs were accepted). When valid, integral
  /// reals the schema types as `integer` are integers (`36.0` -> `36`,
  /// Schema::write_integers), which is not a repair.
  json::Value value;
  /// Repairs applied to reach `value` (empty unless accepted).
  std::vector<Repair> repairs;
  /// Validation of the final value (all violations); when !parsed, a single
  /// pseudo-violation with keyword "parse", instance path "", params
  /// {"error","where"} and message "must be valid JSON (<error> at <where>)".
  /// When repairs were tried but not accepted, `value` is the (leniently)
  /// parsed value and these are its violations.
  schema::ValidationResult validation;
};

/// Parses `text` (empty → {}), validates; when invalid, tries the allowed
/// repairs and keeps them only if the result validates.
Checked check_arguments(std::string_view text, const schema::Schema& schema, const Options& options);

/// As an envelope entry: {"kind":…,"path":…,"detail":…}.
json::Value to_json(const Repair& repair);

}  // namespace weld::repair
