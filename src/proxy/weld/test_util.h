#pragma once
// Helpers for the weld tests: parse a JSON literal (failing the test when it
// does not parse) and serialise compactly, so expectations are exact JSON.

#include <string>
#include <string_view>

#include "weld/json/value.h"

namespace weld::proxy::testing {

/// Parses `text`; a parse failure is a test failure (returns null then).
json::Value j(std::string_view text);

/// Compact serialisation in stored key order.
std::string s(const json::Value& value);

}  // namespace weld::proxy::testing
