#pragma once
// The body of every protocol reader's fuzz target (one target per reader,
// docs/protocols.md): the bytes are an upstream response body (the first
// bytes, up to a 0xFF within 16, choose the chunk sizes), read
//   - streamed, in those chunks and in one piece: both must give the same
//     Response or the same error (a reader may not depend on the split);
//   - whole, as a JSON body;
// and every Response is then taken through what the proxy does with it
// (candidate, check, retry turn, follow-up, pass-back, rendering; the
// rendered stream must read back to the same text through the same reader).
// Nothing may crash, hang or break an invariant (abort on breach).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "weld/json/parse.h"
#include "weld/json/serialize.h"
#include "weld/provider/stream_parser.h"
#include "weld/proxy/weld.h"

namespace weld::fuzzing {

inline void check(bool ok) {
  if (!ok) std::abort();
}

inline void round_trip(const json::Value& v) {
  auto again = json::parse(json::serialize(v));
  check(again.ok() && *again == v);
}

inline const proxy::Agent& router_agent() {
  static const proxy::Agent agent = [] {
    proxy::Agent a;
    a.name = "router";
    a.description = "Pick";
    a.input_schema = *json::parse(
        R"({"type":"object","properties":{"action":{"type":"string","enum":["search","refund"]},)"
        R"("confidence":{"type":"number","minimum":0,"maximum":1}},"required":["action"]})");
    a.schema = std::make_shared<const schema::Schema>(schema::Schema::compile(a.input_schema));
    return a;
  }();
  return agent;
}

// Reads `text` with a fresh reader, `cuts` choosing the chunk sizes (empty:
// one piece).
inline Result<provider::Response> read(provider::Protocol protocol, std::string_view text, std::string_view cuts) {
  auto reader = provider::make_stream_parser(protocol);
  std::size_t pos = 0, cut_index = 0;
  while (pos < text.size()) {
    std::size_t len =
        cuts.empty() ? text.size() : 1 + static_cast<unsigned char>(cuts[cut_index++ % cuts.size()]) % 64;
    if (Status st = reader->feed(text.substr(pos, len)); !st) return st.error();
    pos += len;
  }
  return reader->finish();
}

inline bool same(const provider::Response& a, const provider::Response& b) {
  if (a.message.text != b.message.text || a.refusal != b.refusal || a.stop_reason != b.stop_reason ||
      a.id != b.id || a.model != b.model || a.usage.input_tokens != b.usage.input_tokens ||
      a.usage.output_tokens != b.usage.output_tokens || a.parts.size() != b.parts.size() ||
      a.message.tool_calls.size() != b.message.tool_calls.size())
    return false;
  for (std::size_t i = 0; i < a.message.tool_calls.size(); ++i) {
    const provider::ToolCall& x = a.message.tool_calls[i];
    const provider::ToolCall& y = b.message.tool_calls[i];
    if (x.id != y.id || x.name != y.name || x.arguments != y.arguments) return false;
  }
  return true;
}

// What the proxy does with an answer of `api`.
inline void after_answer(provider::Protocol api, provider::Response response) {
  for (const provider::Part& part : response.parts) {
    if (part.kind == provider::Part::Kind::ToolCall) check(part.tool_call < response.message.tool_calls.size());
  }
  for (const provider::ToolCall& call : response.message.tool_calls) check(!call.id.empty());
  proxy::Candidate c = proxy::make_candidate(std::move(response), "router");
  check(!c.agent_call || c.call()->name == "router");
  round_trip(provider::codec_for(api).assistant_turn(c.response));
  proxy::Verdict v = proxy::check_candidate(api, c, router_agent());
  check(!v.valid || !v.text.empty());
  check(v.valid || !v.errors.empty());
  // The conversation: Responses `input` items, the others' `messages`.
  const char* conversation = api == proxy::Protocol::OpenAiResponses ? "input" : "messages";
  json::Value body = json::Object{{conversation, json::Array{}}};
  proxy::append_retry_turn(api, body, c, v.errors);
  round_trip(body);
  check(!body.find(conversation)->as_array().empty());
  // The two-phase follow-up and pass-back, from the same answer.
  const provider::Codec& codec = provider::codec_for(api);
  json::Value follow_up = json::Object{{conversation, json::Array{}}};
  codec.append_follow_up(follow_up, c.response, "ask");
  round_trip(follow_up);
  check(!follow_up.find(conversation)->as_array().empty());
  round_trip(codec.pass_back(provider::AnswerHead{}, c.response, c.response.usage));
  const std::string& text = v.valid ? v.text : c.response.message.text;
  Result<json::Value> rendered =
      json::parse(proxy::render_response(api, c.response, text, c.response.usage, "m__schema=router"));
  check(rendered.ok());
  round_trip(*rendered);
  std::string sse = proxy::render_stream(api, c.response, text, c.response.usage, "m", true);
  Result<provider::Response> back = read(api, sse, {});
  check(back.ok() && back->message.text == text);
  round_trip(proxy::render_error(api, "structured_output_error", v.errors, &v.value));
}

inline int fuzz_reader(provider::Protocol protocol, provider::Protocol api, const std::uint8_t* data, std::size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  std::size_t split = input.find('\xFF');
  std::string_view cuts, text = input;
  if (split != std::string_view::npos && split <= 16) {
    cuts = input.substr(0, split);
    text = input.substr(split + 1);
  }
  Result<provider::Response> whole = read(protocol, text, {});
  Result<provider::Response> chunked = read(protocol, text, cuts.empty() ? std::string_view("\x01") : cuts);
  check(whole.ok() == chunked.ok());
  if (whole.ok()) {
    check(same(*whole, *chunked));
  } else {
    check(!whole.error().message.empty());
  }
  if (whole.ok()) after_answer(api, std::move(*whole));
  if (auto body = json::parse(text)) {
    Result<provider::Response> response = provider::response_from_json(protocol, *body);
    if (response.ok()) after_answer(api, std::move(*response));
  }
  return 0;
}

}  // namespace weld::fuzzing
