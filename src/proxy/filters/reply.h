#pragma once
// Helpers shared by the built-in filters to build replies in the client's
// API shape (both the plain body and the SSE form).

#include <string>
#include <string_view>

#include "weld/json/serialize.h"
#include "weld/proxy/filter.h"

namespace weld::proxy::filters {

/// Sets `ex.reply` to an error in the client's shape: HTTP `status` with the
/// JSON body, or an SSE error frame if the stream already started.
inline FilterAction reply_error(Exchange& ex, int status, std::string_view type, std::string_view message,
                                const json::Value* candidate = nullptr) {
  ex.reply = Reply{};
  ex.reply.status = status;
  ex.reply.body = json::serialize(render_error(ex.api, type, message, candidate));
  if (ex.client_stream) ex.reply.stream_frames = render_stream_error(ex.api, type, message);
  return FilterAction::Reply;
}

/// The error type name for a generic failure of the upstream, per API.
inline std::string_view upstream_error_type(Api api) { return api == Api::Anthropic ? "api_error" : "upstream_error"; }

}  // namespace weld::proxy::filters
