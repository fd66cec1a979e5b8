// What the client receives (docs/proxy.md): the validated JSON as plain
// assistant text in the client's protocol, whole or streamed, or an error in
// that protocol's error shape; each written by the protocol's codec
// (docs/protocols.md, "Codecs").

#include "weld/base/clock.h"
#include "weld/proxy/weld.h"

namespace weld::proxy {

StreamHead answer_head(const provider::Response& upstream, std::string_view client_model) {
  StreamHead head;
  head.id = upstream.id;
  head.model = std::string(client_model);
  head.created = upstream.created != 0 ? upstream.created : unix_seconds();
  return head;
}

std::string render_response(Protocol api, const provider::Response& last, std::string_view text,
                            const Usage& usage, std::string_view client_model) {
  return provider::codec_for(api).answer(answer_head(last, client_model), text, usage);
}

std::string render_stream_start(Protocol api, const StreamHead& head) {
  return provider::codec_for(api).answer_stream_start(head);
}

std::string render_stream_rest(Protocol api, const StreamHead& head, std::string_view text, const Usage& usage) {
  return provider::codec_for(api).answer_stream_rest(head, text, usage);
}

std::string render_stream(Protocol api, const provider::Response& last, std::string_view text,
                          const Usage& usage, std::string_view client_model, bool include_usage) {
  const provider::Codec& codec = provider::codec_for(api);
  StreamHead head = answer_head(last, client_model);
  if (head.id.empty()) head.id = codec.answer_id(text);
  head.include_usage = include_usage;
  head.input_tokens = usage.input_tokens;
  return codec.answer_stream_start(head) + codec.answer_stream_rest(head, text, usage);
}

std::string keepalive_frame(Protocol api) { return provider::codec_for(api).keepalive_frame(); }

json::Value render_error(Protocol api, std::string_view type, std::string_view message,
                         const json::Value* candidate) {
  return provider::codec_for(api).error_body(type, message, candidate);
}

std::string render_stream_error(Protocol api, std::string_view type, std::string_view message,
                                const json::Value* candidate) {
  return provider::codec_for(api).stream_error(type, message, candidate);
}

}  // namespace weld::proxy
