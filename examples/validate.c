/* Example for docs/library.md: weld's C API (weld/weld.h, libweld.so).
 * Compiles SCHEMA once, validates each INSTANCE (JSON text), prints every
 * error with its instance path. Exit 0 all valid, 1 some invalid, 52 the
 * schema does not compile.
 *
 *   ./validate_c '{"type":"object","required":["ok"]}' '{"ok":true}' '{}'
 */
#include <stdio.h>

#include "weld/weld.h"

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: validate_c SCHEMA INSTANCE...\n");
    return 1;
  }
  weld_options *options = weld_options_new();
  weld_options_set_format(options, WELD_FORMAT_ASSERT); /* the default; WELD_FORMAT_ANNOTATE to skip formats */
  weld_schema *schema = NULL;
  char *message = NULL;
  weld_status status = weld_schema_compile(argv[1], WELD_NUL_TERMINATED, options, &schema, &message);
  weld_options_free(options);
  if (status != WELD_OK) {
    fprintf(stderr, "%s\n", message);
    weld_free(message);
    return 52;
  }
  int invalid = 0;
  for (int i = 2; i < argc; ++i) {
    weld_result *result = NULL;
    if (weld_validate(schema, argv[i], WELD_NUL_TERMINATED, &result, &message) != WELD_OK) {
      printf("%d: %s\n", i - 1, message);
      weld_free(message);
      ++invalid;
      continue;
    }
    if (weld_result_valid(result)) {
      printf("%d: valid\n", i - 1);
    } else {
      ++invalid;
      for (size_t e = 0; e < weld_result_error_count(result); ++e) {
        printf("%d: %s %s (%s)\n", i - 1, weld_result_error_instance_path(result, e)[0] ? weld_result_error_instance_path(result, e) : "/",
               weld_result_error_message(result, e), weld_result_error_keyword(result, e));
      }
    }
    weld_result_free(result);
  }
  weld_schema_free(schema);
  return invalid == 0 ? 0 : 1;
}
