// multipleOf on decimals, see number.h. The naive fmod(0.07, 0.01) is not 0
// because neither number is exact in binary; their shortest decimal forms
// are, and that is what the schema author and the model wrote. An integer
// beyond int64 (json::BigInteger) keeps its digits, so it is divided exactly
// too: 2^64 is not a multiple of 3 although its nearest double is.
#include "number.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>

namespace weld::schema {
namespace {

/// value = digits * 10^exponent, digits without leading or trailing zeros
/// ("" for zero).
struct Decimal {
  std::string digits;
  int exponent = 0;
  bool ok = true;
};

Decimal to_decimal(const json::Value& v) {
  Decimal d;
  char buf[64];
  std::string_view text;
  if (const std::string* big = v.big_integer_digits()) {
    text = *big;
  } else if (v.is_integer()) {
    auto r = std::to_chars(buf, buf + sizeof buf, v.as_integer());
    text = std::string_view(buf, static_cast<std::size_t>(r.ptr - buf));
  } else {
    double x = v.as_real();
    if (!std::isfinite(x)) {
      d.ok = false;
      return d;
    }
    auto r = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific);
    text = std::string_view(buf, static_cast<std::size_t>(r.ptr - buf));
  }
  std::size_t p = 0;
  if (p < text.size() && text[p] == '-') ++p;
  int frac_digits = 0;
  bool in_frac = false;
  for (; p < text.size() && text[p] != 'e'; ++p) {
    if (text[p] == '.') {
      in_frac = true;
      continue;
    }
    if (d.digits.empty() && text[p] == '0') {
      if (in_frac) ++frac_digits;
      continue;  // leading zero
    }
    d.digits += text[p];
    if (in_frac) ++frac_digits;
  }
  int exp = 0;
  if (p < text.size() && text[p] == 'e') {
    ++p;
    if (p < text.size() && text[p] == '+') ++p;
    std::from_chars(text.data() + p, text.data() + text.size(), exp);
  }
  d.exponent = exp - frac_digits;
  while (!d.digits.empty() && d.digits.back() == '0') {
    d.digits.pop_back();
    ++d.exponent;
  }
  if (d.digits.empty()) d.exponent = 0;
  return d;
}

/// `digits` as an integer when it has at most 36 digits (so r * 10 + 9
/// never overflows below it).
bool small(const std::string& digits, unsigned __int128& out) {
  if (digits.size() > 36) return false;
  out = 0;
  for (char c : digits) out = out * 10 + static_cast<unsigned>(c - '0');
  return true;
}

/// Remainder of a decimal digit string by another, as digit strings
/// (schoolbook long division, base 10); both without leading zeros.
class LongRemainder {
 public:
  explicit LongRemainder(const std::string& divisor) : divisor_(divisor) {}
  /// Appends one digit to the dividend.
  void push(int digit) {
    if (remainder_ == "0") remainder_.clear();
    remainder_ += static_cast<char>('0' + digit);
    while (at_least_divisor()) subtract();
  }
  bool zero() const { return remainder_.empty() || remainder_ == "0"; }

 private:
  bool at_least_divisor() const {
    if (remainder_.size() != divisor_.size()) return remainder_.size() > divisor_.size();
    return remainder_.compare(divisor_) >= 0;
  }
  void subtract() {
    int borrow = 0;
    std::size_t offset = remainder_.size() - divisor_.size();
    for (std::size_t i = remainder_.size(); i-- > 0;) {
      int sub = (i >= offset ? divisor_[i - offset] - '0' : 0) + borrow;
      int digit = remainder_[i] - '0' - sub;
      borrow = digit < 0 ? 1 : 0;
      remainder_[i] = static_cast<char>('0' + digit + (borrow ? 10 : 0));
    }
    std::size_t first = remainder_.find_first_not_of('0');
    remainder_ = first == std::string::npos ? "0" : remainder_.substr(first);
  }

  const std::string& divisor_;
  std::string remainder_;
};

}  // namespace

bool is_multiple_of(const json::Value& value, const json::Value& divisor) {
  if (value.is_integer() && divisor.is_integer()) {
    std::int64_t b = divisor.as_integer();
    return b != 0 && value.as_integer() % b == 0;
  }
  Decimal a = to_decimal(value);
  Decimal b = to_decimal(divisor);
  if (!a.ok || !b.ok || b.digits.empty()) {
    // Non-finite: fall back to floating point (infinite values never are).
    double q = value.as_double() / divisor.as_double();
    return std::isfinite(q) && std::floor(q) == q;
  }
  if (a.digits.empty()) return true;
  if (a.exponent < b.exponent) return false;  // a has no trailing zeros: cannot absorb 10^k
  // (a.digits * 10^(ea-eb)) mod b.digits == 0
  unsigned __int128 x = 0, y = 0;
  if (small(a.digits, x) && small(b.digits, y)) {
    unsigned __int128 r = x % y;
    for (int k = a.exponent - b.exponent; k > 0 && r != 0; --k) r = (r * 10) % y;
    return r == 0;
  }
  LongRemainder r(b.digits);
  for (char c : a.digits) r.push(c - '0');
  for (int k = a.exponent - b.exponent; k > 0 && !r.zero(); --k) r.push(0);
  return r.zero();
}

}  // namespace weld::schema
