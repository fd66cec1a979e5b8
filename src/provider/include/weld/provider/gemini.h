#pragma once
/// \file
/// Google's Gemini `generateContent` wire protocol (docs/protocols.md,
/// "Codecs"): `POST {base}/models/{model}:streamGenerateContent?alt=sse`,
/// the conversation as `contents` of `parts`, tools as
/// `functionDeclarations`, `toolConfig` to force one, `generationConfig`
/// for the limits, sampling and the native JSON format. The fourth codec:
/// one folder, `src/provider/gemini/`.

#include <string>
#include <string_view>
#include <vector>

#include "weld/json/value.h"
#include "weld/provider/model.h"
#include "weld/provider/sse.h"
#include "weld/provider/stream_parser.h"

namespace weld::provider {

/// The request body for `request` (streamed by the URL, not a member).
///
/// \code
///   weld::json::Value body = weld::provider::gemini_request_body(request);
/// \endcode
json::Value gemini_request_body(const Request& request);

/// `{base}/models/{model}:streamGenerateContent?alt=sse` (the base up to
/// and including `/v1beta`).
std::string gemini_stream_url(std::string_view base_url, std::string_view model);

/// A whole `GenerateContentResponse` as a Response. An `{"error":…}` body is
/// an "http" error; a body without `candidates` is a "protocol" error.
Result<Response> gemini_response_from_json(const json::Value& body);

/// Reads a `streamGenerateContent?alt=sse` stream: each `data:` event is a
/// `GenerateContentResponse` whose first candidate's parts add text (joined)
/// and function calls (each whole); `usageMetadata` (the last wins);
/// `{"error":…}` events are errors. The stream is complete once a candidate
/// carried a `finishReason`.
class GeminiStreamParser : public StreamParser {
 public:
  explicit GeminiStreamParser(const StreamObserver* observer = nullptr) : observer_(observer) {}
  Status feed(std::string_view bytes) override;
  Result<Response> finish() override;
  bool ended() const override { return finished_; }
  /// Applies one decoded chunk (the JSON of one `data:` event).
  Status apply(const json::Value& chunk);

 private:
  const StreamObserver* observer_;
  SseDecoder decoder_;
  std::vector<SseEvent> events_;
  Response response_;
  std::string text_;
  bool has_text_ = false;
  std::vector<ToolCall> calls_;
  bool finished_ = false;
  bool content_seen_ = false;
  std::size_t chunks_ = 0;
};

}  // namespace weld::provider
