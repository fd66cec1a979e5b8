#pragma once
/// \file
/// The OpenAI Chat Completions wire protocol (also spoken by vLLM, llama.cpp,
/// Ollama, SGLang): request JSON and the streamed `chat.completion.chunk`
/// parser.

#include <memory>
#include <string>
#include <string_view>

#include "weld/json/value.h"
#include "weld/provider/model.h"
#include "weld/provider/sse.h"
#include "weld/provider/stream_parser.h"

namespace weld::provider {

/// The request body for `request` (with `"stream":true` and
/// `"stream_options":{"include_usage":true}`). Assistant tool-call arguments
/// that are not valid JSON are sent as "{}" (servers such as vLLM parse them).
///
/// \code
///   weld::json::Value body = weld::provider::openai_request_body(request);
///   std::string text = weld::json::serialize(body);
/// \endcode
json::Value openai_request_body(const Request& request);

/// `{base}/chat/completions` (a trailing slash on the base is ignored).
std::string openai_chat_url(std::string_view base_url);

/// Parses an OpenAI-style SSE stream: `choices[0].delta.content`,
/// `delta.tool_calls[]` fragments per `index`, `finish_reason`, the usage
/// chunk, `data: [DONE]`, in-stream `{"error":…}` objects.
class OpenAiStreamParser : public StreamParser {
 public:
  explicit OpenAiStreamParser(const StreamObserver* observer = nullptr) : observer_(observer) {}
  Status feed(std::string_view bytes) override;
  Result<Response> finish() override;
  /// Applies one decoded chunk (the JSON of one `data:` line).
  Status apply(const json::Value& chunk);

 private:
  struct Slot {
    std::int64_t index = 0;
    ToolCall call;
  };
  Slot& slot_for(const json::Value& delta_call);

  const StreamObserver* observer_;
  SseDecoder decoder_;
  std::vector<SseEvent> events_;
  Response response_;
  std::vector<Slot> slots_;
  bool done_ = false;
  bool content_seen_ = false;
  std::size_t chunks_ = 0;
};

}  // namespace weld::provider
