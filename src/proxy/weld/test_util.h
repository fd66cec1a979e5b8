#pragma once
// Helpers for the weld tests: parse a JSON literal (failing the test when it
// does not parse) and serialise compactly, so expectations are exact JSON.

#include <string>
#include <string_view>

#include "weld/json/value.h"
#include "weld/proxy/weld.h"

namespace weld::proxy::testing {

/// Parses `text`; a parse failure is a test failure (returns null then).
json::Value j(std::string_view text);

/// Compact serialisation in stored key order.
std::string s(const json::Value& value);

/// A whole upstream body read as the proxy reads it (the provider's reader,
/// then `make_candidate`); a body the reader refuses is a test failure.
Candidate read_response(Protocol api, const json::Value& body, std::string_view agent_tool);

/// An upstream SSE body read the same way.
Candidate read_stream(Protocol api, std::string_view sse, std::string_view agent_tool);

}  // namespace weld::proxy::testing
