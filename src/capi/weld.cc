// The C API (include/weld/weld.h) over the C++ schema engine. Every entry
// point catches everything: no C++ exception may cross into C (a binding's
// runtime would abort). Opaque structs own all strings they hand out.

#include "weld/weld.h"

#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "weld/json/parse.h"
#include "weld/json/serialize.h"
#include "weld/schema/directory_resolver.h"
#include "weld/schema/lower.h"
#include "weld/schema/schema.h"

struct weld_options {
  weld::schema::CompileOptions compile;
  std::vector<weld::schema::DirectoryMapping> directories;
  weld_resolve_fn resolve = nullptr;
  void* user_data = nullptr;
};

struct weld_schema {
  weld::schema::Schema compiled;
  std::vector<std::string> warnings;
};

struct weld_lowering {
  weld::schema::Lowering lowering;
  std::string schema;
  std::string changes;
};

struct weld_result {
  /// One error, its strings owned here.
  struct Entry {
    std::string instance_path;
    std::string schema_path;
    std::string keyword;
    std::string message;
    std::string params;
  };
  bool valid = true;
  std::vector<Entry> errors;
};

namespace {

std::string_view text_of(const char* text, std::size_t length) {
  return length == WELD_NUL_TERMINATED ? std::string_view(text) : std::string_view(text, length);
}

// A copy for the caller, freed with weld_free (std::free). Null when out of
// memory: the status still says what happened.
char* copy_message(std::string_view text) {
  char* out = static_cast<char*>(std::malloc(text.size() + 1));
  if (out == nullptr) return nullptr;
  std::memcpy(out, text.data(), text.size());
  out[text.size()] = '\0';
  return out;
}

weld_status fail(weld_status status, std::string_view text, char** message) {
  if (message != nullptr) *message = copy_message(text);
  return status;
}

// "<what> is not valid JSON: <parser detail> at <line and column>".
std::string not_json(std::string_view what, const weld::Error& error) {
  return std::string(what) + " is not valid JSON: " + error.message + (error.where.empty() ? "" : " at " + error.where);
}

// Runs `body`, turning any exception into a status and a message.
template <typename Body>
weld_status guarded(char** message, Body&& body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return fail(WELD_ERROR_MEMORY, "out of memory", message);
  } catch (const std::exception& error) {
    return fail(WELD_ERROR_INTERNAL, std::string("internal error: ") + error.what(), message);
  } catch (...) {
    return fail(WELD_ERROR_INTERNAL, "internal error", message);
  }
}

std::optional<weld::schema::Dialect> dialect_of(weld_dialect dialect) {
  switch (dialect) {
    case WELD_DIALECT_DRAFT4: return weld::schema::Dialect::Draft4;
    case WELD_DIALECT_DRAFT6: return weld::schema::Dialect::Draft6;
    case WELD_DIALECT_DRAFT7: return weld::schema::Dialect::Draft7;
    case WELD_DIALECT_2019_09: return weld::schema::Dialect::Draft2019_09;
    case WELD_DIALECT_2020_12: return weld::schema::Dialect::Draft2020_12;
    case WELD_DIALECT_V1: return weld::schema::Dialect::V1;
    case WELD_DIALECT_DEFAULT: break;
  }
  return std::nullopt;
}

// The folders first, then the caller's callback.
weld::schema::Resolver make_resolver(const weld_options& options) {
  weld::schema::Resolver folders = weld::schema::directory_resolver(options.directories);
  if (options.resolve == nullptr) return folders;
  weld_resolve_fn resolve = options.resolve;
  void* user_data = options.user_data;
  return [folders = std::move(folders), resolve, user_data](std::string_view uri) -> std::optional<weld::json::Value> {
    if (folders) {
      if (std::optional<weld::json::Value> found = folders(uri)) return found;
    }
    std::string uri_text(uri);
    std::size_t length = WELD_NUL_TERMINATED;
    const char* text = resolve(user_data, uri_text.c_str(), &length);
    if (text == nullptr) return std::nullopt;
    weld::Result<weld::json::Value> document = weld::json::parse(text_of(text, length));
    if (!document) return std::nullopt;
    return std::move(*document);
  };
}

// One string field of error `index`; null when out of range.
const char* error_field(const weld_result* result, std::size_t index, std::string weld_result::Entry::*field) {
  if (result == nullptr || index >= result->errors.size()) return nullptr;
  return (result->errors[index].*field).c_str();
}

}  // namespace

