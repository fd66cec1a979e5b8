/*
 * weld.h: the C API of weld's JSON Schema engine (libweld.so, CMake target
 * weld::c, pkg-config weld-c). For programs in C and for bindings from other
 * languages: compile a schema once, validate many JSON texts, read the
 * errors, free. No C++ exception crosses this interface; every call that can
 * fail returns a weld_status.
 *
 *   weld_schema *schema = NULL;
 *   char *message = NULL;
 *   if (weld_schema_compile("{\"type\":\"integer\"}", WELD_NUL_TERMINATED, NULL, &schema, &message) != WELD_OK) {
 *     fprintf(stderr, "%s\n", message);
 *     weld_free(message);
 *     return 52;
 *   }
 *   weld_result *result = NULL;
 *   if (weld_validate(schema, "\"seven\"", WELD_NUL_TERMINATED, &result, &message) == WELD_OK) {
 *     for (size_t i = 0; i < weld_result_error_count(result); ++i)
 *       printf("%s: %s\n", weld_result_error_instance_path(result, i), weld_result_error_message(result, i));
 *     weld_result_free(result);
 *   }
 *   weld_schema_free(schema);
 *
 * Thread safety: a compiled weld_schema is immutable; weld_validate and
 * weld_is_valid may be called on it from many threads at once. Options and
 * results belong to one thread at a time.
 *
 * ABI: the shared library's soname carries WELD_C_ABI_VERSION
 * (libweld.so.1) and every symbol the version node WELD_1; structures are
 * opaque, so new options are new functions, never a changed layout.
 */
#ifndef WELD_WELD_H
#define WELD_WELD_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The ABI version: the soname's number. */
#define WELD_C_ABI_VERSION 1

/** Pass as a length to mean "NUL-terminated: measure it". */
#define WELD_NUL_TERMINATED ((size_t)-1)

/** What a call did. */
typedef enum weld_status {
  WELD_OK = 0,              /**< success (for weld_validate: the result says valid or not) */
  WELD_ERROR_SCHEMA = 1,    /**< the schema is not valid JSON or not a valid JSON Schema */
  WELD_ERROR_JSON = 2,      /**< the instance text is not valid JSON */
  WELD_ERROR_ARGUMENT = 3,  /**< a NULL or out-of-range argument */
  WELD_ERROR_MEMORY = 4,    /**< out of memory */
  WELD_ERROR_INTERNAL = 5   /**< a bug in weld; the message says what */
} weld_status;

/** The dialect for a schema without "$schema". */
typedef enum weld_dialect {
  WELD_DIALECT_DEFAULT = 0, /**< 2020-12, or draft-07 when the schema uses a draft-07-only form */
  WELD_DIALECT_DRAFT4 = 4,
  WELD_DIALECT_DRAFT6 = 6,
  WELD_DIALECT_DRAFT7 = 7,
  WELD_DIALECT_2019_09 = 2019,
  WELD_DIALECT_2020_12 = 2020,
  WELD_DIALECT_V1 = 1       /**< JSON Schema v1 (https://json-schema.org/v1) */
} weld_dialect;

/** Whether "format" is asserted or only an annotation. */
typedef enum weld_format_mode {
  WELD_FORMAT_ASSERT = 0,   /**< date-time, email, uri, uuid, ... are checked (the default) */
  WELD_FORMAT_ANNOTATE = 1  /**< "format" never fails a validation (each dialect's own default) */
} weld_format_mode;

/** Compile options (opaque). */
typedef struct weld_options weld_options;
/** A compiled schema (opaque, immutable). */
typedef struct weld_schema weld_schema;
/** The outcome of one validation (opaque). */
typedef struct weld_result weld_result;

/**
 * Answers a "$ref" to a document outside the schema. Returns the JSON text
 * of the document for `uri` (NUL-terminated, or with its length in
 * *length), or NULL when it does not know the URI (compilation then fails
 * naming it). The text must stay valid until the callback is called again
 * or weld_schema_compile returns; weld copies it.
 */
typedef const char *(*weld_resolve_fn)(void *user_data, const char *uri, size_t *length);

/** The library's version, e.g. "0.1.0". */
const char *weld_version(void);

/** New options: strict, format asserted, default dialect, no resolver. NULL when out of memory. */
weld_options *weld_options_new(void);
/** Frees options (NULL is allowed). A compiled schema does not need them. */
void weld_options_free(weld_options *options);
/** The dialect of schemas without "$schema"; WELD_ERROR_ARGUMENT for an unknown value. */
weld_status weld_options_set_dialect(weld_options *options, weld_dialect dialect);
/** Non-zero (the default): refuse unknown keywords and other likely mistakes (Ajv's strictSchema). */
weld_status weld_options_set_strict(weld_options *options, int strict);
/** Assert "format" (the default) or treat it as an annotation. */
weld_status weld_options_set_format(weld_options *options, weld_format_mode mode);
/** Remote "$ref"s are asked of `resolve` (after the folders of weld_options_add_resolve_dir). */
weld_status weld_options_set_resolver(weld_options *options, weld_resolve_fn resolve, void *user_data);
/** Documents under `dir` answer for URIs under `prefix`, e.g. ("http://localhost:1234/", "remotes"). */
weld_status weld_options_add_resolve_dir(weld_options *options, const char *prefix, const char *dir);

