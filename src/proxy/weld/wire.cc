#include "wire.h"

#include <algorithm>
#include <cstdio>

#include "weld/json/parse.h"

namespace weld::proxy::wire {

const std::string* find_string(const json::Value& object, std::string_view key) {
  const json::Value* v = object.find(key);
  return v != nullptr && v->is_string() ? &v->as_string() : nullptr;
}

const json::Array* find_array(const json::Value& object, std::string_view key) {
  const json::Value* v = object.find(key);
  return v != nullptr && v->is_array() ? &v->as_array() : nullptr;
}

const json::Value* find_object(const json::Value& object, std::string_view key) {
  const json::Value* v = object.find(key);
  return v != nullptr && v->is_object() ? v : nullptr;
}

json::Value tool_schema(const json::Value& input_schema) {
  if (!input_schema.is_object()) return json::Object{{"type", "object"}};
  if (input_schema.find("type") != nullptr) return input_schema;
  json::Object out;
  out.reserve(input_schema.size() + 1);
  out.push_back({"type", "object"});
  for (const json::Member& m : input_schema.as_object()) out.push_back(m);
  return out;
}

namespace {

json::Value build_agent_tool(Api api, const Agent& agent) {
  // An empty description is left out rather than sent as "".
  json::Value tool = json::Object{{"name", agent.name}};
  if (!agent.description.empty()) tool.set("description", agent.description);
  if (api == Api::Anthropic) {
    tool.set("input_schema", tool_schema(agent.input_schema));
    return tool;
  }
  if (api == Api::Responses) {
    json::Value flat = json::Object{{"type", "function"}};
    for (json::Member& member : tool.as_object()) flat.set(member.key, std::move(member.value));
    flat.set("parameters", tool_schema(agent.input_schema));
    flat.set("strict", false);
    return flat;
  }
  tool.set("parameters", tool_schema(agent.input_schema));
  return json::Object{{"type", "function"}, {"function", std::move(tool)}};
}

}  // namespace

json::Value agent_tool(Api api, const Agent& agent) {
  const json::Value& cached = api == Api::Anthropic   ? agent.anthropic_tool
                              : api == Api::Responses ? agent.responses_tool
                                                      : agent.openai_tool;
  return cached.is_null() ? build_agent_tool(api, agent) : cached;
}

json::Value forced_tool_choice(Api api, std::string_view name) {
  if (api == Api::Anthropic) return json::Object{{"type", "tool"}, {"name", name}};
  if (api == Api::Responses) return json::Object{{"type", "function"}, {"name", name}};
  return json::Object{{"type", "function"}, {"function", json::Object{{"name", name}}}};
}

std::optional<json::Value> parse_object(std::string_view text) {
  auto parsed = json::parse(text);
  if (!parsed || !parsed->is_object()) return std::nullopt;
  return std::move(*parsed);
}

std::vector<std::string_view> split_text(std::string_view text) {
  constexpr std::size_t kDeltaBytes = 512;
  std::vector<std::string_view> pieces;
  while (!text.empty()) {
    std::size_t n = std::min(kDeltaBytes, text.size());
    if (n < text.size()) {
      std::size_t cut = n;
      // Back off over UTF-8 continuation bytes (10xxxxxx).
      while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
      if (cut > 0) n = cut;
    }
    pieces.push_back(text.substr(0, n));
    text.remove_prefix(n);
  }
  return pieces;
}

std::string make_id(std::string_view prefix, std::string_view seed) {
  // Two FNV-1a 64 passes with different offsets: 128 bits, printed as 24 hex
  // digits. Deterministic so that the transforms stay pure and testable.
  std::uint64_t a = 14695981039346656037ull;
  std::uint64_t b = 0x9e3779b97f4a7c15ull;
  for (unsigned char c : seed) {
    a = (a ^ c) * 1099511628211ull;
    b = (b ^ c) * 0x100000001b3ull + 0x7f4a7c15ull;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%016llx%08llx", static_cast<unsigned long long>(a),
                static_cast<unsigned long long>(b & 0xffffffffull));
  return std::string(prefix) + buf;
}

}  // namespace weld::proxy::wire

namespace weld::proxy {

void prepare_agent(Agent& agent) {
  agent.anthropic_tool = wire::build_agent_tool(Api::Anthropic, agent);
  agent.openai_tool = wire::build_agent_tool(Api::OpenAI, agent);
  agent.responses_tool = wire::build_agent_tool(Api::Responses, agent);
}

}  // namespace weld::proxy
