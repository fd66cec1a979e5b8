#pragma once
// Two-phase pass-back (SPEC §3.4): the upstream's assistant message (calls of
// the client's own tools) rendered for the client, whole or as a stream.

#include <cstdint>
#include <string>
#include <string_view>

#include "weld/proxy/weld.h"

namespace weld::proxy::filters {

/// Seconds since the Unix epoch: the OpenAI `created` of an answer the
/// proxy makes itself (pass-back, a partially streamed answer).
std::int64_t unix_now();

/// A complete response body carrying `candidate.assistant_message`.
json::Value render_pass_back(Api api, const Candidate& candidate, const Usage& usage, std::string_view client_model);

/// The same as SSE frames (Anthropic events, or OpenAI chunks and [DONE]).
std::string render_pass_back_stream(Api api, const Candidate& candidate, const Usage& usage,
                                    std::string_view client_model, bool include_usage);

}  // namespace weld::proxy::filters
