#pragma once
// Strings that match an ECMAScript pattern, for `pattern` and
// `patternProperties` (where feasible; the sampler validates what it makes). Private to
// weld_sample.

#include <optional>
#include <string>
#include <string_view>

#include "prng.h"

namespace weld::sample {

/// A string meant to match `pattern` (searched unanchored, as JSON Schema
/// does): literals, escapes (\d \w \s \xHH \uHHHH …), classes and negated
/// classes, `.`, groups (capturing, non-capturing, named), alternation,
/// quantifiers (* + ? {n} {n,} {n,m}, lazy or not), back-references. Anchors
/// generate nothing; look-around groups generate nothing (the caller
/// validates). nullopt when the pattern cannot be parsed or the string would
/// exceed 4096 bytes. Unbounded repeats use at most `extra_repeats` beyond
/// their minimum.
std::optional<std::string> generate_from_pattern(std::string_view pattern, Prng& rng, int extra_repeats = 3);

}  // namespace weld::sample
