#include "weld/json/value.h"

#include "weld/json/number.h"

#include <algorithm>
#include <charconv>

namespace weld::json {

std::string_view type_name(Type type) {
  switch (type) {
    case Type::Null: return "null";
    case Type::Boolean: return "boolean";
    case Type::Integer: return "integer";
    case Type::Real: return "number";
    case Type::String: return "string";
    case Type::Array: return "array";
    case Type::Object: return "object";
  }
  return "unknown";
}

double Value::big_integer_value() const {
  const std::string& digits = std::get<BigInteger>(data_).digits;
  double d = 0;
  std::from_chars(digits.data(), digits.data() + digits.size(), d);  // parse() checked the range
  return d;
}

const Value* Value::find(std::string_view key) const {
  const auto* object = std::get_if<Object>(&data_);
  if (object == nullptr) return nullptr;
  for (const Member& member : *object) {
    if (member.key == key) return &member.value;
  }
  return nullptr;
}

Value* Value::find(std::string_view key) {
  return const_cast<Value*>(static_cast<const Value&>(*this).find(key));
}

Value& Value::set(std::string_view key, Value value) {
  if (is_null()) data_ = Object{};
  Object& object = as_object();
  for (Member& member : object) {
    if (member.key == key) {
      member.value = std::move(value);
      return member.value;
    }
  }
  object.push_back(Member{std::string(key), std::move(value)});
  return object.back().value;
}

bool Value::erase(std::string_view key) {
  auto* object = std::get_if<Object>(&data_);
  if (object == nullptr) return false;
  auto it = std::find_if(object->begin(), object->end(),
                         [&](const Member& member) { return member.key == key; });
  if (it == object->end()) return false;
  object->erase(it);
  return true;
}

Value& Value::push_back(Value value) {
  if (is_null()) data_ = Array{};
  Array& array = as_array();
  array.push_back(std::move(value));
  return array.back();
}

std::size_t Value::size() const {
  if (const auto* array = std::get_if<Array>(&data_)) return array->size();
  if (const auto* object = std::get_if<Object>(&data_)) return object->size();
  return 0;
}

bool operator==(const Value& a, const Value& b) {
  if (a.is_number() && b.is_number()) {
    if (a.is_integer() && b.is_integer()) return a.as_integer() == b.as_integer();
    if (a.is_real() && b.is_real() && a.big_integer_digits() == nullptr && b.big_integer_digits() == nullptr) {
      return a.as_real() == b.as_real();
    }
    // Exactly (number.h): through doubles, 2^63 would equal 2^63 + 1, and
    // the int64 2^53 + 1 the double 2^53.
    return compare_numbers(a, b) == 0;
  }
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case Type::Null: return true;
    case Type::Boolean: return a.as_bool() == b.as_bool();
    case Type::String: return a.as_string() == b.as_string();
    case Type::Array: return a.as_array() == b.as_array();
    case Type::Object: {
      const Object& left = a.as_object();
      const Object& right = b.as_object();
      if (left.size() != right.size()) return false;
      for (const Member& member : left) {
        const Value* other = b.find(member.key);
        if (other == nullptr || !(*other == member.value)) return false;
      }
      return true;
    }
    default: return false;
  }
}

}  // namespace weld::json
