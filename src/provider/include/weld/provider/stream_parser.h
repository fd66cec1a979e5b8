#pragma once
/// \file
/// One reader per wire protocol (docs/protocols.md): the bytes of a response
/// body in, one complete `Response` out. The run loop, the proxy and the
/// batch runner all read a model server's answer through these, so a stream
/// is judged the same way (end of stream, refusals, usage) whoever reads it.
///
/// \code
///   auto reader = weld::provider::make_stream_parser(weld::provider::Protocol::AnthropicMessages);
///   for (std::string_view chunk : body_chunks)
///     if (weld::Status st = reader->feed(chunk); !st) return st.error();
///   weld::Result<weld::provider::Response> response = reader->finish();
/// \endcode

#include <cstddef>
#include <memory>
#include <string_view>

#include "weld/base/result.h"
#include "weld/json/value.h"
#include "weld/provider/model.h"
#include "weld/provider/protocol.h"

namespace weld::provider {

/// Parses one streamed response. Errors use code `ErrorCode::Protocol`
/// (malformed or truncated stream; a stream that ended before its terminal
/// event is also `temporary`: the request is sent again, like after a 5xx) or
/// `ErrorCode::Http` (an error event sent by the server), or
/// `ErrorCode::RetryableStream` (any `BodyConsumer` may use it to ask for a
/// retry; it becomes `Http` when no retry is left) for a transient server
/// error that arrived before any content (the request may be retried). After
/// an error the parser is not fed again.
class StreamParser {
 public:
  virtual ~StreamParser() = default;
  /// Consumes a chunk of the response body (any split).
  virtual Status feed(std::string_view bytes) = 0;
  /// The body ended: the response, or a "protocol" error when the stream
  /// stopped before its end (see docs/protocols.md for each protocol's).
  /// A last event whose lines are complete but that lacks its blank line
  /// (servers that close right after it) is still read.
  virtual Result<Response> finish() = 0;
  /// True once the terminal event arrived (OpenAI `finish_reason` or
  /// `[DONE]`, `message_stop`, `response.completed`/`.incomplete`): the
  /// answer is whole, and a connection that stays open after it is not
  /// waited for (docs/protocols.md, "End of stream").
  virtual bool ended() const = 0;
};

/// The streaming reader of `protocol`; `observer` (may be null, must outlive
/// the reader) sees each event's JSON.
std::unique_ptr<StreamParser> make_stream_parser(Protocol protocol, const StreamObserver* observer = nullptr);

/// The streaming request body for `request` in `protocol`'s shape (OpenAI
/// Chat with the default dialect), e.g. for a proxy's own upstream request.
json::Value request_body(Protocol protocol, const Request& request);

/// Reads a whole (non-streamed) response body of `protocol` (a server that
/// answers `stream:true` with plain JSON, or a proxy's non-streaming
/// upstream). An error body is an "http" error carrying the server's
/// message; a body that is not a response is a "protocol" error.
Result<Response> response_from_json(Protocol protocol, const json::Value& body);

}  // namespace weld::provider
