// Fuzz the C API boundary (include/weld/weld.h, docs/library.md): bytes -> a schema
// text and an instance text (split at the first NUL byte, else the middle)
// -> compile under options drawn from the first byte -> validate through
// both entry points. No exception may escape (it would abort here), every
// status must be one of weld_status, the two entry points must agree, and
// every error field must be a string.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "weld/weld.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  unsigned flags = data[0];
  std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  std::size_t split = text.find('\0');
  if (split == std::string_view::npos) split = text.size() / 2;
  std::string_view schema_text = text.substr(0, split);
  std::string_view instance_text = text.substr(std::min(text.size(), split + 1));

  weld_options* options = weld_options_new();
  weld_options_set_strict(options, flags & 1);
  weld_options_set_format(options, (flags & 2) ? WELD_FORMAT_ANNOTATE : WELD_FORMAT_ASSERT);
  static const weld_dialect kDialects[] = {WELD_DIALECT_DEFAULT, WELD_DIALECT_DRAFT4, WELD_DIALECT_DRAFT6,
                                           WELD_DIALECT_DRAFT7, WELD_DIALECT_2019_09, WELD_DIALECT_2020_12};
  weld_options_set_dialect(options, kDialects[(flags >> 2) % 6]);
  weld_schema* schema = nullptr;
  char* message = nullptr;
  weld_status status = weld_schema_compile(schema_text.data(), schema_text.size(), options, &schema, &message);
  weld_options_free(options);
  if (status != WELD_OK) {
    if (schema != nullptr || (status != WELD_ERROR_SCHEMA && status != WELD_ERROR_MEMORY) || message == nullptr) {
      __builtin_trap();
    }
    weld_free(message);
    return 0;
  }
  for (std::size_t index = 0; index < weld_schema_warning_count(schema); ++index) {
    if (weld_schema_warning(schema, index) == nullptr) __builtin_trap();
  }
  weld_result* result = nullptr;
  status = weld_validate(schema, instance_text.data(), instance_text.size(), &result, &message);
  int fast = weld_is_valid(schema, instance_text.data(), instance_text.size());
  if (status == WELD_OK) {
    int valid = weld_result_valid(result);
    if (fast != valid || (valid == 1) != (weld_result_error_count(result) == 0)) __builtin_trap();
    for (std::size_t index = 0; index < weld_result_error_count(result); ++index) {
      if (weld_result_error_instance_path(result, index) == nullptr || weld_result_error_schema_path(result, index) == nullptr ||
          weld_result_error_keyword(result, index) == nullptr || weld_result_error_message(result, index) == nullptr ||
          weld_result_error_params(result, index) == nullptr) {
        __builtin_trap();
      }
    }
    weld_result_free(result);
  } else {
    if (status != WELD_ERROR_JSON || fast != -1 || result != nullptr) __builtin_trap();
    weld_free(message);
  }
  weld_schema_free(schema);
  return 0;
}
