#pragma once
/// \file
/// The Anthropic Messages wire protocol: request JSON and the streamed event
/// parser (`message_start` … `message_stop`).

#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "weld/json/value.h"
#include "weld/provider/model.h"
#include "weld/provider/sse.h"
#include "weld/provider/stream_parser.h"

namespace weld::provider {

/// The request body for `request` (`"stream":true`). Tool input schemas get
/// a root `"type":"object"` when they lack a `type` (the API requires it;
/// validation still uses the original schema). An assistant
/// tool call whose arguments are not a JSON object is sent with `input: {}`,
/// keeping its id so the tool_result still pairs with it.
///
/// \code
///   weld::json::Value body = weld::provider::anthropic_request_body(request);
/// \endcode
json::Value anthropic_request_body(const Request& request);


/// `{base}/v1/messages`; a base already ending in `/v1` is accepted.
std::string anthropic_messages_url(std::string_view base_url);

/// `{host}/v1/<endpoint>` for an Anthropic base URL (the host, or the host
/// with /v1), the query kept after the path.
std::string anthropic_url(std::string_view base_url, std::string_view endpoint);

/// A non-streamed Messages response (`{"type":"message","content":[…]}`) as a
/// Response (for servers that answer `stream:true` with plain JSON). A
/// tool_use `input` given as a string is taken as the argument text.
Result<Response> anthropic_response_from_json(const json::Value& body);

/// Parses an Anthropic Messages SSE stream into a Response: text blocks
/// joined, tool_use blocks with their `partial_json` fragments joined, usage
/// from `message_start` and `message_delta`, `stop_reason`; `error` events
/// become errors (retryable when transient and before any content).
class AnthropicStreamParser : public StreamParser {
 public:
  explicit AnthropicStreamParser(const StreamObserver* observer = nullptr) : observer_(observer) {}
  Status feed(std::string_view bytes) override;
  Result<Response> finish() override;
  bool ended() const override;
  /// Applies one decoded event (`sse_type` is the SSE `event:` field, used
  /// when the JSON has no "type").
  Status apply(std::string_view sse_type, const json::Value& event);

 private:
  struct Block {
    enum class Kind { Text, ToolUse, Other } kind = Kind::Other;
    std::string text;            // Text
    std::string id, name;        // ToolUse
    std::size_t call_number = 0; // ToolUse: its place among the tool_use blocks
    std::string arguments;       // ToolUse: partial_json joined
    bool got_delta = false;
    std::string initial_input;   // ToolUse: content_block_start input, when non-empty
    json::Value raw;             // Other: the block, deltas applied (null: dropped)
  };

  const StreamObserver* observer_;
  SseDecoder decoder_;
  std::vector<SseEvent> events_;
  Response response_;
  std::map<std::int64_t, Block> blocks_;
  std::size_t tool_uses_ = 0;  // tool_use blocks started
  bool started_ = false;
  bool done_ = false;
  bool content_seen_ = false;
};

}  // namespace weld::provider
