// json::Tape <-> json::Value (tape.h).
#include "weld/json/tape.h"

namespace weld::json {
namespace {

void write(const Value& value, std::string_view key, Tape& tape) {
  switch (value.type()) {
    case Type::Null: tape.push(Type::Null).set_key(key); return;
    case Type::Boolean: tape.push(Type::Boolean).set_key(key).boolean = value.as_bool(); return;
    case Type::Integer: tape.push(Type::Integer).set_key(key).integer = value.as_integer(); return;
    case Type::Real: {
      TapeEntry& entry = tape.push(Type::Real).set_key(key);
      entry.real = value.as_real();
      if (const std::string* digits = value.big_integer_digits()) {
        entry.set_text(*digits);
        entry.big_integer = true;
      }
      return;
    }
    case Type::String: tape.push(Type::String).set_key(key).set_text(value.as_string()); return;
    case Type::Array: {
      std::size_t at = tape.open(Type::Array);
      tape.at(at).set_key(key);
      for (const Value& element : value.as_array()) write(element, {}, tape);
      tape.close(at, value.as_array().size());
      return;
    }
    case Type::Object: {
      std::size_t at = tape.open(Type::Object);
      tape.at(at).set_key(key);
      for (const Member& member : value.as_object()) write(member.value, member.key, tape);
      tape.close(at, value.as_object().size());
      return;
    }
  }
}

// The value at `entry`; returns the entry after it.
const TapeEntry* read(const TapeEntry* entry, Value& out) {
  switch (entry->type) {
    case Type::Null: out = Value(); break;
    case Type::Boolean: out = Value(entry->boolean); break;
    case Type::Integer: out = Value(entry->integer); break;
    case Type::Real:
      out = entry->big_integer ? Value(BigInteger{std::string(entry->text_view())}) : Value(entry->real);
      break;
    case Type::String: out = Value(entry->text_view()); break;
    case Type::Array: {
      Array elements(entry->size);
      const TapeEntry* at = entry + 1;
      for (Value& element : elements) at = read(at, element);
      out = Value(std::move(elements));
      break;
    }
    case Type::Object: {
      Object members;
      members.reserve(entry->size);
      const TapeEntry* at = entry + 1;
      for (std::uint32_t i = 0; i < entry->size; ++i) {
        Member& member = members.emplace_back();
        member.key.assign(at->key, at->key_size);
        at = read(at, member.value);
      }
      out = Value(std::move(members));
      break;
    }
  }
  return entry + entry->span;
}

}  // namespace

void write_tape(const Value& value, Tape& tape) {
  tape.clear();
  write(value, {}, tape);
}

Value read_tape(const Tape& tape) {
  Value out;
  read(tape.data(), out);
  return out;
}

}  // namespace weld::json
