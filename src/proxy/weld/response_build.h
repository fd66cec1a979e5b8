#pragma once
// Builds a Candidate from the pieces of an upstream answer, shared by the
// whole-body reader (response.cc) and the stream reader (stream_reader.cc)
// so both give the same candidate for the same answer.

#include <string>
#include <string_view>

#include "weld/json/value.h"
#include "weld/proxy/weld.h"

namespace weld::proxy {

/// Anthropic content blocks, in order.
class AnthropicBuilder {
 public:
  explicit AnthropicBuilder(std::string_view agent_tool) : agent_tool_(agent_tool) {}
  void add_text(std::string_view text);
  /// `input`: the block's input object when known as a value (whole bodies);
  /// otherwise it is parsed from `arguments` ({} when that is not an object).
  void add_tool_use(std::string id, std::string name, std::string arguments,
                    const json::Value* input = nullptr);
  /// Any other block, kept verbatim in the assistant message.
  void add_other(json::Value block);
  /// Fills found, tool_call_id, arguments, has_other_tool_calls, text and
  /// assistant_message.
  void finish(Candidate& c);

 private:
  std::string agent_tool_;
  json::Array content_;
  std::string text_;
  bool found_ = false;
  bool has_other_ = false;
  std::string tool_call_id_;
  std::string arguments_;
};

/// OpenAI message content and tool calls, in order.
class OpenAIBuilder {
 public:
  explicit OpenAIBuilder(std::string_view agent_tool) : agent_tool_(agent_tool) {}
  void add_text(std::string_view text);
  void add_tool_call(std::string id, std::string name, std::string arguments);
  void finish(Candidate& c);

 private:
  std::string agent_tool_;
  json::Array tool_calls_;
  std::string text_;
  bool has_text_ = false;
  bool found_ = false;
  bool has_other_ = false;
  std::string tool_call_id_;
  std::string arguments_;
};

}  // namespace weld::proxy
