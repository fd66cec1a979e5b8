#include "fields.h"

#include "weld/json/parse.h"
#include "weld/json/serialize.h"
#include "weld/json/utf8.h"

namespace weld::provider::fields {

const std::string* string_member(const json::Value* object, std::string_view key) {
  if (object == nullptr || !object->is_object()) return nullptr;
  const json::Value* v = object->find(key);
  return v != nullptr && v->is_string() ? &v->as_string() : nullptr;
}

const json::Value* object_member(const json::Value* object, std::string_view key) {
  if (object == nullptr || !object->is_object()) return nullptr;
  const json::Value* v = object->find(key);
  return v != nullptr && v->is_object() ? v : nullptr;
}

const json::Array* array_member(const json::Value* object, std::string_view key) {
  if (object == nullptr || !object->is_object()) return nullptr;
  const json::Value* v = object->find(key);
  return v != nullptr && v->is_array() ? &v->as_array() : nullptr;
}

std::optional<std::int64_t> integer_member(const json::Value* object, std::string_view key) {
  if (object == nullptr || !object->is_object()) return std::nullopt;
  const json::Value* v = object->find(key);
  if (v == nullptr || !v->is_number()) return std::nullopt;
  if (v->is_integer()) return v->as_integer();
  double real = v->as_real();
  if (!(real >= -9.0e18 && real <= 9.0e18)) return std::nullopt;
  return static_cast<std::int64_t>(real);
}

std::string preview(std::string_view text) {
  if (text.size() <= 120) return std::string(text);
  return std::string(json::utf8_prefix(text, 120)) + "…";
}

std::string arguments_to_send(const std::string& arguments) {
  if (arguments.empty() || !json::parse(arguments)) return "{}";
  return arguments;
}

json::Value schema_to_send(const json::Value& schema) {
  if (schema.is_bool()) return json::Object{};
  return schema;
}

std::string arguments_text(const json::Value* arguments) {
  if (arguments == nullptr || arguments->is_null()) return {};
  if (arguments->is_string()) return arguments->as_string();
  return json::serialize(*arguments);
}

}  // namespace weld::provider::fields
