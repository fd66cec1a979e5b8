#pragma once
/// \file
/// Numbers compared by value, exactly. A `Value` holds a number as an int64
/// (`Integer`), a double (`Real`), or the digits of an integer literal beyond
/// int64 (`BigInteger`, a `Real` whose `as_real()` is only the nearest
/// double). Comparing through doubles would call 2^63 and 2^63 - 1 equal;
/// these helpers compare the digits instead, and a double by its exact binary
/// value (as Python compares an int with a float, so verdicts agree with
/// python-jsonschema).
///
/// \code
///   auto big = weld::json::parse("9223372036854775808");   // 2^63: a BigInteger
///   weld::json::compare_numbers(*big, weld::json::Value(INT64_MAX));  // > 0
/// \endcode

#include <optional>
#include <string>

#include "weld/json/value.h"

namespace weld::json {

/// Compares two numbers (`is_number()` both) by value: negative when `a` is
/// less, 0 when equal (1 == 1.0, -0.0 == 0), positive when greater.
int compare_numbers(const Value& a, const Value& b);

/// The exact decimal digits (optional '-', no leading zeros, "0" for zero)
/// of an integer-valued number: an Integer, a BigInteger, or a Real whose
/// double has no fraction (its exact binary value: 1e23 gives
/// "99999999999999991611392"). Nullopt for a number with a fraction, a
/// non-finite double, or a non-number.
std::optional<std::string> integer_digits(const Value& value);

/// An integer-valued double as an integer Value of the same value: an
/// Integer when it fits int64, otherwise a BigInteger holding its exact
/// digits (1e23 gives 99999999999999991611392, equal to the double under
/// `compare_numbers`). Nullopt when `d` has a fraction or is not finite.
std::optional<Value> integral_real_as_integer(double d);

}  // namespace weld::json
