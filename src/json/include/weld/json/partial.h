#pragma once
/// \file
/// Closing a JSON document that is still being written (partial
/// structured answers, docs/run.md "Partial results"): from a prefix of a model's JSON text, the longest
/// part that can stand as a document, with its open string and containers
/// closed. Numbers and literals count only once something ends them (`12`
/// may still become `123`); an object member counts only once its value has
/// started; a string value counts as far as it has come.
///
/// \code
///   auto closed = weld::json::close_prefix(R"({"summary":"Ren)");
///   // closed->text == R"({"summary":"Ren"})", closed->complete_values == 0
/// \endcode

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace weld::json {

/// A closed prefix: `text` is the kept prefix (trailing whitespace and a
/// dangling comma left out) followed by the closing quote and brackets.
struct ClosedPrefix {
  std::string text;
  /// Values (scalars and containers, at any depth) that were complete in
  /// the kept prefix: a caller can tell a completed field from a string
  /// that grew.
  std::size_t complete_values = 0;
};

/// The closed prefix of `prefix`; nullopt when no part of it can stand (no
/// container opened yet, or text that is not JSON). The result is valid
/// JSON whenever `prefix` is a prefix of a valid JSON text whose root is an
/// object or an array; every value it shows is one the full text will have
/// at the same place, except the last string value, which may be cut short.
std::optional<ClosedPrefix> close_prefix(std::string_view prefix);

}  // namespace weld::json
