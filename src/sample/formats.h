#pragma once
// Example strings for the `format` values weld asserts (docs/schema.md, "What validates").
// Private to weld_sample.

#include <optional>
#include <string>
#include <string_view>

#include "prng.h"

namespace weld::sample {

/// A random string of format `format` (date-time, date, time, duration,
/// email, idn-email, hostname, idn-hostname, ipv4, ipv6, uri, uri-reference,
/// iri, iri-reference, uri-template, uuid, json-pointer,
/// relative-json-pointer, regex); nullopt for a format weld does not know.
std::optional<std::string> generate_format(std::string_view format, Prng& rng);

/// A readable lowercase word from a fixed list.
std::string_view random_word(Prng& rng);

}  // namespace weld::sample
