// Fuzzes the proxy's weld transforms (src/proxy/weld) with what an upstream
// or a client can send:
//   byte 0 even: the rest is split into lines, each (after an optional
//     "data:" prefix) one SSE data payload; payloads that parse as JSON are
//     fed to a StreamReader (byte 0 bit 1 picks the API). Its candidate is
//     then checked, put in a retry turn and rendered; the rendered stream
//     must read back to the same text.
//   byte 0 odd: the rest is one JSON body, read as an upstream response and
//     rewritten as a client request, for both APIs and all modes.
// Nothing may crash, hang or break the invariants below (abort on breach).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "weld/json/parse.h"
#include "weld/json/serialize.h"
#include "weld/proxy/weld.h"

namespace {

using weld::proxy::Agent;
using weld::proxy::Api;

const Agent& agent(bool two_phase) {
  static const Agent forced = [] {
    Agent a;
    a.name = "router";
    a.description = "Pick";
    a.input_schema = *weld::json::parse(
        R"({"type":"object","properties":{"action":{"type":"string","enum":["search","refund"]},)"
        R"("confidence":{"type":"number","minimum":0,"maximum":1}},"required":["action"]})");
    a.schema = std::make_shared<const weld::schema::Schema>(weld::schema::Schema::compile(a.input_schema));
    return a;
  }();
  static const Agent phased = [] {
    Agent a = forced;
    a.mode = weld::proxy::Mode::TwoPhase;
    a.input_schema = *weld::json::parse(R"({"properties":{"x":{"type":"integer"}}})");
    a.schema = std::make_shared<const weld::schema::Schema>(weld::schema::Schema::compile(a.input_schema));
    return a;
  }();
  return two_phase ? phased : forced;
}

void check(bool ok) {
  if (!ok) std::abort();
}

// Serialises and parses again: every JSON the transforms build must be valid.
void round_trip(const weld::json::Value& v) {
  auto again = weld::json::parse(weld::json::serialize(v));
  check(again.ok() && *again == v);
}

// Reads an SSE text made by render_stream back; returns the text carried.
std::string read_back(Api api, const std::string& sse) {
  weld::proxy::StreamReader reader(api, "router");
  std::size_t pos = 0;
  while (pos < sse.size()) {
    std::size_t end = sse.find("\n\n", pos);
    check(end != std::string::npos);
    std::string_view frame(sse.data() + pos, end - pos);
    pos = end + 2;
    std::size_t data = frame.find("data: ");
    check(data != std::string_view::npos);
    std::string_view payload = frame.substr(data + 6);
    if (payload == "[DONE]") continue;
    auto event = weld::json::parse(payload);
    check(event.ok());
    check(reader.feed(*event));
  }
  check(reader.finished());
  return reader.candidate().text;
}

void after_answer(Api api, const weld::proxy::Candidate& c, bool two_phase) {
  round_trip(c.assistant_message);
  weld::proxy::Verdict v = weld::proxy::check_candidate(c, agent(two_phase));
  check(!v.valid || !v.text.empty());
  check(v.valid || !v.errors.empty());
  weld::json::Value body = weld::json::Object{{"messages", weld::json::Array{}}};
  weld::proxy::append_retry_turn(api, body, c, v.errors);
  round_trip(body);
  check(!body.find("messages")->as_array().empty());
  const std::string& text = v.valid ? v.text : c.text;
  round_trip(weld::proxy::render_response(api, c, text, c.usage, "m__schema=router"));
  check(read_back(api, weld::proxy::render_stream(api, c, text, c.usage, "m", true)) == text);
  round_trip(weld::proxy::render_error(api, "structured_output_error", v.errors, &v.value));
}

void fuzz_stream(Api api, std::string_view rest, bool two_phase) {
  weld::proxy::StreamReader reader(api, "router");
  bool failed = false;
  while (!rest.empty()) {
    std::size_t nl = rest.find('\n');
    std::string_view line = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    if (line.substr(0, 5) == "data:") line.remove_prefix(line.size() > 5 && line[5] == ' ' ? 6 : 5);
    auto event = weld::json::parse(line);
    if (!event) continue;
    bool ok = reader.feed(*event);
    if (failed) check(!ok);  // a failed reader stays failed
    if (!ok) {
      check(!reader.error().empty());
      failed = true;
    }
  }
  after_answer(api, reader.candidate(), two_phase);
}

void fuzz_body(std::string_view rest, std::uint8_t flags) {
  auto body = weld::json::parse(rest);
  if (!body) return;
  for (Api api : {Api::Anthropic, Api::OpenAI}) {
    const bool two_phase = (flags & 4) != 0;
    after_answer(api, weld::proxy::read_response(api, *body, "router"), two_phase);
    weld::json::Value up = weld::proxy::build_upstream_request(api, *body, agent(two_phase), "base",
                                                               (flags & 8) != 0, (flags & 16) != 0);
    round_trip(up);
    check(up.find("model") != nullptr && up.find("model")->as_string() == "base");
    check(up.find("tools") != nullptr && up.find("tools")->is_array());
    if (!two_phase || (flags & 16) != 0) {
      check(up.find("tool_choice") != nullptr && up.find("thinking") == nullptr);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  std::uint8_t mode = data[0];
  std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
  if ((mode & 1) == 0) {
    fuzz_stream((mode & 2) != 0 ? Api::OpenAI : Api::Anthropic, rest, (mode & 4) != 0);
  } else {
    fuzz_body(rest, mode);
  }
  return 0;
}
