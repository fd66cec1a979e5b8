#pragma once
/// \file
/// The OpenAI Responses API wire protocol (`POST /v1/responses`, the API
/// Codex and OpenAI's newest models use; docs/protocols.md): request JSON and the
/// reader of its streamed `response.*` events and whole `response` objects.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "weld/json/value.h"
#include "weld/provider/model.h"
#include "weld/provider/sse.h"
#include "weld/provider/stream_parser.h"

namespace weld::provider {

/// The request body for `request` (`"stream":true`, `"store":false`): the
/// system prompt as `instructions`, the conversation as `input` items
/// (messages, `function_call` and `function_call_output` items), function
/// tools `{type:"function", name, description, parameters}`, a forced
/// `tool_choice: {type:"function", name}`, `text.format` json_schema for a
/// response format, `max_output_tokens`.
///
/// \code
///   weld::json::Value body = weld::provider::responses_request_body(request);
/// \endcode
json::Value responses_request_body(const Request& request);

/// `{base}/responses` (a trailing slash on the base is ignored).
std::string responses_url(std::string_view base_url);

/// A whole `response` object as a Response: `output` items (`message` with
/// `output_text` / `refusal` parts, `function_call`, others kept verbatim),
/// `usage`, `status` as the stop reason (`incomplete_details.reason` when
/// incomplete). An `{"error":…}` body or a `failed` response is an "http"
/// error with the server's message.
Result<Response> responses_response_from_json(const json::Value& body);

/// Parses a Responses SSE stream: `response.created`, `output_item.added` /
/// `.done`, `output_text.delta`, `refusal.delta`,
/// `function_call_arguments.delta` / `.done`, and the end:
/// `response.completed` or `response.incomplete` (complete; the final
/// response object's `output`, when given, is authoritative) or
/// `response.failed` / `error` (errors). Unknown events are ignored.
class ResponsesStreamParser : public StreamParser {
 public:
  explicit ResponsesStreamParser(const StreamObserver* observer = nullptr) : observer_(observer) {}
  Status feed(std::string_view bytes) override;
  Result<Response> finish() override;
  bool ended() const override;
  /// Applies one decoded event (`sse_type`: the SSE `event:` field, used when
  /// the JSON has no "type").
  Status apply(std::string_view sse_type, const json::Value& event);

 private:
  struct Item {
    enum class Kind { Message, FunctionCall, Other } kind = Kind::Other;
    std::string text, refusal;            // Message
    std::string call_id, name, arguments;  // FunctionCall
    json::Value raw;                       // Other
  };
  Item& item_at(const json::Value& event);

  const StreamObserver* observer_;
  SseDecoder decoder_;
  std::vector<SseEvent> events_;
  Response response_;
  std::map<std::int64_t, Item> items_;
  std::optional<Response> final_;  // from response.completed's output
  bool done_ = false;
  bool content_seen_ = false;
  std::size_t events_seen_ = 0;
};

}  // namespace weld::provider
