#pragma once
// Private: the pieces of a rendered client stream (render_stream.cc), for
// render_stream_rest and for PartialStream, which sends them as the answer
// is generated. Anthropic and OpenAI Chat shapes (not the Responses API).

#include <string>
#include <string_view>

#include "weld/json/value.h"
#include "weld/proxy/weld.h"

namespace weld::proxy::stream_frames {

/// Opens text block `index`: Anthropic content_block_start; OpenAI the role
/// chunk of choice `index` ("" for choice 0: the opening chunk has it).
std::string block_start(Api api, const StreamHead& head, int index);
/// One text delta of block `index`.
std::string block_text(Api api, const StreamHead& head, int index, std::string_view text);
/// Closes block `index`: content_block_stop; OpenAI finish_reason "stop".
std::string block_stop(Api api, const StreamHead& head, int index);
/// Ends the message: message_delta (end_turn, usage) and message_stop;
/// OpenAI the usage chunk when asked and `data: [DONE]`.
std::string message_end(Api api, const StreamHead& head, const Usage& usage);
/// Voids block `index` (docs/proxy.md "Partial answers"): `marker` appended
/// to its text, the block closed, and `event` sent: Anthropic as an
/// `event: weld.discard` frame after content_block_stop; OpenAI in one chunk
/// whose choice has finish_reason "weld_discarded" and `weld_discard: event`.
std::string discard(Api api, const StreamHead& head, int index, std::string_view marker, const json::Value& event);

}  // namespace weld::proxy::stream_frames