extern "C" {

const char* weld_version(void) { return WELD_VERSION; }

weld_options* weld_options_new(void) { return new (std::nothrow) weld_options(); }

void weld_options_free(weld_options* options) { delete options; }

weld_status weld_options_set_dialect(weld_options* options, weld_dialect dialect) {
  if (options == nullptr) return WELD_ERROR_ARGUMENT;
  std::optional<weld::schema::Dialect> chosen = dialect_of(dialect);
  if (!chosen && dialect != WELD_DIALECT_DEFAULT) return WELD_ERROR_ARGUMENT;
  options->compile.default_dialect = chosen;
  return WELD_OK;
}

weld_status weld_options_set_strict(weld_options* options, int strict) {
  if (options == nullptr) return WELD_ERROR_ARGUMENT;
  options->compile.strict = strict != 0;
  return WELD_OK;
}

weld_status weld_options_set_format(weld_options* options, weld_format_mode mode) {
  if (options == nullptr || (mode != WELD_FORMAT_ASSERT && mode != WELD_FORMAT_ANNOTATE)) return WELD_ERROR_ARGUMENT;
  options->compile.assert_formats = mode == WELD_FORMAT_ASSERT;
  return WELD_OK;
}

weld_status weld_options_set_resolver(weld_options* options, weld_resolve_fn resolve, void* user_data) {
  if (options == nullptr) return WELD_ERROR_ARGUMENT;
  options->resolve = resolve;
  options->user_data = user_data;
  return WELD_OK;
}

weld_status weld_options_add_resolve_dir(weld_options* options, const char* prefix, const char* dir) {
  if (options == nullptr || prefix == nullptr || dir == nullptr || *prefix == '\0' || *dir == '\0') {
    return WELD_ERROR_ARGUMENT;
  }
  return guarded(nullptr, [&] {
    options->directories.push_back(weld::schema::DirectoryMapping{prefix, dir});
    return WELD_OK;
  });
}

weld_status weld_schema_compile(const char* json, std::size_t length, const weld_options* options,
                                weld_schema** schema, char** message) {
  if (message != nullptr) *message = nullptr;
  if (schema == nullptr) return WELD_ERROR_ARGUMENT;
  *schema = nullptr;
  if (json == nullptr) return fail(WELD_ERROR_ARGUMENT, "schema text is NULL", message);
  return guarded(message, [&] {
    weld::Result<weld::json::Value> document = weld::json::parse(text_of(json, length));
    if (!document) return fail(WELD_ERROR_SCHEMA, not_json("schema", document.error()), message);
    weld::schema::CompileOptions compile;
    if (options != nullptr) {
      compile = options->compile;
      compile.resolver = make_resolver(*options);
    }
    try {
      weld::schema::Schema compiled = weld::schema::Schema::compile(*document, compile);
      std::vector<std::string> warnings;
      for (const weld::schema::Warning& warning : compiled.warnings()) {
        warnings.push_back(warning.message + (warning.pointer.empty() ? "" : " at " + warning.pointer));
      }
      *schema = new weld_schema{std::move(compiled), std::move(warnings)};
      return WELD_OK;
    } catch (const weld::schema::SchemaError& error) {
      return fail(WELD_ERROR_SCHEMA, std::string("schema is not a valid JSON Schema: ") + error.what(), message);
    }
  });
}

void weld_schema_free(weld_schema* schema) { delete schema; }

std::size_t weld_schema_warning_count(const weld_schema* schema) {
  return schema == nullptr ? 0 : schema->warnings.size();
}

const char* weld_schema_warning(const weld_schema* schema, std::size_t index) {
  if (schema == nullptr || index >= schema->warnings.size()) return nullptr;
  return schema->warnings[index].c_str();
}

weld_status weld_validate(const weld_schema* schema, const char* json, std::size_t length, weld_result** result,
                          char** message) {
  if (message != nullptr) *message = nullptr;
  if (result == nullptr) return WELD_ERROR_ARGUMENT;
  *result = nullptr;
  if (schema == nullptr || json == nullptr) return fail(WELD_ERROR_ARGUMENT, "schema or instance is NULL", message);
  return guarded(message, [&] {
    weld::Result<weld::json::Value> instance = weld::json::parse(text_of(json, length));
    if (!instance) return fail(WELD_ERROR_JSON, not_json("instance", instance.error()), message);
    weld::schema::ValidationResult validation = schema->compiled.validate(*instance, weld::schema::Collect::All);
    auto out = std::make_unique<weld_result>();
    out->valid = validation.valid;
    out->errors.reserve(validation.violations.size());
    for (weld::schema::Violation& violation : validation.violations) {
      out->errors.push_back(weld_result::Entry{std::move(violation.instance_path), std::move(violation.schema_path),
                                               std::move(violation.keyword), std::move(violation.message),
                                               weld::json::serialize(violation.params)});
    }
    *result = out.release();
    return WELD_OK;
  });
}

int weld_is_valid(const weld_schema* schema, const char* json, std::size_t length) {
  if (schema == nullptr || json == nullptr) return -1;
  try {
    weld::Result<weld::json::Value> instance = weld::json::parse(text_of(json, length));
    if (!instance) return -1;
    return schema->compiled.is_valid(*instance) ? 1 : 0;
  } catch (...) {
    return -1;
  }
}

int weld_result_valid(const weld_result* result) { return result != nullptr && result->valid ? 1 : 0; }

std::size_t weld_result_error_count(const weld_result* result) {
  return result == nullptr ? 0 : result->errors.size();
}

const char* weld_result_error_instance_path(const weld_result* result, std::size_t index) {
  return error_field(result, index, &weld_result::Entry::instance_path);
}

const char* weld_result_error_schema_path(const weld_result* result, std::size_t index) {
  return error_field(result, index, &weld_result::Entry::schema_path);
}

const char* weld_result_error_keyword(const weld_result* result, std::size_t index) {
  return error_field(result, index, &weld_result::Entry::keyword);
}

const char* weld_result_error_message(const weld_result* result, std::size_t index) {
  return error_field(result, index, &weld_result::Entry::message);
}

const char* weld_result_error_params(const weld_result* result, std::size_t index) {
  return error_field(result, index, &weld_result::Entry::params);
}

void weld_result_free(weld_result* result) { delete result; }

weld_status weld_lower(const char* schema_json, std::size_t length, const char* target, int flags,
                       weld_lowering** lowering, char** message) {
  if (message != nullptr) *message = nullptr;
  if (lowering == nullptr) return WELD_ERROR_ARGUMENT;
  *lowering = nullptr;
  if (schema_json == nullptr || target == nullptr) return fail(WELD_ERROR_ARGUMENT, "schema or target is NULL", message);
  std::optional<weld::schema::Target> chosen = weld::schema::parse_target(target);
  if (!chosen) {
    return fail(WELD_ERROR_ARGUMENT,
                "unknown target \"" + std::string(target) + "\" (expected openai-strict, anthropic, gemini, vllm or tool)",
                message);
  }
  if ((flags & ~WELD_LOWER_KEEP_OPEN) != 0) return fail(WELD_ERROR_ARGUMENT, "unknown flags", message);
  return guarded(message, [&] {
    weld::Result<weld::json::Value> document = weld::json::parse(text_of(schema_json, length));
    if (!document) return fail(WELD_ERROR_SCHEMA, not_json("schema", document.error()), message);
    weld::schema::LowerOptions options;
    options.keep_open = (flags & WELD_LOWER_KEEP_OPEN) != 0;
    try {
      weld::schema::Lowering lowered = weld::schema::Lowering::lower(*document, *chosen, options);
      weld::json::Array changes;
      for (const weld::schema::Change& change : lowered.changes()) changes.push_back(weld::schema::to_json(change));
      std::string schema_text = weld::json::serialize(lowered.schema());
      std::string changes_text = weld::json::serialize(weld::json::Value(std::move(changes)));
      *lowering = new weld_lowering{std::move(lowered), std::move(schema_text), std::move(changes_text)};
      return WELD_OK;
    } catch (const weld::schema::SchemaError& error) {
      return fail(WELD_ERROR_SCHEMA, std::string("schema is not a valid JSON Schema: ") + error.what(), message);
    }
  });
}

const char* weld_lowering_schema(const weld_lowering* lowering) {
  return lowering == nullptr ? nullptr : lowering->schema.c_str();
}

const char* weld_lowering_changes(const weld_lowering* lowering) {
  return lowering == nullptr ? nullptr : lowering->changes.c_str();
}

weld_status weld_lowering_map_back(const weld_lowering* lowering, const char* answer_json, std::size_t length,
                                   char** answer_out, char** message) {
  if (message != nullptr) *message = nullptr;
  if (answer_out == nullptr) return WELD_ERROR_ARGUMENT;
  *answer_out = nullptr;
  if (lowering == nullptr || answer_json == nullptr) return fail(WELD_ERROR_ARGUMENT, "lowering or answer is NULL", message);
  return guarded(message, [&] {
    weld::Result<weld::json::Value> answer = weld::json::parse(text_of(answer_json, length));
    if (!answer) return fail(WELD_ERROR_JSON, not_json("answer", answer.error()), message);
    std::string text = weld::json::serialize(lowering->lowering.map_back(std::move(*answer)));
    *answer_out = copy_message(text);
    return *answer_out == nullptr ? WELD_ERROR_MEMORY : WELD_OK;
  });
}

void weld_lowering_free(weld_lowering* lowering) { delete lowering; }

void weld_free(void* pointer) { std::free(pointer); }

}  // extern "C"
