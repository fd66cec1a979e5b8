// passthrough_when (see passthrough.h). The trap it answers: a
// client such as Qwen Code sends its follow-up requests (next-speaker and
// loop checks, memory scans) with the same model as the main request, so a
// tagged model forces them into the agent's shape too and the client gets
// an answer it cannot read. The conditions use what such requests carry
// that the main one does not: their own system prompt, a small output
// limit, or their own structured-output request.

#include "weld/proxy/passthrough.h"

#include <string_view>

namespace weld::proxy {
namespace {

// Appends the text of an Anthropic/OpenAI content value (a string, or an
// array of blocks with "text").
void append_text(const json::Value* content, std::string& out) {
  if (content == nullptr) return;
  if (content->is_string()) {
    out += content->as_string();
    out += '\n';
    return;
  }
  if (!content->is_array()) return;
  for (const json::Value& block : content->as_array()) {
    const json::Value* text = block.find("text");
    if (text != nullptr && text->is_string()) {
      out += text->as_string();
      out += '\n';
    }
  }
}

std::string system_text(const json::Value& body) {
  std::string out;
  append_text(body.find("system"), out);        // Anthropic Messages
  append_text(body.find("instructions"), out);  // OpenAI Responses
  for (const char* list : {"messages", "input"}) {
    const json::Value* messages = body.find(list);
    if (messages == nullptr || !messages->is_array()) continue;
    for (const json::Value& message : messages->as_array()) {
      const json::Value* role = message.find("role");
      if (role == nullptr || !role->is_string()) continue;
      if (role->as_string() == "system" || role->as_string() == "developer") append_text(message.find("content"), out);
    }
  }
  return out;
}

std::optional<std::int64_t> output_limit(const json::Value& body) {
  for (const char* key : {"max_tokens", "max_completion_tokens", "max_output_tokens"}) {
    const json::Value* limit = body.find(key);
    if (limit != nullptr && limit->is_integer()) return limit->as_integer();
  }
  return std::nullopt;
}

bool asks_own_format(const json::Value& body) {
  auto not_text = [](const json::Value* format) {
    if (format == nullptr || !format->is_object()) return false;
    const json::Value* type = format->find("type");
    return !(type != nullptr && type->is_string() && type->as_string() == "text");
  };
  if (not_text(body.find("response_format"))) return true;
  if (const json::Value* config = body.find("output_config"); config != nullptr && config->find("format") != nullptr)
    return true;
  const json::Value* text = body.find("text");
  return text != nullptr && not_text(text->find("format"));
}

}  // namespace

Result<PassthroughRule> parse_passthrough_rule(const json::Value& value) {
  if (!value.is_object())
    return Error{ErrorCode::Registry, "passthrough_when must be an object (system_contains, max_tokens_below, response_format)", ""};
  PassthroughRule rule;
  for (const json::Member& member : value.as_object()) {
    const std::string& key = member.key;
    const json::Value& v = member.value;
    if (key == "system_contains") {
      if (!v.is_array() || v.size() == 0)
        return Error{ErrorCode::Registry, "passthrough_when.system_contains must be a non-empty array of non-empty strings", ""};
      for (const json::Value& item : v.as_array()) {
        if (!item.is_string() || item.as_string().empty())
          return Error{ErrorCode::Registry, "passthrough_when.system_contains must be a non-empty array of non-empty strings", ""};
        rule.system_contains.push_back(item.as_string());
      }
    } else if (key == "max_tokens_below") {
      if (!v.is_integer() || v.as_integer() <= 0)
        return Error{ErrorCode::Registry, "passthrough_when.max_tokens_below must be a positive integer", ""};
      rule.max_tokens_below = v.as_integer();
    } else if (key == "response_format") {
      if (!v.is_bool()) return Error{ErrorCode::Registry, "passthrough_when.response_format must be true or false", ""};
      rule.response_format = v.as_bool();
    } else {
      return Error{ErrorCode::Registry, "passthrough_when has an unknown field \"" + key +
                                   "\" (known: system_contains, max_tokens_below, response_format)", ""};
    }
  }
  return rule;
}

std::optional<std::string> passthrough_match(const PassthroughRule& rule, const json::Value& body) {
  if (!rule.system_contains.empty()) {
    const std::string system = system_text(body);
    for (const std::string& needle : rule.system_contains) {
      if (system.find(needle) != std::string::npos) return "system_contains \"" + needle + "\"";
    }
  }
  if (rule.max_tokens_below) {
    std::optional<std::int64_t> limit = output_limit(body);
    if (limit && *limit < *rule.max_tokens_below)
      return "max_tokens " + std::to_string(*limit) + " < " + std::to_string(*rule.max_tokens_below);
  }
  if (rule.response_format && asks_own_format(body)) return std::string("response_format");
  return std::nullopt;
}

}  // namespace weld::proxy
