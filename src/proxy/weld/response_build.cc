#include "response_build.h"

#include "wire.h"

namespace weld::proxy {

void AnthropicBuilder::add_text(std::string_view text) {
  text_ += text;
  content_.push_back(json::Object{{"type", "text"}, {"text", text}});
}

void AnthropicBuilder::add_tool_use(std::string id, std::string name, std::string arguments,
                                    const json::Value* input) {
  // Anthropic requires every tool_use to carry an id (the tool_result refers
  // to it); a server that left it out gets one made from the block's place.
  if (id.empty()) id = "toolu_weld_" + std::to_string(content_.size());
  json::Value input_value;
  if (input != nullptr && input->is_object()) {
    input_value = *input;
  } else if (auto object = wire::parse_object(arguments)) {
    input_value = std::move(*object);
  } else {
    input_value = json::Object{};
  }
  if (name == agent_tool_ && !found_) {
    found_ = true;
    tool_call_id_ = id;
    arguments_ = std::move(arguments);
  } else if (name != agent_tool_) {
    has_other_ = true;
  }
  content_.push_back(json::Object{
      {"type", "tool_use"}, {"id", std::move(id)}, {"name", std::move(name)}, {"input", std::move(input_value)}});
}

void AnthropicBuilder::add_other(json::Value block) { content_.push_back(std::move(block)); }

void AnthropicBuilder::finish(Candidate& c) {
  c.found = found_;
  c.tool_call_id = std::move(tool_call_id_);
  c.arguments = std::move(arguments_);
  c.has_other_tool_calls = has_other_;
  c.text = std::move(text_);
  c.assistant_message = json::Object{{"role", "assistant"}, {"content", std::move(content_)}};
}

void OpenAIBuilder::add_text(std::string_view text) {
  text_ += text;
  has_text_ = true;
}

void OpenAIBuilder::add_tool_call(std::string id, std::string name, std::string arguments) {
  // The `role:"tool"` answer must name the call; make an id when missing.
  if (id.empty()) id = "call_weld_" + std::to_string(tool_calls_.size());
  if (name == agent_tool_ && !found_) {
    found_ = true;
    tool_call_id_ = id;
    arguments_ = arguments;
  } else if (name != agent_tool_) {
    has_other_ = true;
  }
  tool_calls_.push_back(json::Object{
      {"id", std::move(id)},
      {"type", "function"},
      {"function", json::Object{{"name", std::move(name)}, {"arguments", std::move(arguments)}}}});
}

void OpenAIBuilder::finish(Candidate& c) {
  c.found = found_;
  c.tool_call_id = std::move(tool_call_id_);
  c.arguments = std::move(arguments_);
  c.has_other_tool_calls = has_other_;
  json::Value message = json::Object{{"role", "assistant"}};
  message.set("content", has_text_ ? json::Value(text_) : json::Value());
  if (!tool_calls_.empty()) message.set("tool_calls", std::move(tool_calls_));
  c.text = std::move(text_);
  c.assistant_message = std::move(message);
}

}  // namespace weld::proxy
