#pragma once
/// \file
/// How the face a library message reaches names the settings the message
/// points at: the library's own field names by default (which are also the
/// Python keywords: `model`, `max_session_turns`), the command line's flags
/// when the CLI fills it (`--model`, `--max-session-turns`). The library
/// says "pass model=NAME" or "pass --model NAME" without knowing which face
/// it speaks through.

#include <string>
#include <string_view>

namespace weld {

/// The names of the settings library messages mention. String literals:
/// copying one is copying views.
struct SettingNames {
  std::string_view provider = "provider";
  std::string_view model = "model";
  std::string_view base_url = "base_url";
  std::string_view max_session_turns = "max_session_turns";
  std::string_view max_structured_retries = "max_structured_retries";
  std::string_view max_tool_calls = "max_tool_calls";
  std::string_view max_wall_time = "max_wall_time";
  std::string_view mechanism = "mechanism";
  std::string_view connect_timeout = "connect_timeout";
  std::string_view idle_timeout = "idle_timeout";
  std::string_view max_retries = "max_retries";
  std::string_view max_response_bytes = "max_response_bytes";
  /// The schema answers must validate against (Python's `schema`
  /// argument; `--json-schema`).
  std::string_view json_schema = "schema";
  /// Settings the library's callers need not have: empty when the face has
  /// no such setting (Python's runs offer no tools), and the messages then
  /// leave out what they would say about it.
  std::string_view exclude_tools = "";
  std::string_view core_tools = "";
  /// A settings document and an MCP servers document (file or JSON text).
  std::string_view settings = "settings";
  std::string_view mcp_config = "mcp_config";
  /// The batch's result file, its format and the data rows' id field.
  std::string_view output = "output";
  std::string_view output_format = "output_format";
  std::string_view id_field = "id_field";
  /// Between a name and its value: "=" (`model=gpt-4o`), or " " on the
  /// command line (`--model gpt-4o`).
  std::string_view assign = "=";

  /// `name` given `value`, as this face writes it.
  std::string with_value(std::string_view name, std::string_view value) const {
    std::string out(name);
    out += assign;
    out += value;
    return out;
  }
};

}  // namespace weld
