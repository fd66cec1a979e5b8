// multipleOf on decimals, see number.h. The naive fmod(0.07, 0.01) is not 0
// because neither number is exact in binary; their shortest decimal forms
// are, and that is what the schema author and the model wrote.
#include "number.h"

#include <charconv>
#include <cmath>
#include <cstdint>

namespace weld::schema {
namespace {

/// value = digits * 10^exponent, digits without trailing zeros.
struct Decimal {
  unsigned __int128 digits = 0;
  int exponent = 0;
  bool ok = true;
};

Decimal to_decimal(const json::Value& v) {
  Decimal d;
  char buf[64];
  std::to_chars_result r;
  if (v.is_integer()) {
    std::int64_t i = v.as_integer();
    r = std::to_chars(buf, buf + sizeof buf, i);
  } else {
    double x = v.as_real();
    if (!std::isfinite(x)) {
      d.ok = false;
      return d;
    }
    r = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific);
  }
  const char* p = buf;
  const char* end = r.ptr;
  if (p < end && *p == '-') ++p;
  int frac_digits = 0;
  bool in_frac = false;
  for (; p < end && *p != 'e'; ++p) {
    if (*p == '.') {
      in_frac = true;
      continue;
    }
    d.digits = d.digits * 10 + static_cast<unsigned>(*p - '0');
    if (in_frac) ++frac_digits;
  }
  int exp = 0;
  if (p < end && *p == 'e') {
    ++p;
    std::from_chars(*p == '+' ? p + 1 : p, end, exp);
  }
  d.exponent = exp - frac_digits;
  if (d.digits == 0) {
    d.exponent = 0;
    return d;
  }
  while (d.digits % 10 == 0) {
    d.digits /= 10;
    ++d.exponent;
  }
  return d;
}

}  // namespace

bool is_multiple_of(const json::Value& value, const json::Value& divisor) {
  if (value.is_integer() && divisor.is_integer()) {
    std::int64_t b = divisor.as_integer();
    return b != 0 && value.as_integer() % b == 0;
  }
  Decimal a = to_decimal(value);
  Decimal b = to_decimal(divisor);
  if (!a.ok || !b.ok || b.digits == 0) {
    // Non-finite: fall back to floating point (infinite values never are).
    double q = value.as_double() / divisor.as_double();
    return std::isfinite(q) && std::floor(q) == q;
  }
  if (a.digits == 0) return true;
  if (a.exponent < b.exponent) return false;  // a has no trailing zeros: cannot absorb 10^k
  // (a.digits * 10^(ea-eb)) mod b.digits == 0
  unsigned __int128 r = a.digits % b.digits;
  for (int k = a.exponent - b.exponent; k > 0 && r != 0; --k) r = (r * 10) % b.digits;
  return r == 0;
}

}  // namespace weld::schema
