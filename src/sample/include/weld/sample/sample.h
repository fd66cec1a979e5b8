#pragma once
/// \file
/// Schema-valid example instances (docs/schema.md, "weld sample"): backs `weld sample` and the
/// offline model.
///
/// \code
///   weld::Result<weld::json::Value> v = weld::sample::generate(schema_json, {.seed = 7});
/// \endcode

#include <cstdint>
#include <memory>

#include "weld/base/result.h"
#include "weld/json/value.h"
#include "weld/schema/schema.h"

namespace weld::sample {

/// Options for `generate`.
struct Options {
  /// Same seed, same schema → same instance.
  std::uint64_t seed = 0;
  /// Index of the instance within a run of `weld sample -n N` (mixed into
  /// the seed so the N instances differ).
  std::uint64_t index = 0;
  /// Generate an object at the root whenever the schema allows one (tool
  /// arguments are always objects: the offline model sets this, so `{}`
  /// gives `{}`-like objects rather than a string or a number).
  bool object_root = false;
};

/// Generates an instance that validates against `schema` (enums, consts,
/// required properties, bounds, formats, patterns where feasible): each
/// candidate is checked with the schema engine, and up to 32 seeds derived
/// from (seed, index) are tried. Errors: code "schema" when the schema does
/// not compile (message from SchemaError), code "sample" with
/// `could not sample a valid instance: <violation>` or
/// `could not sample a valid instance: <why>` otherwise.
Result<json::Value> generate(const json::Value& schema, const Options& options = {});

/// A schema compiled once for many instances (`weld sample -n N`, the
/// offline model). Immutable; `generate` may be called from several threads.
///
/// \code
///   auto sampler = weld::sample::Sampler::create(schema_json);
///   if (!sampler) return sampler.error();
///   for (std::uint64_t i = 0; i < n; ++i) print(*sampler->generate({.seed = 7, .index = i}));
/// \endcode
class Sampler {
 public:
  /// Compiles `schema` for validation (non-strict: what validates is what
  /// counts; formats asserted). Error code "schema" when it does not compile.
  static Result<Sampler> create(const json::Value& schema);
  /// Uses an already compiled schema (its `source()` is sampled).
  explicit Sampler(std::shared_ptr<const schema::Schema> compiled);

  /// One instance for (seed, index); see `generate` above.
  Result<json::Value> generate(const Options& options = {}) const;

 private:
  std::shared_ptr<const schema::Schema> compiled_;
};

}  // namespace weld::sample
