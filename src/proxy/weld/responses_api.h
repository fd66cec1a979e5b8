#pragma once
// The OpenAI Responses API's shapes in the proxy (SPEC §4, issue 14): the
// assistant's output items, the retry turn, the client's answer (whole and
// streamed) and its error event. The other two APIs' shapes live beside
// their callers (candidate.cc, retry.cc, render.cc, render_stream.cc); the
// Responses ones differ enough (items instead of messages, typed events) to
// be kept together here.

#include <string>
#include <string_view>

#include "weld/json/value.h"
#include "weld/provider/model.h"
#include "weld/proxy/weld.h"

namespace weld::proxy::responses_api {

/// The answer's output items as a request's `input` takes them back: a
/// `message` item per text part, a `function_call` item per call (arguments
/// that are not JSON sent as "{}"), other items (reasoning…) verbatim.
json::Value output_items(const provider::Response& response);

/// The retry turn: the failed answer's items appended to `body.input` (a
/// string input becomes a user message first), a `function_call_output` per
/// call ("Error: " + errors for the agent's call, "not run" for others), and
/// `errors` as a user message when the agent's tool was not called.
void append_retry_turn(json::Value& body, const Candidate& candidate, std::string_view errors,
                       std::string_view not_run, std::string errors_for_call);

/// The client's non-streaming `response` object: one `message` output item
/// holding `text` as `output_text`, status completed, usage summed.
std::string render_response(const Candidate& last, std::string_view text, const Usage& usage,
                            std::string_view client_model);

/// `response.created` and `response.in_progress`.
std::string render_stream_start(const StreamHead& head);

/// The message item's events (added, content part, `output_text` deltas,
/// done events) and `response.completed`.
std::string render_stream_rest(const StreamHead& head, std::string_view text, const Usage& usage);

/// An `error` event carrying the error body (what the SDK's stream raises).
std::string render_stream_error(const json::Value& error_body);

/// Two-phase pass-back: a completed `response` whose output is the upstream's
/// items (the client runs its own function calls), whole or as events.
json::Value render_pass_back(const Candidate& candidate, const Usage& usage, std::string_view client_model);
std::string render_pass_back_stream(const Candidate& candidate, const Usage& usage, std::string_view client_model);

}  // namespace weld::proxy::responses_api
