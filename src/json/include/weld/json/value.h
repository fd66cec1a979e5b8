#pragma once
/// \file
/// `weld::json::Value`: an in-memory JSON document that keeps object keys in
/// the order they were written (the model's key order is part of weld's
/// output contract, docs/run.md "Output formats") and tells integers from reals (`1` vs `1.0`).

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace weld::json {

class Value;
struct Member;

/// A JSON array.
using Array = std::vector<Value>;
/// A JSON object: members in insertion order. Keys are unique when built by
/// `parse()` (a repeated key keeps its first position and its last value,
/// like `JSON.parse`).
using Object = std::vector<Member>;

/// The JSON type of a `Value`. `Integer` is a number written without fraction
/// or exponent that fits in int64; every other number is `Real`.
enum class Type : std::uint8_t { Null, Boolean, Integer, Real, String, Array, Object };

/// An integer literal beyond int64 ("18446744073709551615"), kept as its
/// digits so that writing it back changes nothing (a double would round it).
/// Its `Value` is a `Real` whose `as_real()` is the nearest double.
struct BigInteger {
  /// The literal as written: an optional '-', then digits (no leading zero).
  std::string digits;
};

/// Name of a type as JSON Schema spells it ("integer" and "number" for the
/// two number kinds).
std::string_view type_name(Type type);

/// A JSON value. Cheap to move; copying is a deep copy.
///
/// \code
///   weld::json::Value v = weld::json::Object{{"a", 1}, {"b", "x"}};
///   if (const auto* a = v.find("a")) std::int64_t n = a->as_integer();
/// \endcode
class Value {
 public:
  /// null
  Value();
  Value(std::nullptr_t);          // NOLINT: implicit by design, like JSON literals
  Value(bool b);                  // NOLINT
  Value(int i);                   // NOLINT
  Value(std::int64_t i);          // NOLINT
  Value(double d);                // NOLINT
  Value(const char* s);           // NOLINT
  Value(std::string_view s);      // NOLINT
  Value(std::string s);           // NOLINT
  Value(Array a);                 // NOLINT
  Value(Object o);                // NOLINT
  Value(BigInteger b);            // NOLINT

  /// The JSON type.
  Type type() const { return kTypeOfIndex[data_.index()]; }
  bool is_null() const { return type() == Type::Null; }
  bool is_bool() const { return type() == Type::Boolean; }
  bool is_integer() const { return type() == Type::Integer; }
  bool is_real() const { return type() == Type::Real; }
  /// Integer or Real.
  bool is_number() const { return type() == Type::Integer || type() == Type::Real; }
  bool is_string() const { return type() == Type::String; }
  bool is_array() const { return type() == Type::Array; }
  bool is_object() const { return type() == Type::Object; }

  /// Accessors; calling the wrong one is a programming error (throws
  /// std::bad_variant_access).
  bool as_bool() const { return std::get<bool>(data_); }
  std::int64_t as_integer() const { return std::get<std::int64_t>(data_); }
  double as_real() const {
    if (const double* d = std::get_if<double>(&data_)) return *d;
    return big_integer_value();
  }
  /// The digits of a Real read from an integer literal beyond int64
  /// (BigInteger); nullptr for every other value.
  const std::string* big_integer_digits() const {
    const auto* big = std::get_if<BigInteger>(&data_);
    return big != nullptr ? &big->digits : nullptr;
  }
  /// Either number kind as a double.
  double as_double() const {
    return is_integer() ? static_cast<double>(as_integer()) : as_real();
  }
  const std::string& as_string() const { return std::get<std::string>(data_); }
  std::string& as_string() { return std::get<std::string>(data_); }
  const Array& as_array() const;
  Array& as_array();
  const Object& as_object() const;
  Object& as_object();

  /// Member lookup by key; nullptr when not an object or absent.
  const Value* find(std::string_view key) const;
  Value* find(std::string_view key);

  /// Sets `key` to `value` (replacing in place, or appending). Requires an
  /// object (a null becomes an empty object first).
  Value& set(std::string_view key, Value value);
  /// Removes `key` if present; returns whether it was.
  bool erase(std::string_view key);

  /// Appends to an array (a null becomes an empty array first).
  Value& push_back(Value value);

  /// Number of elements or members; 0 for scalars.
  std::size_t size() const;

  /// JSON equality as JSON Schema defines it: numbers compare by value
  /// (1 == 1.0), objects ignore member order.
  friend bool operator==(const Value& a, const Value& b);

 private:
  double big_integer_value() const;

  std::variant<std::monostate, bool, std::int64_t, double, std::string, Array, Object, BigInteger> data_;
  static constexpr Type kTypeOfIndex[] = {Type::Null,   Type::Boolean, Type::Integer, Type::Real,
                                          Type::String, Type::Array,   Type::Object,  Type::Real};
};

/// One object member.
struct Member {
  std::string key;
  Value value;
};

// Defined here, where Member is complete: constructing the variant needs
// every alternative's destructor (clang checks this eagerly).
inline Value::Value() = default;
inline Value::Value(std::nullptr_t) {}
inline Value::Value(bool b) : data_(b) {}
inline Value::Value(int i) : data_(std::int64_t{i}) {}
inline Value::Value(std::int64_t i) : data_(i) {}
inline Value::Value(double d) : data_(d) {}
inline Value::Value(const char* s) : data_(std::string(s)) {}
inline Value::Value(std::string_view s) : data_(std::string(s)) {}
inline Value::Value(std::string s) : data_(std::move(s)) {}
inline Value::Value(Array a) : data_(std::move(a)) {}
inline Value::Value(Object o) : data_(std::move(o)) {}
inline Value::Value(BigInteger b) : data_(std::move(b)) {}
inline const Array& Value::as_array() const { return std::get<Array>(data_); }
inline Array& Value::as_array() { return std::get<Array>(data_); }
inline const Object& Value::as_object() const { return std::get<Object>(data_); }
inline Object& Value::as_object() { return std::get<Object>(data_); }

}  // namespace weld::json
