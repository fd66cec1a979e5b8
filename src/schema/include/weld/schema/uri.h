#pragma once
/// \file
/// The little of RFC 3986 that JSON Schema needs: resolving a reference
/// against a base URI, splitting off the fragment, percent-decoding.

#include <string>
#include <string_view>

namespace weld::schema {

/// Resolves `reference` against `base` (RFC 3986 §5.2, with dot-segment
/// removal). An empty base returns the reference as is.
std::string resolve_uri(std::string_view base, std::string_view reference);

/// Splits "a#b" into "a" and "b" (the fragment without '#'); `has_fragment`
/// tells an empty fragment ("a#") from none.
void split_fragment(std::string_view uri, std::string_view& without, std::string_view& fragment,
                    bool* has_fragment = nullptr);

/// The URI without its fragment.
std::string_view strip_fragment(std::string_view uri);


/// True when `uri` has a scheme ("http:", "urn:", …).
bool has_scheme(std::string_view uri);

}  // namespace weld::schema
