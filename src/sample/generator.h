#pragma once
// The instance generator behind weld::sample::generate (docs/schema.md, "weld sample"). Private to
// weld_sample: it reads the schema JSON and proposes one candidate; the
// caller validates it with the schema engine and retries with another seed.

#include <functional>
#include <string_view>

#include "prng.h"
#include "weld/base/result.h"
#include "weld/json/value.h"

namespace weld::sample {

/// Does `text` match ECMAScript `pattern` (unanchored search)? Supplied by
/// the caller (the schema engine's regex); may be empty, then any generated
/// string is assumed to match.
using PatternMatcher = std::function<bool(std::string_view pattern, std::string_view text)>;

/// Proposes one instance for `schema` using `rng`. Errors: a `false` schema,
/// bounds no value satisfies, sizes too large to sample, recursion too deep.
///
/// \code
///   Prng rng(7);
///   auto candidate = generate_candidate(schema_json, rng, {});
/// \endcode
/// With `object_root`, the root is an object whenever the schema allows one.
Result<json::Value> generate_candidate(const json::Value& schema, Prng& rng, const PatternMatcher& matcher,
                                       bool object_root = false);

}  // namespace weld::sample
