/* The C API called from C (compiled as C11, linked with libweld.so only):
 * compile with each option, validate, read every error field, resolve
 * $refs through a callback and a folder, and the failures a binding must
 * see as statuses, never as a crash. Prints "N passed, N failed". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weld/weld.h"

static int passed = 0;
static int failed = 0;

#define CHECK(condition)                                            \
  do {                                                              \
    if (condition) {                                                \
      ++passed;                                                     \
    } else {                                                        \
      ++failed;                                                     \
      fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__, #condition); \
    }                                                               \
  } while (0)

static int same(const char *a, const char *b) { return a != NULL && b != NULL && strcmp(a, b) == 0; }

static weld_schema *compile(const char *text, const weld_options *options) {
  weld_schema *schema = NULL;
  char *message = NULL;
  weld_status status = weld_schema_compile(text, WELD_NUL_TERMINATED, options, &schema, &message);
  if (status != WELD_OK) fprintf(stderr, "compile failed (%d): %s\n", (int)status, message ? message : "");
  weld_free(message);
  return schema;
}

static void errors_carry_every_field(void) {
  weld_schema *schema =
      compile("{\"type\":\"object\",\"properties\":{\"risk_level\":{\"enum\":[\"low\",\"high\"]}},"
              "\"required\":[\"summary\"]}",
              NULL);
  CHECK(schema != NULL);
  if (schema == NULL) return;
  weld_result *result = NULL;
  char *message = NULL;
  CHECK(weld_validate(schema, "{\"risk_level\":\"medium\"}", WELD_NUL_TERMINATED, &result, &message) == WELD_OK);
  CHECK(message == NULL);
  CHECK(weld_result_valid(result) == 0);
  CHECK(weld_result_error_count(result) == 2);
  size_t enum_index = same(weld_result_error_keyword(result, 0), "enum") ? 0 : 1;
  size_t required_index = 1 - enum_index;
  CHECK(same(weld_result_error_keyword(result, enum_index), "enum"));
  CHECK(same(weld_result_error_instance_path(result, enum_index), "/risk_level"));
  CHECK(same(weld_result_error_schema_path(result, enum_index), "#/properties/risk_level/enum"));
  CHECK(same(weld_result_error_message(result, enum_index), "must be equal to one of the allowed values"));
  CHECK(same(weld_result_error_params(result, enum_index), "{\"allowedValues\":[\"low\",\"high\"]}"));
  CHECK(same(weld_result_error_keyword(result, required_index), "required"));
  CHECK(same(weld_result_error_instance_path(result, required_index), ""));
  CHECK(same(weld_result_error_message(result, required_index), "must have required property 'summary'"));
  CHECK(weld_result_error_keyword(result, 2) == NULL);
  weld_result_free(result);

  result = NULL;
  const char valid[] = "{\"summary\":\"ok\",\"risk_level\":\"low\"} trailing bytes not read";
  CHECK(weld_validate(schema, valid, 35, &result, NULL) == WELD_OK);
  CHECK(weld_result_valid(result) == 1);
  CHECK(weld_result_error_count(result) == 0);
  weld_result_free(result);
  CHECK(weld_is_valid(schema, valid, 35) == 1);
  CHECK(weld_is_valid(schema, "{}", WELD_NUL_TERMINATED) == 0);
  weld_schema_free(schema);
}

static void bad_input_is_a_status(void) {
  weld_schema *schema = NULL;
  char *message = NULL;
  CHECK(weld_schema_compile("{\"type\":", WELD_NUL_TERMINATED, NULL, &schema, &message) == WELD_ERROR_SCHEMA);
  CHECK(schema == NULL);
  CHECK(message != NULL && strncmp(message, "schema is not valid JSON: ", 26) == 0);
  weld_free(message);

  message = NULL;
  CHECK(weld_schema_compile("{\"type\":42}", WELD_NUL_TERMINATED, NULL, &schema, &message) == WELD_ERROR_SCHEMA);
  CHECK(message != NULL && strstr(message, "/type") != NULL);
  weld_free(message);

  message = NULL;
  CHECK(weld_schema_compile("{\"propertees\":{}}", WELD_NUL_TERMINATED, NULL, &schema, &message) == WELD_ERROR_SCHEMA);
  CHECK(message != NULL && strstr(message, "propertees") != NULL);
  weld_free(message);

  schema = compile("true", NULL);
  CHECK(schema != NULL);
  weld_result *result = NULL;
  message = NULL;
  CHECK(weld_validate(schema, "[1,", WELD_NUL_TERMINATED, &result, &message) == WELD_ERROR_JSON);
  CHECK(result == NULL);
  CHECK(message != NULL && strncmp(message, "instance is not valid JSON: ", 28) == 0);
  weld_free(message);
  CHECK(weld_is_valid(schema, "nope", WELD_NUL_TERMINATED) == -1);
  CHECK(weld_is_valid(NULL, "1", WELD_NUL_TERMINATED) == -1);
  CHECK(weld_validate(schema, NULL, 0, &result, NULL) == WELD_ERROR_ARGUMENT);
  CHECK(weld_validate(schema, "1", 1, NULL, NULL) == WELD_ERROR_ARGUMENT);
  CHECK(weld_schema_compile("true", 4, NULL, NULL, NULL) == WELD_ERROR_ARGUMENT);
  CHECK(weld_options_set_dialect(NULL, WELD_DIALECT_DRAFT7) == WELD_ERROR_ARGUMENT);
  weld_schema_free(schema);
  weld_schema_free(NULL);
  weld_result_free(NULL);
  weld_options_free(NULL);
}

static void options_change_what_validates(void) {
  weld_options *options = weld_options_new();
  CHECK(options != NULL);
  /* Strict off: an unknown keyword compiles. */
  CHECK(weld_options_set_strict(options, 0) == WELD_OK);
  weld_schema *lenient = compile("{\"propertees\":{}}", options);
  CHECK(lenient != NULL);
  weld_schema_free(lenient);

  /* Format asserted by default, an annotation on request. */
  weld_schema *asserted = compile("{\"format\":\"email\"}", NULL);
  CHECK(weld_is_valid(asserted, "\"not an address\"", WELD_NUL_TERMINATED) == 0);
  weld_schema_free(asserted);
  CHECK(weld_options_set_format(options, WELD_FORMAT_ANNOTATE) == WELD_OK);
  weld_schema *annotated = compile("{\"format\":\"email\"}", options);
  CHECK(weld_is_valid(annotated, "\"not an address\"", WELD_NUL_TERMINATED) == 1);
  weld_schema_free(annotated);
  CHECK(weld_options_set_format(options, (weld_format_mode)7) == WELD_ERROR_ARGUMENT);

  /* Dialect: draft-04's exclusiveMaximum is a boolean beside maximum. */
  CHECK(weld_options_set_dialect(options, WELD_DIALECT_DRAFT4) == WELD_OK);
  weld_schema *draft4 = compile("{\"maximum\":3,\"exclusiveMaximum\":true}", options);
  CHECK(draft4 != NULL);
  CHECK(weld_is_valid(draft4, "3", WELD_NUL_TERMINATED) == 0);
  CHECK(weld_is_valid(draft4, "2", WELD_NUL_TERMINATED) == 1);
  weld_schema_free(draft4);
  CHECK(weld_options_set_dialect(options, (weld_dialect)5) == WELD_ERROR_ARGUMENT);
  weld_options_free(options);
}

