#pragma once
// Private helpers shared by the weld transforms: typed lookups into JSON
// bodies that tolerate any shape (the bodies come from clients and model
// servers, never trusted), and the agent's tool in each API's shape.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "weld/json/value.h"
#include "weld/proxy/weld.h"

namespace weld::proxy::wire {

/// `object[key]` when it is a string, else nullptr.
const std::string* find_string(const json::Value& object, std::string_view key);
/// `object[key]` when it is an array / object, else nullptr.
const json::Array* find_array(const json::Value& object, std::string_view key);
const json::Value* find_object(const json::Value& object, std::string_view key);

/// The agent's input schema with a root `"type":"object"` added first when
/// it has no `type` (a non-object schema becomes {"type":"object"}).
json::Value tool_schema(const json::Value& input_schema);

/// The agent's tool: Anthropic {name, description, input_schema}; OpenAI
/// {type:"function", function:{name, description, parameters}}; Responses
/// {type:"function", name, description, parameters, strict:false} (the API
/// defaults a function to strict, which refuses most schemas).
json::Value agent_tool(Api api, const Agent& agent);

/// The tool_choice that forces `name`.
json::Value forced_tool_choice(Api api, std::string_view name);

/// Parses `text` as a JSON object; nullopt when it is not one.
std::optional<json::Value> parse_object(std::string_view text);

/// `text` in pieces of at most 512 bytes, cut between code points: the
/// deltas of a rendered stream.
std::vector<std::string_view> split_text(std::string_view text);

/// A deterministic id for a message made by the proxy: `prefix` + 24 hex
/// digits of a hash of `seed`.
std::string make_id(std::string_view prefix, std::string_view seed);

}  // namespace weld::proxy::wire
