// The retry turn (SPEC §3.3 step 5): the failed call goes back to the model
// with a tool result marked as an error that carries the validation
// messages, so the next attempt can correct itself.

#include "responses_api.h"
#include "weld/json/serialize.h"
#include "weld/json/utf8.h"
#include "weld/proxy/weld.h"
#include "wire.h"

namespace weld::proxy {
namespace {

// What an unrun call of another tool is told (forced mode offers no other
// tool; two-phase passes such calls to the client instead of retrying).
constexpr std::string_view kNotRun = "Error: this tool call was not run.";

// Note added when the model's arguments were not a JSON object and the
// assistant turn had to carry {} in their place: the model still sees what
// it wrote.
std::string with_raw_note(std::string_view errors, const Candidate& candidate) {
  std::string out(errors);
  if (!candidate.found || candidate.arguments.empty() || wire::parse_object(candidate.arguments)) return out;
  constexpr std::size_t kMaxShown = 2000;  // code points
  std::string_view shown = json::utf8_prefix(candidate.arguments, kMaxShown);
  if (!out.empty()) out += '\n';
  out += "The arguments you sent were not a JSON object: ";
  out += shown;
  if (shown.size() < candidate.arguments.size()) out += "…";
  return out;
}

json::Value& messages_of(json::Value& body) {
  if (!body.is_object()) body = json::Object{};
  json::Value* messages = body.find("messages");
  if (messages == nullptr || !messages->is_array()) return body.set("messages", json::Array{});
  return *messages;
}

void append_anthropic(json::Value& body, const Candidate& candidate, std::string_view errors) {
  json::Value& messages = messages_of(body);
  json::Array content;
  json::Array results;
  if (const json::Array* blocks = candidate.assistant_message.is_object()
                                      ? wire::find_array(candidate.assistant_message, "content")
                                      : nullptr) {
    for (const json::Value& block : *blocks) {
      const std::string* type = block.is_object() ? wire::find_string(block, "type") : nullptr;
      if (type != nullptr && *type == "text") {
        // The API refuses empty text blocks in a request.
        const std::string* text = wire::find_string(block, "text");
        if (text == nullptr || text->empty()) continue;
      }
      if (type != nullptr && *type == "tool_use") {
        const std::string* id = wire::find_string(block, "id");
        std::string tool_use_id = id != nullptr ? *id : std::string();
        const bool answer = candidate.found && tool_use_id == candidate.tool_call_id;
        std::string text = answer ? with_raw_note(errors, candidate) : std::string(kNotRun);
        results.push_back(json::Object{{"type", "tool_result"},
                                       {"tool_use_id", std::move(tool_use_id)},
                                       {"content", std::move(text)},
                                       {"is_error", true}});
      }
      content.push_back(block);
    }
  }
  if (!candidate.found) {
    // No call to answer: the messages go back as the user's next turn.
    results.push_back(json::Object{{"type", "text"}, {"text", errors}});
  }
  if (!content.empty()) {
    messages.push_back(json::Object{{"role", "assistant"}, {"content", std::move(content)}});
  }
  messages.push_back(json::Object{{"role", "user"}, {"content", std::move(results)}});
}

void append_openai(json::Value& body, const Candidate& candidate, std::string_view errors) {
  json::Value& messages = messages_of(body);
  json::Value assistant = candidate.assistant_message.is_object() ? candidate.assistant_message
                                                                  : json::Value(json::Object{{"role", "assistant"}});
  json::Array tool_messages;
  if (json::Value* calls = assistant.find("tool_calls"); calls != nullptr && calls->is_array()) {
    for (json::Value& call : calls->as_array()) {
      if (!call.is_object()) continue;
      const std::string* id = wire::find_string(call, "id");
      std::string call_id = id != nullptr ? *id : std::string();
      // vLLM json-decodes the arguments of past calls before templating and
      // templates expect an object: send the best object we have.
      if (json::Value* function = call.find("function"); function != nullptr && function->is_object()) {
        const std::string* args = wire::find_string(*function, "arguments");
        if (args == nullptr || !wire::parse_object(*args)) function->set("arguments", "{}");
      }
      const bool answer = candidate.found && call_id == candidate.tool_call_id;
      std::string text = answer ? "Error: " + with_raw_note(errors, candidate) : std::string(kNotRun);
      tool_messages.push_back(
          json::Object{{"role", "tool"}, {"tool_call_id", std::move(call_id)}, {"content", std::move(text)}});
    }
  }
  const json::Value* content = assistant.find("content");
  const bool has_content = content != nullptr && content->is_string() && !content->as_string().empty();
  if (has_content || !tool_messages.empty()) messages.push_back(std::move(assistant));
  for (json::Value& m : tool_messages) messages.push_back(std::move(m));
  if (!candidate.found) messages.push_back(json::Object{{"role", "user"}, {"content", errors}});
}

}  // namespace

void append_retry_turn(Api api, json::Value& upstream_body, const Candidate& candidate,
                       std::string_view errors) {
  switch (api) {
    case Api::Anthropic: append_anthropic(upstream_body, candidate, errors); break;
    case Api::Responses:
      responses_api::append_retry_turn(upstream_body, candidate, errors, kNotRun,
                                       "Error: " + with_raw_note(errors, candidate));
      break;
    case Api::OpenAI: append_openai(upstream_body, candidate, errors); break;
  }
}

}  // namespace weld::proxy
