#include "weld/json/pointer.h"

#include <charconv>

namespace weld::json {

std::string escape_pointer_token(std::string_view token) {
  std::string out;
  out.reserve(token.size());
  for (char c : token) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out.push_back(c);
  }
  return out;
}

void append_pointer(std::string& pointer, std::string_view token) {
  pointer.push_back('/');
  for (char c : token) {
    if (c == '~') pointer += "~0";
    else if (c == '/') pointer += "~1";
    else pointer.push_back(c);
  }
}

void append_pointer(std::string& pointer, std::size_t index) {
  pointer.push_back('/');
  pointer += std::to_string(index);
}

bool split_pointer(std::string_view pointer, std::vector<std::string>& tokens) {
  tokens.clear();
  if (pointer.empty()) return true;
  if (pointer.front() != '/') return false;
  std::string current;
  for (std::size_t i = 1; i <= pointer.size(); ++i) {
    if (i == pointer.size() || pointer[i] == '/') {
      tokens.push_back(std::move(current));
      current.clear();
      continue;
    }
    char c = pointer[i];
    if (c == '~') {
      if (i + 1 >= pointer.size()) return false;
      char next = pointer[++i];
      if (next == '0') current.push_back('~');
      else if (next == '1') current.push_back('/');
      else return false;
    } else {
      current.push_back(c);
    }
  }
  return true;
}

const Value* resolve_pointer(const Value& root, std::string_view pointer) {
  std::vector<std::string> tokens;
  if (!split_pointer(pointer, tokens)) return nullptr;
  const Value* node = &root;
  for (const std::string& token : tokens) {
    if (node->is_object()) {
      node = node->find(token);
    } else if (node->is_array()) {
      if (token.empty() || (token.size() > 1 && token[0] == '0')) return nullptr;
      std::size_t index = 0;
      auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), index);
      if (ec != std::errc() || end != token.data() + token.size()) return nullptr;
      if (index >= node->as_array().size()) return nullptr;
      node = &node->as_array()[index];
    } else {
      return nullptr;
    }
    if (node == nullptr) return nullptr;
  }
  return node;
}

}  // namespace weld::json
