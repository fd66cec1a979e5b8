// Exact comparison of numbers (number.h). The common cases stay on the
// machine's arithmetic: two int64s compare as int64, and an int64 against a
// double (or two doubles) as long double, which holds both exactly on x86-64
// (64-bit significand) and aarch64 (quad precision). Only a BigInteger takes
// the decimal path.
#include "weld/json/number.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string_view>

namespace weld::json {
namespace {

static_assert(std::numeric_limits<long double>::digits >= 64, "an int64 and a double must both fit a long double exactly");

/// Sign and magnitude of an integer's decimal digits.
struct Digits {
  bool negative = false;
  std::string_view magnitude;
};

Digits split(std::string_view digits) {
  Digits d;
  if (!digits.empty() && digits.front() == '-') {
    d.negative = true;
    digits.remove_prefix(1);
  }
  while (digits.size() > 1 && digits.front() == '0') digits.remove_prefix(1);
  d.magnitude = digits;
  if (d.magnitude == "0") d.negative = false;  // -0 is 0
  return d;
}

int compare_integer_digits(std::string_view a_text, std::string_view b_text) {
  Digits a = split(a_text);
  Digits b = split(b_text);
  if (a.negative != b.negative) return a.negative ? -1 : 1;
  int magnitude = 0;
  if (a.magnitude.size() != b.magnitude.size()) {
    magnitude = a.magnitude.size() < b.magnitude.size() ? -1 : 1;
  } else {
    int c = a.magnitude.compare(b.magnitude);
    magnitude = c < 0 ? -1 : c > 0 ? 1 : 0;
  }
  return a.negative ? -magnitude : magnitude;
}

std::string double_integer_digits(double d) {
  // Fixed notation with no fraction digits prints the exact value of an
  // integral double (as printf's %.0f does).
  char buf[400];
  auto result = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::fixed, 0);
  return std::string(buf, result.ptr);
}

}  // namespace

std::optional<std::string> integer_digits(const Value& value) {
  if (value.is_integer()) return std::to_string(value.as_integer());
  if (const std::string* digits = value.big_integer_digits()) return *digits;
  if (!value.is_real()) return std::nullopt;
  double d = value.as_real();
  if (!std::isfinite(d) || std::floor(d) != d) return std::nullopt;
  return double_integer_digits(d);
}

int compare_numbers(const Value& a, const Value& b) {
  const std::string* a_big = a.big_integer_digits();
  const std::string* b_big = b.big_integer_digits();
  if (a_big == nullptr && b_big == nullptr) {
    if (a.is_integer() && b.is_integer()) {
      std::int64_t x = a.as_integer(), y = b.as_integer();
      return x < y ? -1 : x > y ? 1 : 0;
    }
    long double x = a.is_integer() ? static_cast<long double>(a.as_integer()) : static_cast<long double>(a.as_real());
    long double y = b.is_integer() ? static_cast<long double>(b.as_integer()) : static_cast<long double>(b.as_real());
    return x < y ? -1 : x > y ? 1 : 0;
  }
  // One side at least is a BigInteger. A double with a fraction lies
  // strictly between two integers: compare the other side with its floor.
  auto fractional = [](const Value& v) {
    if (!v.is_real() || v.big_integer_digits() != nullptr) return false;
    double d = v.as_real();
    return std::isfinite(d) && std::floor(d) != d;
  };
  if (fractional(a)) return -compare_numbers(b, a);
  if (fractional(b)) {
    // a is integer-valued: a <= floor(b) means a < b, otherwise a > b.
    int c = compare_numbers(a, Value(std::floor(b.as_real())));
    return c <= 0 ? -1 : 1;
  }
  std::optional<std::string> x = integer_digits(a);
  std::optional<std::string> y = integer_digits(b);
  if (!x || !y) {
    // Non-finite doubles (never parsed from JSON): order by doubles.
    double dx = a.as_double(), dy = b.as_double();
    return dx < dy ? -1 : dx > dy ? 1 : 0;
  }
  return compare_integer_digits(*x, *y);
}

std::optional<Value> integral_real_as_integer(double d) {
  if (!std::isfinite(d) || std::floor(d) != d) return std::nullopt;
  // [-2^63, 2^63) converts exactly.
  if (d >= -9223372036854775808.0 && d < 9223372036854775808.0) return Value(static_cast<std::int64_t>(d));
  return Value(BigInteger{double_integer_digits(d)});
}

}  // namespace weld::json
