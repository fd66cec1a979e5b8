// Picks the reader of a wire protocol (docs/protocols.md): the one place
// that maps a Protocol to its stream and whole-body readers (and its
// request builder).
#include "weld/provider/anthropic.h"
#include "weld/provider/openai.h"
#include "weld/provider/responses.h"
#include "weld/provider/stream_parser.h"

namespace weld::provider {

std::unique_ptr<StreamParser> make_stream_parser(Protocol protocol, const StreamObserver* observer) {
  switch (protocol) {
    case Protocol::AnthropicMessages: return std::make_unique<AnthropicStreamParser>(observer);
    case Protocol::OpenAiResponses: return std::make_unique<ResponsesStreamParser>(observer);
    case Protocol::OpenAiChat: break;
  }
  return std::make_unique<OpenAiStreamParser>(observer);
}

json::Value request_body(Protocol protocol, const Request& request) {
  switch (protocol) {
    case Protocol::AnthropicMessages: return anthropic_request_body(request);
    case Protocol::OpenAiResponses: return responses_request_body(request);
    case Protocol::OpenAiChat: break;
  }
  return openai_request_body(request);
}

Result<Response> response_from_json(Protocol protocol, const json::Value& body) {
  switch (protocol) {
    case Protocol::AnthropicMessages: return anthropic_response_from_json(body);
    case Protocol::OpenAiResponses: return responses_response_from_json(body);
    case Protocol::OpenAiChat: break;
  }
  return openai_response_from_json(body);
}

}  // namespace weld::provider
