#pragma once
/// \file
/// The common shape of a wire protocol's response parser: bytes of the SSE
/// body in, one complete `Response` out.

#include <string_view>

#include "weld/base/result.h"
#include "weld/provider/model.h"

namespace weld::provider {

/// Error code a parser (or any `BodyConsumer`) uses to ask for a retry: a
/// transient server error before any content. It becomes "http" when no
/// retry is left.
inline constexpr std::string_view kRetryableStreamError = "retryable_stream_error";

/// Parses one streamed response. Errors use code "protocol" (malformed or
/// truncated stream) or "http" (an error event sent by the server), or
/// `kRetryableStreamError` for a transient server error that arrived before
/// any content (the request may be retried).
class StreamParser {
 public:
  virtual ~StreamParser() = default;
  /// Consumes a chunk of the response body (any split).
  virtual Status feed(std::string_view bytes) = 0;
  /// The body ended: the response, or a "protocol" error when the stream
  /// stopped before its terminator (`data: [DONE]` / `message_stop`).
  virtual Result<Response> finish() = 0;
};

}  // namespace weld::provider
