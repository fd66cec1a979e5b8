// Punycode, RFC 3492 §6 (decode and encode, with overflow checks).

#include <cstdint>

#include "checks.h"

namespace weld::schema::format_detail {
namespace {

constexpr std::uint32_t kBase = 36, kTMin = 1, kTMax = 26, kSkew = 38, kDamp = 700;
constexpr std::uint32_t kInitialBias = 72, kInitialN = 128;
constexpr std::uint32_t kMaxInt = 0x7FFFFFFF;

std::uint32_t adapt(std::uint32_t delta, std::uint32_t points, bool first) {
  delta = first ? delta / kDamp : delta / 2;
  delta += delta / points;
  std::uint32_t k = 0;
  while (delta > ((kBase - kTMin) * kTMax) / 2) {
    delta /= kBase - kTMin;
    k += kBase;
  }
  return k + (kBase - kTMin + 1) * delta / (delta + kSkew);
}

int digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0' + 26;
  if (c >= 'a' && c <= 'z') return c - 'a';
  if (c >= 'A' && c <= 'Z') return c - 'A';
  return -1;
}

char digit_char(std::uint32_t d) { return static_cast<char>(d < 26 ? 'a' + d : '0' + (d - 26)); }

std::uint32_t threshold(std::uint32_t k, std::uint32_t bias) {
  if (k <= bias) return kTMin;
  if (k >= bias + kTMax) return kTMax;
  return k - bias;
}

}  // namespace

bool punycode_decode(std::string_view input, std::u32string& out) {
  out.clear();
  std::size_t delimiter = input.rfind('-');
  std::size_t in = 0;
  if (delimiter != std::string_view::npos) {
    for (std::size_t i = 0; i < delimiter; ++i) {
      unsigned char c = static_cast<unsigned char>(input[i]);
      if (c >= 0x80) return false;
      out.push_back(c);
    }
    in = delimiter + 1;
  }
  std::uint32_t n = kInitialN, i = 0, bias = kInitialBias;
  while (in < input.size()) {
    std::uint32_t old_i = i, w = 1;
    for (std::uint32_t k = kBase;; k += kBase) {
      if (in >= input.size()) return false;
      int digit = digit_value(input[in++]);
      if (digit < 0) return false;
      std::uint32_t d = static_cast<std::uint32_t>(digit);
      if (d > (kMaxInt - i) / w) return false;
      i += d * w;
      std::uint32_t t = threshold(k, bias);
      if (d < t) break;
      if (w > kMaxInt / (kBase - t)) return false;
      w *= kBase - t;
    }
    std::uint32_t count = static_cast<std::uint32_t>(out.size()) + 1;
    bias = adapt(i - old_i, count, old_i == 0);
    if (i / count > kMaxInt - n) return false;
    n += i / count;
    i %= count;
    if (n > 0x10FFFF || (n >= 0xD800 && n <= 0xDFFF)) return false;
    out.insert(out.begin() + i, static_cast<char32_t>(n));
    ++i;
  }
  return true;
}

std::string punycode_encode(const std::u32string& input) {
  std::string out;
  for (char32_t c : input) {
    if (c < 0x80) out.push_back(static_cast<char>(c));
  }
  std::uint32_t basic = static_cast<std::uint32_t>(out.size());
  std::uint32_t handled = basic;
  if (basic > 0) out.push_back('-');
  std::uint32_t n = kInitialN, delta = 0, bias = kInitialBias;
  while (handled < input.size()) {
    std::uint32_t m = 0x10FFFF + 1;
    for (char32_t c : input) {
      if (c >= n && c < m) m = c;
    }
    if ((m - n) > (kMaxInt - delta) / (handled + 1)) return {};
    delta += (m - n) * (handled + 1);
    n = m;
    for (char32_t c : input) {
      if (c < n && ++delta == 0) return {};
      if (c == n) {
        std::uint32_t q = delta;
        for (std::uint32_t k = kBase;; k += kBase) {
          std::uint32_t t = threshold(k, bias);
          if (q < t) break;
          out.push_back(digit_char(t + (q - t) % (kBase - t)));
          q = (q - t) / (kBase - t);
        }
        out.push_back(digit_char(q));
        bias = adapt(delta, handled + 1, handled == basic);
        delta = 0;
        ++handled;
      }
    }
    ++delta;
    ++n;
  }
  return out;
}

}  // namespace weld::schema::format_detail
