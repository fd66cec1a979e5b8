// The whole load (docs/schema.md, "Reading --json-schema VALUE", steps 1-6). Step 5 is the core compiler in
// strict mode; its SchemaError names the keyword and the JSON Pointer. Step 6, the root rule, runs on a schema
// that compiled.

#include "weld/schema/load.h"

namespace weld::schema {

Result<LoadedSchema> compile_schema_document(json::Value document, const CompileOptions& options,
                                             std::string_view flag) {
  try {
    Schema schema = Schema::compile(document, options);
    std::vector<Warning> warnings = schema.warnings();
    return LoadedSchema{std::move(document), std::move(schema), std::move(warnings)};
  } catch (const SchemaError& error) {
    return Error{ErrorCode::Config, std::string(flag) + " is not a valid JSON Schema: " + error.what(), error.pointer()};
  }
}

Result<LoadedSchema> load_schema_document(std::string_view value, const CompileOptions& options,
                                          std::string_view flag, const std::string& cwd) {
  Result<json::Value> document = read_json_argument(value, flag, cwd);
  if (!document) return document.error();
  return compile_schema_document(std::move(*document), options, flag);
}

Result<LoadedSchema> load_json_schema(std::string_view value, const CompileOptions& options, std::string_view flag,
                                      const std::string& cwd) {
  Result<json::Value> document = read_schema_argument(value, flag, cwd);
  if (!document) return document.error();
  // The compile comes first: a schema that is not a schema (`"type":"objct"`)
  // is told so before being told what its root accepts.
  Result<LoadedSchema> loaded = compile_schema_document(std::move(*document), options, flag);
  if (!loaded) return loaded.error();
  if (std::optional<std::string> problem = check_root_accepts_object(loaded->source, flag)) {
    return Error{ErrorCode::Config, *problem, ""};
  }
  return loaded;
}

}  // namespace weld::schema