/**
 * Compiles the JSON text of a schema (any JSON Schema: an object, true or
 * false). `options` may be NULL (the defaults). On success *schema is set;
 * otherwise *schema is NULL and, when `message` is not NULL, *message is a
 * NUL-terminated description naming the keyword and its JSON Pointer, to
 * free with weld_free.
 */
weld_status weld_schema_compile(const char *json, size_t length, const weld_options *options, weld_schema **schema,
                                char **message);
/** Frees a compiled schema (NULL is allowed). */
void weld_schema_free(weld_schema *schema);
/** Compile warnings (an unknown format, a tuple without bounds...): their count. */
size_t weld_schema_warning_count(const weld_schema *schema);
/** Warning `index` as text ("... at /pointer"); NULL when out of range. Valid until weld_schema_free. */
const char *weld_schema_warning(const weld_schema *schema, size_t index);

/**
 * Validates a JSON text. WELD_OK: *result holds the verdict and every
 * error, to free with weld_result_free. WELD_ERROR_JSON: the text is not
 * JSON; *message (when `message` is not NULL) says where.
 */
weld_status weld_validate(const weld_schema *schema, const char *json, size_t length, weld_result **result,
                          char **message);
/** The verdict alone, the fastest path: 1 valid, 0 invalid, -1 not JSON (or a NULL argument). */
int weld_is_valid(const weld_schema *schema, const char *json, size_t length);

/** 1 when the instance is valid, 0 otherwise. */
int weld_result_valid(const weld_result *result);
/** How many errors (0 when valid). */
size_t weld_result_error_count(const weld_result *result);
/** JSON Pointer into the instance, e.g. "/risk_level" ("" for the root). */
const char *weld_result_error_instance_path(const weld_result *result, size_t index);
/** The schema location, e.g. "#/properties/risk_level/enum". */
const char *weld_result_error_schema_path(const weld_result *result, size_t index);
/** The keyword that failed, e.g. "enum". */
const char *weld_result_error_keyword(const weld_result *result, size_t index);
/** The message, e.g. "must be equal to one of the allowed values". */
const char *weld_result_error_message(const weld_result *result, size_t index);
/** The keyword's parameters as JSON text, e.g. {"allowedValues":["low","high"]}. */
const char *weld_result_error_params(const weld_result *result, size_t index);
/* The error accessors return NULL for an index out of range; their strings live until weld_result_free. */
/** Frees a result (NULL is allowed). */
void weld_result_free(weld_result *result);

/**
 * A schema lowered for a provider's own structured output (opaque): the
 * strongest schema the target accepts, what was changed and why, and the
 * way back from an answer to it to the original's shape. Validate the
 * mapped-back answer against the original schema (weld_validate).
 *
 *   weld_lowering *lowering = NULL;
 *   if (weld_lower(schema_text, WELD_NUL_TERMINATED, "openai-strict", 0, &lowering, &message) == WELD_OK) {
 *     send(weld_lowering_schema(lowering));
 *     char *answer = NULL;
 *     weld_lowering_map_back(lowering, reply, WELD_NUL_TERMINATED, &answer, &message);
 *     ...weld_validate(original, answer, ...); weld_free(answer);
 *     weld_lowering_free(lowering);
 *   }
 */
typedef struct weld_lowering weld_lowering;

/** Lowering options (flags for weld_lower). */
#define WELD_LOWER_KEEP_OPEN 1 /**< properties beyond `properties` get a member of their own instead of being closed */

/**
 * Lowers a schema's JSON text for `target`: "openai-strict", "anthropic",
 * "gemini", "vllm" or "tool" (WELD_ERROR_ARGUMENT for another). `flags`:
 * 0 or WELD_LOWER_KEEP_OPEN. WELD_ERROR_SCHEMA when the schema is not JSON or
 * does not compile.
 */
weld_status weld_lower(const char *schema_json, size_t length, const char *target, int flags, weld_lowering **lowering,
                       char **message);
/** The lowered schema as JSON text (valid until weld_lowering_free). */
const char *weld_lowering_schema(const weld_lowering *lowering);
/** What was changed, as a JSON array of {"pointer","change","reason"} (valid until weld_lowering_free). */
const char *weld_lowering_changes(const weld_lowering *lowering);
/**
 * An answer to the lowered schema (JSON text) in the original's shape:
 * *answer_out is JSON text to free with weld_free. WELD_ERROR_JSON when the
 * answer is not JSON.
 */
weld_status weld_lowering_map_back(const weld_lowering *lowering, const char *answer_json, size_t length,
                                   char **answer_out, char **message);
/** Frees a lowering (NULL is allowed). */
void weld_lowering_free(weld_lowering *lowering);

/** Frees a message returned by weld (NULL is allowed). */
void weld_free(void *pointer);

#ifdef __cplusplus
}
#endif

#endif /* WELD_WELD_H */
