// Settings `mcpServers` (SPEC §2.7), in the shape Claude Code and Qwen Code
// read: {"name": {"command", "args", "env"}}, plus weld's optional "cwd",
// "timeout" (ms per tool call, as Qwen Code) and "startupTimeout" (ms).

#include "weld/agent/mcp.h"

namespace weld::agent {
namespace {

Error field_error(const std::string& file, const std::string& field, const std::string& what) {
  return Error{"config", "Settings file \"" + file + "\": mcpServers." + field + " " + what + ".", file};
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
    return Error{"config", "Settings file \"" + file + "\": mcpServers must be an object of servers by name.", file};
  for (const json::Member& member : value.as_object()) {
    const std::string& name = member.key;
    const json::Value& entry = member.value;
    if (name.empty()) return field_error(file, "\"\"", "has an empty server name");
    if (!entry.is_object()) return field_error(file, name, "must be an object");
    McpServerConfig config;
    config.name = name;
    const json::Value* command = entry.find("command");
    if (!command) {
      if (entry.find("url") || entry.find("httpUrl"))
        return field_error(file, name, "is a remote (HTTP) server; weld supports stdio servers (\"command\") only");
      return field_error(file, name + ".command", "is missing");
    }
    if (!command->is_string() || command->as_string().empty())
      return field_error(file, name + ".command", "must be a non-empty string");
    config.command = command->as_string();
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
