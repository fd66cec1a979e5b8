#pragma once
/// \file
/// JSON Pointer (RFC 6901).

#include <string>
#include <string_view>
#include <vector>

#include "weld/json/value.h"

namespace weld::json {

/// Escapes one reference token (`~` → `~0`, `/` → `~1`).
std::string escape_pointer_token(std::string_view token);

/// Appends "/<escaped token>" to `pointer`.
void append_pointer(std::string& pointer, std::string_view token);
/// Appends "/<index>" to `pointer`.
void append_pointer(std::string& pointer, std::size_t index);

/// Splits a pointer into unescaped tokens; false when malformed (not empty
/// and not starting with '/', or a bad `~` escape).
bool split_pointer(std::string_view pointer, std::vector<std::string>& tokens);

/// Resolves `pointer` against `root`; nullptr when it does not resolve.
const Value* resolve_pointer(const Value& root, std::string_view pointer);

}  // namespace weld::json