static int resolver_calls = 0;

static const char *resolve_positive(void *user_data, const char *uri, size_t *length) {
  ++resolver_calls;
  if (strcmp(uri, "https://example.com/positive.json") != 0) return NULL;
  *length = strlen((const char *)user_data);
  return (const char *)user_data;
}

static void refs_resolve_through_callback_and_folder(void) {
  const char *document = "{\"type\":\"integer\",\"minimum\":1}";
  const char *schema_text = "{\"$ref\":\"https://example.com/positive.json\"}";
  weld_schema *schema = NULL;
  char *message = NULL;
  /* No resolver: the compile error names the URI. */
  CHECK(weld_schema_compile(schema_text, WELD_NUL_TERMINATED, NULL, &schema, &message) == WELD_ERROR_SCHEMA);
  CHECK(message != NULL && strstr(message, "https://example.com/positive.json") != NULL);
  weld_free(message);

  weld_options *options = weld_options_new();
  CHECK(weld_options_set_resolver(options, resolve_positive, (void *)document) == WELD_OK);
  schema = compile(schema_text, options);
  CHECK(schema != NULL);
  CHECK(resolver_calls >= 1);
  CHECK(weld_is_valid(schema, "5", WELD_NUL_TERMINATED) == 1);
  CHECK(weld_is_valid(schema, "0", WELD_NUL_TERMINATED) == 0);
  weld_schema_free(schema);
  weld_options_free(options);

  /* A folder: the official suite's remotes, as http://localhost:1234/. */
  options = weld_options_new();
  CHECK(weld_options_add_resolve_dir(options, "http://localhost:1234/",
                                     WELD_TEST_SUITE_DIR "/remotes") == WELD_OK);
  CHECK(weld_options_add_resolve_dir(options, "", "x") == WELD_ERROR_ARGUMENT);
  schema = compile("{\"$ref\":\"http://localhost:1234/integer.json\"}", options);
  CHECK(schema != NULL);
  CHECK(weld_is_valid(schema, "1", WELD_NUL_TERMINATED) == 1);
  CHECK(weld_is_valid(schema, "\"a\"", WELD_NUL_TERMINATED) == 0);
  weld_schema_free(schema);
  weld_options_free(options);
}

