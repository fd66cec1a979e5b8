// Picks the codec of a wire protocol (docs/protocols.md, "Codecs"): the one
// place that maps a Protocol to its reader and writer.
#include "weld/provider/codec.h"
#include "weld/provider/stream_parser.h"

namespace weld::provider {

// Each defined in its protocol's folder (<protocol>_codec.cc).
const Codec& openai_chat_codec();
const Codec& anthropic_messages_codec();
const Codec& openai_responses_codec();
const Codec& gemini_codec();

const Codec& codec_for(Protocol protocol) {
  switch (protocol) {
    case Protocol::AnthropicMessages: return anthropic_messages_codec();
    case Protocol::OpenAiResponses: return openai_responses_codec();
    case Protocol::GeminiGenerateContent: return gemini_codec();
    case Protocol::OpenAiChat: break;
  }
  return openai_chat_codec();
}

std::optional<Protocol> protocol_of_path(std::string_view path) {
  if (path == "/v1/messages") return Protocol::AnthropicMessages;
  if (path.ends_with("/chat/completions")) return Protocol::OpenAiChat;
  if (path.ends_with("/responses")) return Protocol::OpenAiResponses;
  return std::nullopt;
}

std::unique_ptr<StreamParser> make_stream_parser(Protocol protocol, const StreamObserver* observer) {
  return codec_for(protocol).reader(observer);
}

json::Value request_body(Protocol protocol, const Request& request) {
  return codec_for(protocol).request_body(request);
}

Result<Response> response_from_json(Protocol protocol, const json::Value& body) {
  return codec_for(protocol).read_whole(body);
}

}  // namespace weld::provider
