#pragma once
// Shared helpers for the built-in tools: argument access with clear errors,
// and path resolution that keeps file tools inside the run's directory.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "weld/agent/tool.h"
#include "weld/base/result.h"
#include "weld/json/value.h"

namespace weld::agent::tools {

/// `arguments[key]` as a string. Missing and `required` → Error naming the
/// tool and parameter; missing and optional → nullopt (in the Result).
Result<std::optional<std::string>> string_arg(const json::Value& arguments, std::string_view tool,
                                              std::string_view key, bool required);
/// `arguments[key]` as a non-negative integer (a whole real is accepted).
Result<std::optional<std::int64_t>> integer_arg(const json::Value& arguments, std::string_view tool,
                                                std::string_view key);

/// Resolves `path` (absolute, or relative to `cwd`), normalised. An Error
/// when it leaves the workspace (`cwd`), symlinks included.
Result<std::string> resolve_in_workspace(const std::string& cwd, std::string_view path);

/// `path` relative to `cwd` for display ("." for cwd itself).
std::string display_path(const std::string& cwd, const std::string& path);

/// An error ToolOutput.
inline ToolOutput tool_error(std::string message) { return {std::move(message), true}; }

/// Reads a whole regular file, at most `max_bytes` (Error when larger).
Result<std::string> read_file_bounded(const std::string& path, std::uint64_t max_bytes);

/// True when `data` looks binary (a NUL byte in the first 8 KiB).
bool looks_binary(std::string_view data);

/// Glob matching of a '/'-separated relative path: `*`, `?`, `[…]` within a
/// segment, `**` across segments.
bool glob_match(std::string_view pattern, std::string_view path);

}  // namespace weld::agent::tools