/* A resolver that makes up a new document for every URI, each referring to
 * the next: the compile must stop at the caps (number of documents, total
 * size) with a message, not run until memory runs out. user_data: the
 * padding of each document in bytes. */
static int chain_calls = 0;
static char chain_document[(2 << 20) + 256];

static const char *resolve_chain(void *user_data, const char *uri, size_t *length) {
  size_t padding = *(const size_t *)user_data;
  ++chain_calls;
  int next = atoi(strrchr(uri, '/') + 1) + 1;
  int written = snprintf(chain_document, 200, "{\"$ref\":\"https://example.com/chain/%d\",\"$comment\":\"", next);
  memset(chain_document + written, 'x', padding);
  memcpy(chain_document + written + padding, "\"}", 3);
  *length = (size_t)written + padding + 2;
  return chain_document;
}

static void resolved_documents_are_capped(void) {
  size_t padding = 0;
  weld_options *options = weld_options_new();
  CHECK(weld_options_set_resolver(options, resolve_chain, &padding) == WELD_OK);
  weld_schema *schema = NULL;
  char *message = NULL;
  chain_calls = 0;
  CHECK(weld_schema_compile("{\"$ref\":\"https://example.com/chain/0\"}", WELD_NUL_TERMINATED, options, &schema,
                            &message) == WELD_ERROR_SCHEMA);
  CHECK(schema == NULL);
  CHECK(message != NULL && strstr(message, "more than 1000 remote documents referenced (the limit)") != NULL);
  CHECK(chain_calls == 1000);
  weld_free(message);

  /* 2 MiB each: the 64 MiB total stops it first. */
  padding = 2 << 20;
  chain_calls = 0;
  message = NULL;
  CHECK(weld_schema_compile("{\"$ref\":\"https://example.com/chain/0\"}", WELD_NUL_TERMINATED, options, &schema,
                            &message) == WELD_ERROR_SCHEMA);
  CHECK(message != NULL && strstr(message, "remote documents referenced exceed 67108864 bytes in total") != NULL);
  CHECK(chain_calls == 32);
  weld_free(message);
  weld_options_free(options);
}

static void lowering_and_mapping_back(void) {
  const char *schema_text =
      "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\",\"minLength\":1},"
      "\"age\":{\"type\":\"integer\"}},\"required\":[\"name\"]}";
  weld_lowering *lowering = NULL;
  char *message = NULL;
  CHECK(weld_lower(schema_text, WELD_NUL_TERMINATED, "openai-strict", 0, &lowering, &message) == WELD_OK);
  CHECK(message == NULL);
  CHECK(same(weld_lowering_schema(lowering),
             "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\",\"description\":\"(minLength: 1)\"},"
             "\"age\":{\"type\":[\"integer\",\"null\"]}},\"required\":[\"name\",\"age\"],\"additionalProperties\":false}"));
  CHECK(strstr(weld_lowering_changes(lowering), "\"optional property made required and nullable\"") != NULL);
  char *answer = NULL;
  CHECK(weld_lowering_map_back(lowering, "{\"name\":\"Ann\",\"age\":null}", WELD_NUL_TERMINATED, &answer, &message) == WELD_OK);
  CHECK(same(answer, "{\"name\":\"Ann\"}"));
  weld_free(answer);
  CHECK(weld_lowering_map_back(lowering, "{oops", WELD_NUL_TERMINATED, &answer, &message) == WELD_ERROR_JSON);
  CHECK(answer == NULL && message != NULL && strncmp(message, "answer is not valid JSON: ", 26) == 0);
  weld_free(message);
  weld_lowering_free(lowering);

  message = NULL;
  CHECK(weld_lower(schema_text, WELD_NUL_TERMINATED, "openai", 0, &lowering, &message) == WELD_ERROR_ARGUMENT);
  CHECK(lowering == NULL && message != NULL && strstr(message, "expected openai-strict") != NULL);
  weld_free(message);
  message = NULL;
  CHECK(weld_lower("{\"type\":42}", WELD_NUL_TERMINATED, "gemini", 0, &lowering, &message) == WELD_ERROR_SCHEMA);
  weld_free(message);
  CHECK(weld_lower(schema_text, WELD_NUL_TERMINATED, "vllm", WELD_LOWER_KEEP_OPEN, &lowering, NULL) == WELD_OK);
  CHECK(weld_lowering_schema(lowering) != NULL);
  weld_lowering_free(lowering);
  weld_lowering_free(NULL);
}

static void version_is_the_package_version(void) {
  CHECK(weld_version() != NULL && strchr(weld_version(), '.') != NULL);
  CHECK(WELD_C_ABI_VERSION == 1);
}

int main(void) {
  errors_carry_every_field();
  bad_input_is_a_status();
  options_change_what_validates();
  refs_resolve_through_callback_and_folder();
  resolved_documents_are_capped();
  lowering_and_mapping_back();
  version_is_the_package_version();
  printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
