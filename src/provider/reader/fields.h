#pragma once
// Typed lookups into JSON weld did not write (a model server's answer, a
// client's request: never trusted, any member may be missing or of another
// type), the one home of them for every protocol's reader and writer.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "weld/json/value.h"

namespace weld::provider::fields {

/// `object[key]` when `object` is an object and the member a string, else nullptr.
const std::string* string_member(const json::Value* object, std::string_view key);

/// `object[key]` when it is an object, else nullptr.
const json::Value* object_member(const json::Value* object, std::string_view key);

/// `object[key]` when `object` is an object and the member an array, else nullptr.
const json::Array* array_member(const json::Value* object, std::string_view key);

/// The same lookups on a value held by reference.
inline const std::string* string_member(const json::Value& object, std::string_view key) {
  return string_member(&object, key);
}
inline const json::Array* array_member(const json::Value& object, std::string_view key) {
  return array_member(&object, key);
}

/// `object[key]` as an integer: an integer, or a real in the int64 range
/// ("12.0"; one outside it, which converting would make undefined behaviour,
/// found by fuzzing, is nullopt).
std::optional<std::int64_t> integer_member(const json::Value* object, std::string_view key);

/// At most 120 bytes of `text` (cut on a character boundary), for messages.
std::string preview(std::string_view text);

/// Argument text of a past call as a request sends it back: servers such as
/// vLLM json-parse it when rendering the chat template, so text that is not
/// JSON (or none) becomes "{}" (the tool result that follows says what was
/// wrong).
std::string arguments_to_send(const std::string& arguments);

/// A schema as a request sends it: a boolean schema becomes {}.
json::Value schema_to_send(const json::Value& schema);

/// Argument text of a tool call given as a JSON string (the API) or as a
/// value (Ollama-style servers): the string itself, or the value serialized
/// in its key order; "" for null or absent.
std::string arguments_text(const json::Value* arguments);

}  // namespace weld::provider::fields
