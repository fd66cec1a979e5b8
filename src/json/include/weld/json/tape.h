#pragma once
/// \file
/// `weld::json::Tape`: a JSON document as one flat array of entries whose
/// strings are borrowed, not copied. Building one allocates nothing per
/// value (the array is reused), which makes it the cheap way to validate
/// values that live elsewhere: the Python module writes a dict into a Tape
/// in one pass and `weld::schema::Schema::is_valid(const Tape&)` reads it.
///
/// \code
///   weld::json::Tape tape;                     // reuse it: clear() keeps the capacity
///   std::size_t root = tape.open(weld::json::Type::Object);
///   tape.push(weld::json::Type::String).set_text("Ada").set_key("name");
///   tape.close(root, 1);                       // one member
///   bool ok = schema.is_valid(tape);
/// \endcode

#include <cstdint>
#include <string_view>
#include <vector>

#include "weld/json/value.h"

namespace weld::json {

/// One value of a Tape. A container is followed by its elements (an array)
/// or its members (an object: each member's value entry carries its key),
/// each of them followed by its own contents; `span` counts the entries of
/// the whole value, so a reader steps over it at once (`this + span`).
struct TapeEntry {
  /// An object member: its key (UTF-8; borrowed). Empty otherwise.
  const char* key = nullptr;
  /// String: its UTF-8; Real with `big_integer`: its digits (both borrowed).
  const char* text = nullptr;
  union {
    bool boolean;
    std::int64_t integer;
    double real;  ///< also the nearest double of a big integer
  };
  std::uint32_t key_size = 0;
  /// String: its byte length; big integer: its digit count; array or
  /// object: its element or member count.
  std::uint32_t size = 0;
  /// Entries this value takes: 1 for a scalar, 1 + its contents' for a
  /// container.
  std::uint32_t span = 1;
  Type type = Type::Null;
  /// A Real written as an integer beyond int64 (see json::BigInteger):
  /// `text` holds its digits ("-" and digits, no leading zero).
  bool big_integer = false;

  TapeEntry() : integer(0) {}
  std::string_view key_view() const { return std::string_view(key, key_size); }
  std::string_view text_view() const { return std::string_view(text, size); }
  TapeEntry& set_key(std::string_view k) {
    key = k.data();
    key_size = static_cast<std::uint32_t>(k.size());
    return *this;
  }
  TapeEntry& set_text(std::string_view t) {
    text = t.data();
    size = static_cast<std::uint32_t>(t.size());
    return *this;
  }
};

/// A JSON document as entries, the root first. Strings and keys point into
/// memory the builder keeps alive while the tape is read.
class Tape {
 public:
  /// The most entries (and the longest string) a Tape holds: indices are
  /// 32-bit.
  static constexpr std::size_t kMaxEntries = 0xFFFFFFF0u;

  /// Empties the tape, keeping its capacity.
  void clear() { entries_.clear(); }
  /// Appends a scalar entry of `type` (set its value on the result).
  TapeEntry& push(Type type) {
    TapeEntry& entry = entries_.emplace_back();
    entry.type = type;
    return entry;
  }
  /// Appends a container entry; returns its index for `close`.
  std::size_t open(Type type) {
    push(type);
    return entries_.size() - 1;
  }
  /// Ends the container at `index`, which has `count` elements or members.
  void close(std::size_t index, std::size_t count) {
    entries_[index].size = static_cast<std::uint32_t>(count);
    entries_[index].span = static_cast<std::uint32_t>(entries_.size() - index);
  }
  /// The entry at `index` (e.g. to set the key of a container member).
  TapeEntry& at(std::size_t index) { return entries_[index]; }
  std::size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  /// The root value (the tape must not be empty).
  const TapeEntry& root() const { return entries_.front(); }
  const TapeEntry* data() const { return entries_.data(); }

 private:
  std::vector<TapeEntry> entries_;
};

/// Writes `value` into `tape` (after clearing it); the tape borrows the
/// value's strings, so `value` must outlive its use.
void write_tape(const Value& value, Tape& tape);

/// The value a tape holds, as a json::Value (strings copied).
Value read_tape(const Tape& tape);

}  // namespace weld::json
