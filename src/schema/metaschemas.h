#pragma once
/// \file
/// The official dialect meta-schemas, built in (never fetched: docs/schema.md, "References").

#include <string_view>

namespace weld::schema {

/// The JSON text of the built-in document for `uri` (a trailing "#" is
/// ignored); empty when weld has no such document.
std::string_view builtin_document(std::string_view uri);

}  // namespace weld::schema
