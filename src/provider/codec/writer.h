#pragma once
// Pieces every protocol's writer uses (private to src/provider): SSE frames,
// the text of a streamed answer in deltas, deterministic ids, object roots.

#include <string>
#include <string_view>
#include <vector>

#include "weld/json/value.h"
#include "weld/provider/codec.h"
#include "../reader/fields.h"

namespace weld::provider::writer {

using provider::object_root;
using provider::text_deltas;

/// Appends "event: <name>\ndata: <data>\n\n".
void sse_event(std::string& out, std::string_view name, const json::Value& data);
/// Appends "data: <data>\n\n".
void sse_data(std::string& out, const json::Value& data);


/// `prefix` + 24 hex digits of a hash of `seed` (deterministic, so that the
/// writers stay pure and testable).
std::string make_id(std::string_view prefix, std::string_view seed);

/// A request's tools, its forced tool_choice and its native format, set on
/// `body` in `codec`'s shapes (the request builders' common part).
void put_tools(const Codec& codec, json::Value& body, const Request& request);

/// Parses `text` as a JSON object; an empty object when it is not one.
json::Value object_or_empty(std::string_view text);
/// Whether `text` is a JSON object.
bool is_object_text(std::string_view text);

/// Typed lookups into what a client or server sent (reader/fields.h).
using fields::array_member;
using fields::string_member;

/// The object member `key` of `body` (created, or replacing a member of
/// another type, when needed).
json::Value& object_member(json::Value& body, std::string_view key);

/// Removes `member` from `body[key]` and `body[key]` itself once empty.
void erase_nested(json::Value& body, std::string_view key, std::string_view member);

/// `body[key]` as an array (`body` made an object, the member created or
/// replacing one of another type when needed): a request's conversation.
json::Value& array_member(json::Value& body, std::string_view key);

/// The answer's text as one block streamed (Anthropic content block 0,
/// OpenAI Chat choice 0): `codec`'s block_start, a block_text per delta,
/// block_stop and message_end.
std::string one_block(const Codec& codec, const AnswerHead& head, std::string_view text, const Usage& usage);

/// OpenAI's error body (Chat and Responses):
/// {"error":{"message","type","param":null,"code":null}}, `candidate` (may
/// be null) as `error.candidate`.
json::Value openai_error_body(std::string_view type, std::string_view message, const json::Value* candidate);

/// What an unrun call of another tool is told.
inline constexpr std::string_view kNotRun = "Error: this tool call was not run.";

}  // namespace weld::provider::writer
