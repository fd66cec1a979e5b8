// Settings `mcpServers` (docs/run.md, "MCP servers"), in the shape Claude Code and Qwen Code
// read: {"name": {"command", "args", "env"}} or {"name": {"url"|"httpUrl",
// "headers"}} (Streamable HTTP), plus weld's optional "cwd",
// "timeout" (ms per tool call, as Qwen Code) and "startupTimeout" (ms).

#include "weld/agent/mcp.h"

namespace weld::agent {
namespace {

Error field_error(const std::string& file, const std::string& field, const std::string& what) {
  return Error{ErrorCode::Config, "Settings file \"" + file + "\": mcpServers." + field + " " + what + ".", file};
}

Result<std::chrono::milliseconds> milliseconds(const json::Value& entry, std::string_view key, const std::string& file,
                                               const std::string& name, std::chrono::milliseconds fallback) {
  const json::Value* v = entry.find(key);
  if (!v) return fallback;
  if (!v->is_number() || v->as_double() <= 0 || v->as_double() > 86'400'000.0)
    return field_error(file, name + "." + std::string(key), "must be a number of milliseconds between 1 and 86400000");
  return std::chrono::milliseconds(static_cast<std::int64_t>(v->as_double()));
}

}  // namespace

Status parse_mcp_servers(const json::Value& value, const std::string& file, std::vector<McpServerConfig>& out) {
  if (!value.is_object())
    return Error{ErrorCode::Config, "Settings file \"" + file + "\": mcpServers must be an object of servers by name.", file};
  for (const json::Member& member : value.as_object()) {
    const std::string& name = member.key;
    const json::Value& entry = member.value;
    if (name.empty()) return field_error(file, "\"\"", "has an empty server name");
    if (!entry.is_object()) return field_error(file, name, "must be an object");
    McpServerConfig config;
    config.name = name;
    const json::Value* command = entry.find("command");
    const json::Value* url = entry.find("httpUrl") ? entry.find("httpUrl") : entry.find("url");
    if (!command && url) {
      // Streamable HTTP. Claude Code writes {"type":"http","url"},
      // Qwen Code {"httpUrl"}; the older HTTP+SSE transport is not spoken.
      const std::string key = entry.find("httpUrl") ? "httpUrl" : "url";
      if (const json::Value* type = entry.find("type")) {
        if (!type->is_string()) return field_error(file, name + ".type", "must be a string");
        if (type->as_string() == "sse")
          return field_error(file, name + ".type",
                             "is \"sse\", the HTTP+SSE transport of 2024-11-05, which weld does not speak; weld "
                             "speaks Streamable HTTP (\"type\": \"http\"), which current servers offer");
        if (type->as_string() != "http" && type->as_string() != "streamable-http")
          return field_error(file, name + ".type", "must be \"http\" for a url entry");
      }
      if (!url->is_string()) return field_error(file, name + "." + key, "must be a string");
      const std::string& text = url->as_string();
      if (text.rfind("http://", 0) != 0 && text.rfind("https://", 0) != 0)
        return field_error(file, name + "." + key, "must be an http:// or https:// URL");
      config.url = text;
      if (const json::Value* headers = entry.find("headers")) {
        if (!headers->is_object()) return field_error(file, name + ".headers", "must be an object of strings");
        for (const json::Member& header : headers->as_object()) {
          if (!header.value.is_string()) return field_error(file, name + ".headers." + header.key, "must be a string");
          config.headers.emplace_back(header.key, header.value.as_string());
        }
      }
    } else if (!command) {
      return field_error(file, name + ".command", "is missing");
    }
    if (command && (!command->is_string() || command->as_string().empty()))
      return field_error(file, name + ".command", "must be a non-empty string");
    if (command) config.command = command->as_string();
    if (const json::Value* args = entry.find("args")) {
      if (!args->is_array()) return field_error(file, name + ".args", "must be an array of strings");
      for (const json::Value& arg : args->as_array()) {
        if (!arg.is_string()) return field_error(file, name + ".args", "must be an array of strings");
        config.args.push_back(arg.as_string());
      }
    }
    if (const json::Value* env = entry.find("env")) {
      if (!env->is_object()) return field_error(file, name + ".env", "must be an object of strings");
      for (const json::Member& var : env->as_object()) {
        if (!var.value.is_string()) return field_error(file, name + ".env." + var.key, "must be a string");
        config.env.emplace_back(var.key, var.value.as_string());
      }
    }
    if (const json::Value* cwd = entry.find("cwd")) {
      if (!cwd->is_string()) return field_error(file, name + ".cwd", "must be a string");
      config.cwd = cwd->as_string();
    }
    auto call = milliseconds(entry, "timeout", file, name, config.call_timeout);
    if (!call) return call.error();
    config.call_timeout = *call;
    auto startup = milliseconds(entry, "startupTimeout", file, name, config.startup_timeout);
    if (!startup) return startup.error();
    config.startup_timeout = *startup;
    bool replaced = false;
    for (auto& existing : out) {
      if (existing.name == name) {
        existing = config;
        replaced = true;
      }
    }
    if (!replaced) out.push_back(std::move(config));
  }
  return Ok{};
}

}  // namespace weld::agent
