// The retry turn (docs/proxy.md): the failed call goes back to the model
// with a tool result marked as an error that carries the validation
// messages, so the next attempt can correct itself. The shapes are the
// codec's (docs/protocols.md, "Codecs"); what the messages say is decided
// here.

#include "weld/json/parse.h"
#include "weld/json/utf8.h"
#include "weld/proxy/weld.h"

namespace weld::proxy {
namespace {

bool is_object_text(std::string_view text) {
  auto parsed = json::parse(text);
  return parsed && parsed->is_object();
}

// Note added when the model's arguments were not a JSON object and the
// assistant turn had to carry {} in their place: the model still sees what
// it wrote.
std::string with_raw_note(std::string_view errors, const std::string& arguments) {
  std::string out(errors);
  if (arguments.empty() || is_object_text(arguments)) return out;
  constexpr std::size_t kMaxShown = 2000;  // code points
  std::string_view shown = json::utf8_prefix(arguments, kMaxShown);
  if (!out.empty()) out += '\n';
  out += "The arguments you sent were not a JSON object: ";
  out += shown;
  if (shown.size() < arguments.size()) out += "…";
  return out;
}

}  // namespace

void append_retry_turn(Protocol api, json::Value& upstream_body, const Candidate& candidate,
                       std::string_view errors) {
  provider::ErrorResults results;
  if (const provider::ToolCall* call = candidate.call()) {
    results.failed_call = call->id;
    results.call_errors = with_raw_note(errors, call->arguments);
  } else {
    results.user_errors = std::string(errors);
  }
  provider::codec_for(api).append_error_results(upstream_body, candidate.response, results);
}

}  // namespace weld::proxy
