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
