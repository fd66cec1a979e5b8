#pragma once
// The body of every protocol writer's fuzz target (one per codec,
// docs/protocols.md "Codecs"): the bytes choose a value — an answer's text,
// id, model and usage, and tool calls with their names and arguments — the
// codec writes it (the final answer whole and as SSE frames, a tool-calling
// turn given back whole and as frames, an error body and an error frame)
// and the same codec's reader reads it back: the value read must be the
// value written (write -> read -> same value). The streams are read in
// fuzzer-chosen chunks. Nothing may crash, hang or break an invariant (abort
// on breach).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "weld/json/parse.h"
#include "weld/json/serialize.h"
#include "weld/json/utf8.h"
#include "weld/provider/codec.h"

namespace weld::fuzzing {

inline void check(bool ok) {
  if (!ok) std::abort();
}

// Fields taken from the input one after another, split at 0x00 bytes; a
// field that is not valid UTF-8 keeps its ASCII bytes only (the writers
// take text, not bytes).
class Fields {
 public:
  explicit Fields(std::string_view input) : rest_(input) {}
  std::string next() {
    std::size_t end = rest_.find('\0');
    std::string_view field = rest_.substr(0, end);
    rest_ = end == std::string_view::npos ? std::string_view() : rest_.substr(end + 1);
    if (json::is_valid_utf8(field)) return std::string(field);
    std::string ascii;
    for (char c : field)
      if (static_cast<unsigned char>(c) < 0x80) ascii += c;
    return ascii;
  }
  std::int64_t number() {
    std::int64_t n = 0;
    for (char c : next()) n = (n * 31 + static_cast<unsigned char>(c)) % 1000000007;
    return n;
  }
  bool empty() const { return rest_.empty(); }

 private:
  std::string_view rest_;
};

// Reads `text` with the codec's streaming reader in chunks of the sizes in
// `cuts` (cycled).
inline Result<provider::Response> read_stream(const provider::Codec& codec, std::string_view text,
                                              std::string_view cuts) {
  auto reader = codec.reader();
  std::size_t i = 0;
  while (!text.empty()) {
    std::size_t n = cuts.empty() ? text.size() : static_cast<unsigned char>(cuts[i++ % cuts.size()]) % 64 + 1;
    n = std::min(n, text.size());
    if (Status st = reader->feed(text.substr(0, n)); !st) return st.error();
    text.remove_prefix(n);
  }
  return reader->finish();
}

inline Result<provider::Response> read_whole(const provider::Codec& codec, std::string_view text) {
  Result<json::Value> body = json::parse(text);
  check(body.ok());  // every whole answer written is JSON
  return codec.read_whole(*body);
}

// The arguments as a request carries them back: an object's JSON, else {}.
inline json::Value arguments_value(std::string_view text) {
  Result<json::Value> parsed = json::parse(text);
  return parsed.ok() && parsed->is_object() ? std::move(*parsed) : json::Value(json::Object{});
}

// The answer text and usage read back are the ones written.
inline void same_answer(const Result<provider::Response>& back, const provider::AnswerHead& head,
                        std::string_view text, const provider::Usage& usage) {
  check(back.ok());
  check(back->message.text == text);
  check(back->message.tool_calls.empty());
  check(back->usage.output_tokens == usage.output_tokens);
  check(back->usage.input_tokens == usage.input_tokens);
  if (!head.id.empty()) check(back->id == head.id);
}

// The calls read back are the ones written: ids, names, arguments (as
// values: a protocol that carries them as objects re-serializes them).
inline void same_calls(const Result<provider::Response>& back, const provider::Response& written) {
  check(back.ok());
  const auto& calls = written.message.tool_calls;
  check(back->message.tool_calls.size() == calls.size());
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const provider::ToolCall& x = back->message.tool_calls[i];
    check(x.id == calls[i].id);
    check(x.name == calls[i].name);
    check(arguments_value(x.arguments) == arguments_value(calls[i].arguments));
  }
}

inline int fuzz_writer(provider::Protocol protocol, const std::uint8_t* data, std::size_t size) {
  const provider::Codec& codec = provider::codec_for(protocol);
  std::string_view input(reinterpret_cast<const char*>(data), size);
  Fields fields(input);
  const std::string cuts = fields.next();

  // The final answer, whole and streamed.
  provider::AnswerHead head;
  head.id = fields.next();
  head.model = fields.next();
  head.created = fields.number();
  head.include_usage = true;
  const std::string text = fields.next();
  provider::Usage usage;
  usage.input_tokens = fields.number();
  usage.output_tokens = fields.number();
  head.input_tokens = usage.input_tokens;
  same_answer(read_whole(codec, codec.answer(head, text, usage)), head, text, usage);
  provider::AnswerHead stream_head = head;
  if (stream_head.id.empty()) stream_head.id = codec.answer_id(text);
  same_answer(read_stream(codec, codec.answer_stream_start(stream_head) + codec.answer_stream_rest(stream_head, text, usage), cuts),
              stream_head, text, usage);

  // A tool-calling turn: the response as a reader gives it, its assistant
  // turn, given back whole and as frames.
  provider::Response response;
  response.message.role = provider::Role::Assistant;
  for (int n = 0; n < 3 && !fields.empty(); ++n) {
    provider::ToolCall call;
    call.id = "call_" + std::to_string(n) + fields.next();
    call.name = fields.next();
    if (call.name.empty()) call.name = "tool";
    call.arguments = json::serialize(arguments_value(fields.next()));
    response.parts.push_back(provider::Part{provider::Part::Kind::ToolCall, {}, response.message.tool_calls.size(), {}});
    response.message.tool_calls.push_back(std::move(call));
  }
  provider::AnswerHead pass_head = head;
  if (pass_head.id.empty()) pass_head.id = "id";
  same_calls(read_whole(codec, json::serialize(codec.pass_back(pass_head, response, usage))), response);
  same_calls(read_stream(codec, codec.pass_back_stream(pass_head, response, usage), cuts), response);

  // The error tool results pair every call of the turn with a result.
  json::Value body = json::Object{};
  provider::ErrorResults results;
  if (!response.message.tool_calls.empty()) results.failed_call = response.message.tool_calls[0].id;
  results.call_errors = text;
  results.user_errors = text;
  codec.append_error_results(body, response, results);
  check(json::parse(json::serialize(body)).ok());

  // An error: the body and the frame read back as an error carrying the
  // message.
  const std::string message = fields.next();
  Result<provider::Response> error = read_whole(codec, json::serialize(codec.error_body("api_error", message)));
  check(!error.ok());
  Result<provider::Response> frame_error = read_stream(codec, codec.answer_stream_start(stream_head) +
                                                                  codec.stream_error("api_error", message), cuts);
  check(!frame_error.ok());
  return 0;
}

}  // namespace weld::fuzzing
