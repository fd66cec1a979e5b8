#pragma once
// Helpers shared by the built-in filters to build replies in the client's
// API shape (both the plain body and the SSE form).

#include <string>
#include <string_view>

#include "weld/json/serialize.h"
#include "weld/proxy/filter.h"

namespace weld::proxy::filters {

/// Ends the request with `outcome` and an error in the client's shape: HTTP
/// `status` with the JSON body, or, if the stream already started, an SSE
/// error frame carrying the same body (type, message, candidate), after a
/// `weld.discard` of any partial answer already streamed (stream_partial).
inline FilterAction reply_error(Exchange& ex, Outcome outcome, int status, std::string_view type,
                                std::string_view message, const json::Value* candidate = nullptr) {
  ex.outcome = outcome;
  ex.reply = Reply{};
  ex.reply.status = status;
  ex.reply.final = is_final(outcome);
  ex.reply.body = json::serialize(render_error(ex.api, type, message, candidate));
  if (ex.client_stream) {
    if (ex.partial) ex.reply.stream_frames = ex.partial->discard("failed");
    ex.reply.stream_frames += render_stream_error(ex.api, type, message, candidate);
  }
  return FilterAction::Reply;
}

}  // namespace weld::proxy::filters
