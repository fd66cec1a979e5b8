#pragma once
// Inputs of `weld schema check|validate` (SPEC §1.4): schema arguments and
// instance files (JSON, JSON Lines, stdin). --resolve PREFIX=DIR is
// weld/schema/directory_resolver.h.

#include <cstdint>
#include <string>
#include <vector>

#include "weld/base/result.h"
#include "weld/json/value.h"
#include "weld/schema/schema.h"

namespace weld::cli {

/// A SCHEMA argument as §1.1 reads it: inline JSON (an object, an array,
/// `true` or `false`) stays, `@path` stays, and a bare path becomes `@path`.
std::string schema_argument(const std::string& arg);

/// Instance files (and standard input) larger than this are refused.
inline constexpr std::uint64_t kMaxInstanceBytes = 256 * 1024 * 1024;

/// One instance to validate: where it came from and its value (or why it
/// could not be read or parsed).
struct Instance {
  /// "file.json", "file.jsonl:3", "-", "-:2".
  std::string label;
  /// The FILE argument it came from ("-" for stdin).
  std::string file;
  /// Its line in a JSON Lines input (1-based); 0 for a whole-file document.
  std::size_t line = 0;
  Result<json::Value> value = json::Value();
};

/// Reads FILE arguments in order: `-` is stdin (one document, or one per
/// line when `jsonl`), `*.jsonl` one instance per non-blank line, anything
/// else one JSON document. A file that cannot be read yields one Instance
/// holding the error, as do a file that is not a regular one and a file or
/// stdin larger than kMaxInstanceBytes.
std::vector<Instance> read_instances(const std::vector<std::string>& files, bool jsonl, int stdin_fd);

}  // namespace weld::cli
