#include "writer.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>

#include "weld/json/parse.h"
#include "weld/json/serialize.h"

namespace weld::provider::writer {

void sse_event(std::string& out, std::string_view name, const json::Value& data) {
  out += "event: ";
  out += name;
  out += "\ndata: ";
  json::serialize_to(out, data);
  out += "\n\n";
}

void sse_data(std::string& out, const json::Value& data) {
  out += "data: ";
  json::serialize_to(out, data);
  out += "\n\n";
}

std::string make_id(std::string_view prefix, std::string_view seed) {
  // Two FNV-1a 64 passes with different offsets: 128 bits, printed as 24 hex
  // digits.
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

void put_tools(const Codec& codec, json::Value& body, const Request& request) {
  if (!request.tools.empty()) {
    json::Array tools;
    tools.reserve(request.tools.size());
    for (const ToolSpec& tool : request.tools) tools.push_back(codec.tool(tool));
    body.set("tools", std::move(tools));
    if (request.forced_tool) codec.force_tool(body, *request.forced_tool);
  }
  if (request.response_format) codec.set_native_format(body, *request.response_format);
}

}  // namespace weld::provider::writer

namespace weld::provider {

void Codec::append_follow_up(json::Value& body, const Response& answer, std::string_view ask) const {
  // Only a conversation the body already has is continued.
  json::Value* messages = body.is_object() ? body.find("messages") : nullptr;
  if (messages == nullptr || !messages->is_array()) return;
  if (!answer.message.text.empty()) messages->push_back(assistant_turn(answer));
  messages->push_back(json::Object{{"role", "user"}, {"content", ask}});
}

std::string_view Codec::status_error_type(int status) const {
  switch (status) {
    case 401: return "authentication_error";
    case 403: return "permission_error";
    case 404: return "not_found_error";
    case 429: return rate_limit_type();
    default: return "invalid_request_error";
  }
}

std::vector<std::string_view> text_deltas(std::string_view text) {
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

json::Value object_root(const json::Value& schema) {
  if (!schema.is_object()) return json::Object{{"type", "object"}};
  if (schema.find("type") != nullptr) return schema;
  json::Object out;
  out.reserve(schema.size() + 1);
  out.push_back({"type", "object"});
  for (const json::Member& m : schema.as_object()) out.push_back(m);
  return out;
}

}  // namespace weld::provider

namespace weld::provider::writer {

json::Value object_or_empty(std::string_view text) {
  if (text.empty()) return json::Object{};
  auto parsed = json::parse(text);
  if (!parsed || !parsed->is_object()) return json::Object{};
  return std::move(*parsed);
}

bool is_object_text(std::string_view text) {
  if (text.empty()) return false;
  auto parsed = json::parse(text);
  return parsed && parsed->is_object();
}

json::Value& object_member(json::Value& body, std::string_view key) {
  json::Value* member = body.find(key);
  if (member == nullptr || !member->is_object()) return body.set(key, json::Object{});
  return *member;
}

std::string one_block(const Codec& codec, const AnswerHead& head, std::string_view text, const Usage& usage) {
  std::string out;
  out.reserve(text.size() * 2 + 512);
  out += codec.block_start(head, 0);
  for (std::string_view piece : text_deltas(text)) out += codec.block_text(head, 0, piece);
  out += codec.block_stop(head, 0);
  out += codec.message_end(head, usage);
  return out;
}

json::Value openai_error_body(std::string_view type, std::string_view message, const json::Value* candidate) {
  json::Value error = json::Object{{"message", message}, {"type", type}, {"param", nullptr}, {"code", nullptr}};
  if (candidate != nullptr) error.set("candidate", *candidate);
  return json::Object{{"error", std::move(error)}};
}

json::Value& array_member(json::Value& body, std::string_view key) {
  if (!body.is_object()) body = json::Object{};
  json::Value* member = body.find(key);
  if (member == nullptr || !member->is_array()) return body.set(key, json::Array{});
  return *member;
}

void erase_nested(json::Value& body, std::string_view key, std::string_view member) {
  json::Value* outer = body.find(key);
  if (outer == nullptr || !outer->is_object()) return;
  outer->erase(member);
  if (outer->size() == 0) body.erase(key);
}

}  // namespace weld::provider::writer
