#pragma once
/// \file
/// How the evaluator reads an instance: a json::Value (ValueAccess) or a
/// json::Tape (TapeAccess). The evaluator is a template over these, so the
/// Value path compiles to the code it had before the Tape existed, and a
/// Tape is read in place (its strings borrowed from whoever built it: the
/// Python module, which then converts nothing).
///
/// Each access has a `Ref` (a cheap handle on one value) and reads it with
/// static functions: type, boolean/integer/real/big_integer/string, count
/// (elements or members), items/members cursors, find, number (as a
/// json::Value, for the exact number helpers), equal (JSON equality),
/// identity (the work bound's memo key), and `Key` (a string that is not
/// part of the instance, for propertyNames).

#include <cstring>
#include <string_view>

#include "weld/json/tape.h"
#include "weld/json/value.h"

namespace weld::schema {

struct ValueAccess {
  using Ref = const json::Value*;

  static json::Type type(Ref v) { return v->type(); }
  static bool boolean(Ref v) { return v->as_bool(); }
  static std::int64_t integer(Ref v) { return v->as_integer(); }
  /// A Real (a big integer's nearest double too).
  static double real(Ref v) { return v->as_real(); }
  /// A Real written as an integer beyond int64 (json::BigInteger).
  static bool big_integer(Ref v) { return v->big_integer_digits() != nullptr; }
  /// The value's identity (the work bound's memo key).
  static const void* identity(Ref v) { return v; }
  static std::string_view string(Ref v) { return v->as_string(); }
  /// Elements of an array or members of an object.
  static std::size_t count(Ref v) { return v->size(); }

  struct Items {
    const json::Value* at;
    const json::Value* end;
  };
  static Items items(Ref v) {
    const json::Array& array = v->as_array();
    return Items{array.data(), array.data() + array.size()};
  }
  static bool next(Items& items, Ref& item) {
    if (items.at == items.end) return false;
    item = items.at++;
    return true;
  }

  struct Members {
    const json::Member* at;
    const json::Member* end;
  };
  static Members members(Ref v) {
    const json::Object& object = v->as_object();
    return Members{object.data(), object.data() + object.size()};
  }
  static bool next(Members& members, std::string_view& key, Ref& value) {
    if (members.at == members.end) return false;
    key = members.at->key;
    value = &members.at->value;
    ++members.at;
    return true;
  }
  static Ref find(Ref v, std::string_view key) { return v->find(key); }

  /// A number as a json::Value (for number.h).
  static const json::Value& number(Ref v) { return *v; }
  static bool equal(const json::Value& a, Ref b) { return a == *b; }
  static bool equal(Ref a, Ref b) { return *a == *b; }

  /// A string outside the instance (a property name) as a Ref.
  class Key {
   public:
    explicit Key(std::string_view key) : value_(key) {}
    Ref ref() const { return &value_; }

   private:
    json::Value value_;
  };
};

struct TapeAccess {
  using Ref = const json::TapeEntry*;

  static json::Type type(Ref v) { return v->type; }
  static bool boolean(Ref v) { return v->boolean; }
  static std::int64_t integer(Ref v) { return v->integer; }
  static double real(Ref v) { return v->real; }
  static bool big_integer(Ref v) { return v->big_integer; }
  static const void* identity(Ref v) { return v; }
  static std::string_view string(Ref v) { return v->text_view(); }
  static std::size_t count(Ref v) { return v->size; }

  struct Items {
    Ref at;
    std::uint32_t left;
  };
  static Items items(Ref v) { return Items{v + 1, v->size}; }
  static bool next(Items& items, Ref& item) {
    if (items.left == 0) return false;
    item = items.at;
    items.at += items.at->span;
    --items.left;
    return true;
  }
  using Members = Items;
  static Members members(Ref v) { return Items{v + 1, v->size}; }
  static bool next(Members& members, std::string_view& key, Ref& value) {
    if (!next(members, value)) return false;
    key = value->key_view();
    return true;
  }
  static Ref find(Ref v, std::string_view key) {
    Members members = TapeAccess::members(v);
    std::string_view name;
    Ref value = nullptr;
    while (next(members, name, value)) {
      if (name.size() == key.size() && std::memcmp(name.data(), key.data(), key.size()) == 0) return value;
    }
    return nullptr;
  }

  static json::Value number(Ref v) {
    if (v->type == json::Type::Integer) return json::Value(v->integer);
    if (v->big_integer) return json::Value(json::BigInteger{std::string(v->text_view())});
    return json::Value(v->real);
  }
  /// JSON equality, as json::Value's operator== (numbers by value, member
  /// order ignored).
  static bool equal(const json::Value& a, Ref b);
  static bool equal(Ref a, Ref b);

  class Key {
   public:
    explicit Key(std::string_view key) {
      entry_.type = json::Type::String;
      entry_.set_text(key);
    }
    Ref ref() const { return &entry_; }

   private:
    json::TapeEntry entry_;
  };
};

}  // namespace weld::schema
