#pragma once
// Inputs of `weld schema check|validate` (docs/schema.md): schema arguments and
// instance files (JSON, JSON Lines, stdin). --resolve PREFIX=DIR is
// weld/schema/directory_resolver.h.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "weld/base/result.h"
#include "weld/json/value.h"
#include "weld/schema/schema.h"

namespace weld::cli {

/// A SCHEMA argument as docs/schema.md reads it: inline JSON (an object, an array,
/// `true` or `false`) stays, `@path` stays, and a bare path becomes `@path`.
std::string schema_argument(const std::string& arg);

/// A document (a whole file, standard input, or one line of JSON Lines)
/// larger than this is refused.
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

/// Reads FILE arguments in order and hands each instance to `each` as soon
/// as it is read: `-` is stdin (one document, or one per line when
/// `jsonl`), `*.jsonl` one instance per non-blank line, anything else one
/// JSON document. Memory holds one document or one line at a time, never a
/// whole JSON Lines input. A file that cannot be read yields one Instance
/// holding the error, as do a file that is not a regular one and a file or
/// stdin larger than kMaxInstanceBytes; a JSON Lines line longer than that
/// yields an error and ends that input. Bytes that can never occur in JSON
/// (a NUL or another control character outside strings and whitespace) end
/// a document at once, reported as the parser reports them: /dev/zero is
/// refused after one read, not after the cap.
void read_instances(const std::vector<std::string>& files, bool jsonl, int stdin_fd,
                    const std::function<void(Instance&)>& each);

}  // namespace weld::cli
