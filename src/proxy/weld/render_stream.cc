// The client's stream (SPEC §3.3 "Streaming"): the validated JSON as a normal
// text stream, framed exactly like the real APIs so the SDKs' stream helpers
// accumulate it (Anthropic MessageStream, OpenAI ChatCompletionStream).

#include <algorithm>

#include "responses_api.h"
#include "stream_frames.h"
#include "weld/json/serialize.h"
#include "weld/proxy/weld.h"
#include "wire.h"

namespace weld::proxy {
namespace {

void anthropic_event(std::string& out, std::string_view name, const json::Value& data) {
  out += "event: ";
  out += name;
  out += "\ndata: ";
  json::serialize_to(out, data);
  out += "\n\n";
}

void openai_chunk(std::string& out, const json::Value& data) {
  out += "data: ";
  json::serialize_to(out, data);
  out += "\n\n";
}

std::string head_id(Api api, const StreamHead& head) {
  if (!head.id.empty()) return head.id;
  std::string seed = head.model + "\n" + std::to_string(head.created);
  return api == Api::Anthropic ? wire::make_id("msg_weld_", seed) : wire::make_id("chatcmpl-weld", seed);
}

// An OpenAI chunk with one choice-0 delta (or the given choices).
json::Value chunk(const StreamHead& head, const std::string& id, json::Value choices) {
  json::Value out = json::Object{{"id", id},
                                 {"object", "chat.completion.chunk"},
                                 {"created", head.created},
                                 {"model", head.model},
                                 {"choices", std::move(choices)}};
  // With include_usage, OpenAI sends "usage": null on every chunk but the last.
  if (head.include_usage) out.set("usage", nullptr);
  return out;
}

json::Value choice(json::Value delta, json::Value finish_reason, int index = 0) {
  return json::Array{
      json::Object{{"index", index}, {"delta", std::move(delta)}, {"finish_reason", std::move(finish_reason)}}};
}

}  // namespace

std::string render_stream_start(Api api, const StreamHead& head) {
  if (api == Api::Responses) return responses_api::render_stream_start(head);
  std::string out;
  const std::string id = head_id(api, head);
  if (api == Api::Anthropic) {
    anthropic_event(out, "message_start",
                    json::Object{{"type", "message_start"},
                                 {"message", json::Object{{"id", id},
                                                          {"type", "message"},
                                                          {"role", "assistant"},
                                                          {"model", head.model},
                                                          {"content", json::Array{}},
                                                          {"stop_reason", nullptr},
                                                          {"stop_sequence", nullptr},
                                                          {"usage", json::Object{{"input_tokens", head.input_tokens},
                                                                                 {"output_tokens", 0}}}}}});
    return out;
  }
  openai_chunk(out, chunk(head, id, choice(json::Object{{"role", "assistant"}, {"content", ""}}, nullptr)));
  return out;
}

namespace stream_frames {

std::string block_start(Api api, const StreamHead& head, int index) {
  std::string out;
  if (api == Api::Anthropic) {
    anthropic_event(out, "content_block_start",
                    json::Object{{"type", "content_block_start"},
                                 {"index", index},
                                 {"content_block", json::Object{{"type", "text"}, {"text", ""}}}});
  } else if (index > 0) {
    // Choice 0 got its role in the opening chunk.
    openai_chunk(out, chunk(head, head_id(api, head),
                            choice(json::Object{{"role", "assistant"}, {"content", ""}}, nullptr, index)));
  }
  return out;
}

// Written directly, not through json::Value: one delta per token of a
// partially streamed answer (the same bytes as anthropic_event / chunk give,
// render_test.cc checks them).
std::string block_text(Api api, const StreamHead& head, int index, std::string_view text) {
  std::string out;
  out.reserve(text.size() + head.id.size() + head.model.size() + 160);
  if (api == Api::Anthropic) {
    out += R"(event: content_block_delta
data: {"type":"content_block_delta","index":)";
    out += std::to_string(index);
    out += R"(,"delta":{"type":"text_delta","text":)";
    json::write_string(out, text);
    out += "}}\n\n";
    return out;
  }
  out += R"(data: {"id":)";
  json::write_string(out, head_id(api, head));
  out += R"(,"object":"chat.completion.chunk","created":)";
  out += std::to_string(head.created);
  out += R"(,"model":)";
  json::write_string(out, head.model);
  out += R"(,"choices":[{"index":)";
  out += std::to_string(index);
  out += R"(,"delta":{"content":)";
  json::write_string(out, text);
  out += R"(},"finish_reason":null}])";
  out += head.include_usage ? ",\"usage\":null}\n\n" : "}\n\n";
  return out;
}

std::string block_stop(Api api, const StreamHead& head, int index) {
  std::string out;
  if (api == Api::Anthropic) {
    anthropic_event(out, "content_block_stop", json::Object{{"type", "content_block_stop"}, {"index", index}});
  } else {
    openai_chunk(out, chunk(head, head_id(api, head), choice(json::Object{}, "stop", index)));
  }
  return out;
}

std::string message_end(Api api, const StreamHead& head, const Usage& usage) {
  std::string out;
  if (api == Api::Anthropic) {
    anthropic_event(out, "message_delta",
                    json::Object{{"type", "message_delta"},
                                 {"delta", json::Object{{"stop_reason", "end_turn"}, {"stop_sequence", nullptr}}},
                                 {"usage", json::Object{{"input_tokens", usage.input_tokens},
                                                        {"output_tokens", usage.output_tokens}}}});
    anthropic_event(out, "message_stop", json::Object{{"type", "message_stop"}});
    return out;
  }
  if (head.include_usage) {
    json::Value last = chunk(head, head_id(api, head), json::Array{});
    last.set("usage", json::Object{{"prompt_tokens", usage.input_tokens},
                                   {"completion_tokens", usage.output_tokens},
                                   {"total_tokens", usage.total()}});
    openai_chunk(out, last);
  }
  out += "data: [DONE]\n\n";
  return out;
}

std::string discard(Api api, const StreamHead& head, int index, std::string_view marker, const json::Value& event) {
  std::string out;
  if (api == Api::Anthropic) {
    out += block_text(api, head, index, marker);
    out += block_stop(api, head, index);
    anthropic_event(out, "weld.discard", event);
    return out;
  }
  // One chunk: the SDKs' accumulators keep unknown choice fields, so the
  // discarded choice carries `weld_discard` into the final completion.
  json::Value choices = choice(json::Object{{"content", marker}}, "weld_discarded", index);
  choices.as_array()[0].set("weld_discard", event);
  openai_chunk(out, chunk(head, head_id(api, head), std::move(choices)));
  return out;
}

}  // namespace stream_frames

std::string render_stream_rest(Api api, const StreamHead& head, std::string_view text, const Usage& usage) {
  if (api == Api::Responses) return responses_api::render_stream_rest(head, text, usage);
  std::string out;
  out.reserve(text.size() * 2 + 512);
  out += stream_frames::block_start(api, head, 0);
  for (std::string_view piece : wire::split_text(text)) out += stream_frames::block_text(api, head, 0, piece);
  out += stream_frames::block_stop(api, head, 0);
  out += stream_frames::message_end(api, head, usage);
  return out;
}

std::string render_stream(Api api, const Candidate& last, std::string_view text, const Usage& usage,
                          std::string_view client_model, bool include_usage) {
  StreamHead head;
  head.id = last.id;
  if (head.id.empty()) {
    head.id = api == Api::Anthropic   ? wire::make_id("msg_weld_", text)
              : api == Api::Responses ? wire::make_id("resp_weld_", text)
                                      : wire::make_id("chatcmpl-weld", text);
  }
  head.model = std::string(client_model);
  head.created = last.created;
  head.include_usage = include_usage;
  head.input_tokens = usage.input_tokens;
  return render_stream_start(api, head) + render_stream_rest(api, head, text, usage);
}

}  // namespace weld::proxy
