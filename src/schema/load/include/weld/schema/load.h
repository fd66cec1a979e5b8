#pragma once
/// \file
/// Reading a schema argument the way `--json-schema VALUE` does (docs/schema.md,
/// "Reading --json-schema VALUE"): inline JSON or `@path`, each rule with its message.
///
/// \code
///   weld::Result<weld::json::Value> doc = weld::schema::read_schema_argument(arg);
///   if (!doc) { std::cerr << doc.error().message << "\n"; return 52; }
/// \endcode

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "weld/base/result.h"
#include "weld/json/value.h"
#include "weld/schema/schema.h"

namespace weld::schema {

/// Steps 1–4 of docs/schema.md, "Reading --json-schema VALUE": trim, `@path` (stat first, 4 MiB cap, UTF-8),
/// parse, must be an object. `flag` names the value in messages: "schema" unless the caller says how its user
/// gave it (the weld command passes "--json-schema"). `cwd` resolves relative paths (empty: the process's).
Result<json::Value> read_schema_argument(std::string_view value, std::string_view flag = "schema",
                                         const std::string& cwd = {});

/// Steps 1–3 of the same (trim, `@path`, parse) for any JSON value: the
/// schema commands accept `true`, `false` and any root as a schema.
Result<json::Value> read_json_argument(std::string_view value, std::string_view flag = "schema",
                                       const std::string& cwd = {});

/// Step 6: the root must accept object values. Returns the error message
/// (starting with `flag`), or nullopt when the root can accept an object.
std::optional<std::string> check_root_accepts_object(const json::Value& schema,
                                                     std::string_view flag = "schema");

/// The size limit of step 2: a schema file of up to 4,194,304 bytes is read.
inline constexpr std::uint64_t kMaxSchemaFileBytes = 4194304;

/// A schema loaded for a run: compiled, with its compile warnings.
struct LoadedSchema {
  json::Value source;
  Schema schema;
  std::vector<Warning> warnings;
};

/// All six steps: read, strict compile, root-accepts-object. Errors carry
/// the documented message (docs/schema.md; code "config", exit 52 in the CLI).
Result<LoadedSchema> load_json_schema(std::string_view value, const CompileOptions& options = {},
                                      std::string_view flag = "schema", const std::string& cwd = {});

/// Steps 1-3 and 5 for the schema commands (`weld schema check|validate`,
/// `weld sample`, docs/schema.md): any root is compiled, `true` and `false`
/// included; neither the must-be-an-object nor the root-accepts-object rule.
Result<LoadedSchema> load_schema_document(std::string_view value, const CompileOptions& options = {},
                                          std::string_view flag = "schema", const std::string& cwd = {});

/// Step 5 alone, for a document already read: compiles `document`, turning a
/// SchemaError into `<flag> is not a valid JSON Schema: <message> at <pointer>`.
Result<LoadedSchema> compile_schema_document(json::Value document, const CompileOptions& options = {},
                                             std::string_view flag = "schema");

}  // namespace weld::schema
