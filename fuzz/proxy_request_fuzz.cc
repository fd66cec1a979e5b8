// Fuzzes the proxy's request rewriting (src/proxy/filters/schema_injection/upstream_request.cc) with what
// a client can send: byte 0 holds flags (bit 2: two-phase agent, bit 3:
// streaming upstream, bit 4: force the agent tool), the rest is one JSON
// request body, rewritten for both APIs. The upstream's answers are fuzzed
// through the protocol readers' targets (*_reader_fuzz.cc). Nothing may
// crash, hang or break the invariants below (abort on breach).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string_view>

#include "weld/json/parse.h"
#include "weld/json/serialize.h"
#include "weld/proxy/weld.h"

namespace {

using weld::proxy::Agent;
using weld::provider::Protocol;

const Agent& agent(bool two_phase) {
  static const Agent forced = [] {
    Agent a;
    a.name = "router";
    a.description = "Pick";
    a.input_schema = *weld::json::parse(
        R"({"type":"object","properties":{"action":{"type":"string","enum":["search","refund"]}},"required":["action"]})");
    return a;
  }();
  static const Agent phased = [] {
    Agent a = forced;
    a.mode = weld::proxy::Mode::TwoPhase;
    a.input_schema = *weld::json::parse(R"({"properties":{"x":{"type":"integer"}}})");
    return a;
  }();
  return two_phase ? phased : forced;
}

void check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t flags = data[0];
  auto body = weld::json::parse(std::string_view(reinterpret_cast<const char*>(data + 1), size - 1));
  if (!body) return 0;
  const bool two_phase = (flags & 4) != 0;
  for (Protocol api : {Protocol::AnthropicMessages, Protocol::OpenAiChat}) {
    weld::json::Value up = weld::proxy::build_upstream_request(api, *body, agent(two_phase), "base",
                                                               (flags & 8) != 0, (flags & 16) != 0);
    auto again = weld::json::parse(weld::json::serialize(up));
    check(again.ok() && *again == up);
    check(up.find("model") != nullptr && up.find("model")->as_string() == "base");
    check(up.find("tools") != nullptr && up.find("tools")->is_array());
    if (!two_phase || (flags & 16) != 0) {
      check(up.find("tool_choice") != nullptr && up.find("thinking") == nullptr);
    }
  }
  return 0;
}
