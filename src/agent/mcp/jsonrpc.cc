// JSON-RPC 2.0 over newline-delimited stdio, as MCP's stdio transport
// speaks it (docs/run.md, "MCP servers"): line splitting, message classification, and the
// two MCP results a run reads (tools/list, tools/call). Everything here
// reads what another program wrote, so nothing trusts it: fuzz/agent_mcp_fuzz.cc.

#include <string>

#include "connection.h"
#include "weld/agent/mcp.h"
#include "weld/json/parse.h"
#include "weld/json/serialize.h"

namespace weld::agent {
namespace {

bool valid_id(const json::Value& id) { return id.is_string() || id.is_integer(); }

}  // namespace

bool JsonRpcLineReader::feed(std::string_view bytes) {
  if (overflowed_) return false;
  if (start_ > 0 && start_ >= buffer_.size() / 2) {
    buffer_.erase(0, start_);
    start_ = 0;
  }
  buffer_.append(bytes);
  // Only the unfinished tail can overflow: complete lines are taken by next_line.
  std::size_t last_newline = buffer_.rfind('\n');
  std::size_t tail_start = last_newline == std::string::npos || last_newline < start_ ? start_ : last_newline + 1;
  if (buffer_.size() - tail_start > max_line_) overflowed_ = true;
  return !overflowed_;
}

std::optional<std::string> JsonRpcLineReader::next_line() {
  for (;;) {
    std::size_t newline = buffer_.find('\n', start_);
    if (newline == std::string::npos) return std::nullopt;
    std::string line = buffer_.substr(start_, newline - start_);
    start_ = newline + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;  // blank lines carry nothing
    if (line.size() > max_line_) {
      overflowed_ = true;
      return std::nullopt;
    }
    return line;
  }
}

JsonRpcMessage parse_jsonrpc_message(std::string_view line) {
  JsonRpcMessage message;
  Result<json::Value> parsed = json::parse(line);
  if (!parsed) {
    message.problem = "not JSON (" + parsed.error().message + " at " + parsed.error().where + ")";
    return message;
  }
  if (!parsed->is_object()) {
    message.problem = "not a JSON-RPC object";
    return message;
  }
  const json::Value& object = *parsed;
  const json::Value* version = object.find("jsonrpc");
  if (!version || !version->is_string() || version->as_string() != "2.0") {
    message.problem = "missing \"jsonrpc\": \"2.0\"";
    return message;
  }
  const json::Value* id = object.find("id");
  const json::Value* method = object.find("method");
  if (method) {
    if (!method->is_string()) {
      message.problem = "\"method\" is not a string";
      return message;
    }
    message.method = method->as_string();
    if (const json::Value* params = object.find("params")) message.params = *params;
    if (id && !id->is_null()) {
      if (!valid_id(*id)) {
        message.problem = "\"id\" must be a string or an integer";
        return message;
      }
      message.id = *id;
      message.kind = JsonRpcMessage::Kind::Request;
    } else {
      message.kind = JsonRpcMessage::Kind::Notification;
    }
    return message;
  }
  if (!id || !(valid_id(*id) || id->is_null())) {
    message.problem = "a response needs a string or integer \"id\"";
    return message;
  }
  message.id = *id;
  const json::Value* result = object.find("result");
  const json::Value* error = object.find("error");
  if ((result != nullptr) == (error != nullptr)) {
    message.problem = "a response needs exactly one of \"result\" and \"error\"";
    return message;
  }
  if (result) {
    message.result = *result;
  } else {
    if (!error->is_object()) {
      message.problem = "\"error\" is not an object";
      return message;
    }
    std::int64_t code = 0;
    std::string text = "(no message)";
    if (const json::Value* c = error->find("code"); c && c->is_integer()) code = c->as_integer();
    if (const json::Value* m = error->find("message"); m && m->is_string()) text = m->as_string();
    message.error = std::make_pair(code, std::move(text));
  }
  message.kind = JsonRpcMessage::Kind::Response;
  return message;
}

Result<std::vector<McpToolInfo>> parse_tools_list(const json::Value& result, std::optional<std::string>& next_cursor) {
  next_cursor.reset();
  const json::Value* tools = result.is_object() ? result.find("tools") : nullptr;
  if (!tools || !tools->is_array()) return Error{ErrorCode::Mcp, "the tools/list result has no \"tools\" array", "tools/list"};
  std::vector<McpToolInfo> out;
  for (const json::Value& entry : tools->as_array()) {
    if (!entry.is_object()) continue;
    const json::Value* name = entry.find("name");
    if (!name || !name->is_string() || name->as_string().empty()) continue;
    McpToolInfo info;
    info.name = name->as_string();
    if (const json::Value* d = entry.find("description"); d && d->is_string()) info.description = d->as_string();
    const json::Value* schema = entry.find("inputSchema");
    info.input_schema = schema && schema->is_object() ? *schema : json::Value(json::Object{{"type", "object"}});
    if (const json::Value* annotations = entry.find("annotations"); annotations && annotations->is_object()) {
      const json::Value* hint = annotations->find("readOnlyHint");
      info.read_only = hint && hint->is_bool() && hint->as_bool();
    }
    out.push_back(std::move(info));
  }
  if (const json::Value* cursor = result.find("nextCursor"); cursor && cursor->is_string() && !cursor->as_string().empty())
    next_cursor = cursor->as_string();
  return out;
}

ToolOutput tool_output_from_call_result(const json::Value& result) {
  ToolOutput output;
  if (!result.is_object()) {
    output.content = "MCP tool returned a result that is not an object: " + json::serialize(result);
    output.is_error = true;
    return output;
  }
  if (const json::Value* is_error = result.find("isError"); is_error && is_error->is_bool())
    output.is_error = is_error->as_bool();
  std::string text;
  auto add = [&text](std::string_view part) {
    if (!text.empty()) text += "\n";
    text += part;
  };
  if (const json::Value* content = result.find("content"); content && content->is_array()) {
    for (const json::Value& item : content->as_array()) {
      if (!item.is_object()) continue;
      const json::Value* type = item.find("type");
      std::string kind = type && type->is_string() ? type->as_string() : "";
      if (kind == "text") {
        if (const json::Value* t = item.find("text"); t && t->is_string()) add(t->as_string());
      } else if (kind == "image" || kind == "audio") {
        const json::Value* mime = item.find("mimeType");
        const json::Value* data = item.find("data");
        add("[" + kind + ": " + (mime && mime->is_string() ? mime->as_string() : std::string("unknown type")) + ", " +
            std::to_string(data && data->is_string() ? data->as_string().size() : 0) + " bytes of base64]");
      } else if (kind == "resource") {
        const json::Value* resource = item.find("resource");
        const json::Value* t = resource && resource->is_object() ? resource->find("text") : nullptr;
        const json::Value* uri = resource && resource->is_object() ? resource->find("uri") : nullptr;
        if (t && t->is_string()) add(t->as_string());
        else add("[resource: " + (uri && uri->is_string() ? uri->as_string() : std::string("?")) + "]");
      } else if (kind == "resource_link") {
        const json::Value* uri = item.find("uri");
        add("[resource link: " + (uri && uri->is_string() ? uri->as_string() : std::string("?")) + "]");
      } else {
        add(json::serialize(item));
      }
    }
  }
  if (text.empty()) {
    if (const json::Value* structured = result.find("structuredContent")) text = json::serialize(*structured);
  }
  output.content = std::move(text);
  return output;
}

std::optional<std::string> mcp_offered_name(std::string_view server, std::string_view tool,
                                            const std::vector<std::string>& taken) {
  auto sanitise = [](std::string_view text) {
    std::string out(text);
    for (char& c : out) {
      bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
      if (!ok) c = '_';
    }
    if (out.size() > 64) out.resize(64);
    return out;
  };
  auto is_taken = [&taken](const std::string& name) {
    for (const auto& t : taken)
      if (t == name) return true;
    return name == "structured_output";
  };
  std::string plain = sanitise(tool);
  if (!plain.empty() && !is_taken(plain)) return plain;
  std::string prefixed = sanitise("mcp__" + std::string(server) + "__" + std::string(tool));
  if (!is_taken(prefixed)) return prefixed;
  return std::nullopt;
}

Result<json::Value> response_result(JsonRpcMessage&& response, const std::string& method) {
  if (response.error)
    return Error{ErrorCode::Mcp, method + " failed: error " + std::to_string(response.error->first) + ": " + response.error->second,
                 ""};
  return std::move(*response.result);
}

json::Value reply_to_server_request(const JsonRpcMessage& request) {
  // We offer no client capabilities; ping is mandatory.
  if (request.method == "ping") return json::Object{{"jsonrpc", "2.0"}, {"id", request.id}, {"result", json::Object{}}};
  return json::Object{
      {"jsonrpc", "2.0"},
      {"id", request.id},
      {"error", json::Object{{"code", -32601}, {"message", "Method not found: " + request.method}}}};
}

}  // namespace weld::agent
