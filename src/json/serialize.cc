#include "weld/json/serialize.h"

#include <charconv>
#include <cmath>

namespace weld::json {
namespace {

void write_real(std::string& out, double d) {
  if (!std::isfinite(d)) {  // not representable in JSON; JSON.stringify writes null
    out += "null";
    return;
  }
  char buffer[32];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, d);
  std::string_view text(buffer, static_cast<std::size_t>(end - buffer));
  out += text;
  if (text.find_first_of(".eE") == std::string_view::npos) out += ".0";
}

void newline(std::string& out, int indent, int depth) {
  out.push_back('\n');
  out.append(static_cast<std::size_t>(indent * depth), ' ');
}

void write(std::string& out, const Value& value, int indent, int depth) {
  switch (value.type()) {
    case Type::Null: out += "null"; return;
    case Type::Boolean: out += value.as_bool() ? "true" : "false"; return;
    case Type::Integer: {
      char buffer[24];
      auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value.as_integer());
      out.append(buffer, end);
      return;
    }
    case Type::Real: write_real(out, value.as_real()); return;
    case Type::String: write_string(out, value.as_string()); return;
    case Type::Array: {
      const Array& array = value.as_array();
      out.push_back('[');
      for (std::size_t i = 0; i < array.size(); ++i) {
        if (i > 0) out.push_back(',');
        if (indent > 0) newline(out, indent, depth + 1);
        write(out, array[i], indent, depth + 1);
      }
      if (indent > 0 && !array.empty()) newline(out, indent, depth);
      out.push_back(']');
      return;
    }
    case Type::Object: {
      const Object& object = value.as_object();
      out.push_back('{');
      for (std::size_t i = 0; i < object.size(); ++i) {
        if (i > 0) out.push_back(',');
        if (indent > 0) newline(out, indent, depth + 1);
        write_string(out, object[i].key);
        out.push_back(':');
        if (indent > 0) out.push_back(' ');
        write(out, object[i].value, indent, depth + 1);
      }
      if (indent > 0 && !object.empty()) newline(out, indent, depth);
      out.push_back('}');
      return;
    }
  }
}

}  // namespace

void write_string(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  std::size_t run_start = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(s.data() + run_start, i - run_start);
    run_start = i + 1;
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        out += "\\u00";
        out.push_back(kHex[c >> 4]);
        out.push_back(kHex[c & 0xF]);
    }
  }
  out.append(s.data() + run_start, s.size() - run_start);
  out.push_back('"');
}

std::string quote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  write_string(out, s);
  return out;
}

void serialize_to(std::string& out, const Value& value, const SerializeOptions& options) {
  write(out, value, options.indent, 0);
}

std::string serialize(const Value& value, const SerializeOptions& options) {
  std::string out;
  serialize_to(out, value, options);
  return out;
}

}  // namespace weld::json
