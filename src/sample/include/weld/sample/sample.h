#pragma once
/// \file
/// Schema-valid example instances (SPEC §5): backs `weld sample` and the
/// offline model.
///
/// \code
///   weld::Result<weld::json::Value> v = weld::sample::generate(schema_json, {.seed = 7});
/// \endcode

#include <cstdint>

#include "weld/base/result.h"
#include "weld/json/value.h"

namespace weld::sample {

/// Options for `generate`.
struct Options {
  /// Same seed, same schema → same instance.
  std::uint64_t seed = 0;
  /// Index of the instance within a run of `weld sample -n N` (mixed into
  /// the seed so the N instances differ).
  std::uint64_t index = 0;
};

/// Generates an instance meant to validate against `schema` (enums, consts,
/// required properties, bounds, formats, patterns where feasible). Fails
/// with an Error when the schema is unsatisfiable or too hard to sample.
Result<json::Value> generate(const json::Value& schema, const Options& options = {});

}  // namespace weld::sample
