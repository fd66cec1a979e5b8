// Format examples for the sampler. Values are plain and obviously synthetic
// (example.com, 2001:db8::/32 documentation addresses) so nobody mistakes
// sampled output for real data.

#include "formats.h"

#include <array>
#include <cstdio>

namespace weld::sample {
namespace {

constexpr std::array<std::string_view, 24> kWords = {
    "alpha", "amber", "bravo", "cedar", "delta", "echo",  "ember", "fjord", "gamma", "harbor", "indigo", "juniper",
    "kilo",  "lumen", "maple", "nova",  "orbit", "pixel", "quartz", "river", "sierra", "tango", "umber", "willow"};

std::string two(std::int64_t n) {
  char buffer[8];
  std::snprintf(buffer, sizeof buffer, "%02d", static_cast<int>(n));
  return buffer;
}

std::string date(Prng& rng) {
  return std::to_string(rng.between(2000, 2030)) + "-" + two(rng.between(1, 12)) + "-" + two(rng.between(1, 28));
}

std::string time_of_day(Prng& rng) {
  return two(rng.between(0, 23)) + ":" + two(rng.between(0, 59)) + ":" + two(rng.between(0, 59)) + "Z";
}

std::string hex(Prng& rng, int digits) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < digits; ++i) out.push_back(kHex[rng.below(16)]);
  return out;
}

std::string duration(Prng& rng) {
  switch (rng.below(4)) {
    case 0: return "P" + std::to_string(rng.between(1, 30)) + "D";
    case 1: return "PT" + std::to_string(rng.between(1, 59)) + "M";
    case 2: return "P" + std::to_string(rng.between(1, 5)) + "Y" + std::to_string(rng.between(1, 11)) + "M";
    default: return "P" + std::to_string(rng.between(1, 6)) + "DT" + std::to_string(rng.between(1, 23)) + "H";
  }
}

}  // namespace

std::string_view random_word(Prng& rng) { return kWords[rng.below(kWords.size())]; }

std::optional<std::string> generate_format(std::string_view format, Prng& rng) {
  if (format == "date-time") return date(rng) + "T" + time_of_day(rng);
  if (format == "date") return date(rng);
  if (format == "time") return time_of_day(rng);
  if (format == "duration") return duration(rng);
  if (format == "email" || format == "idn-email") {
    return std::string(random_word(rng)) + std::to_string(rng.between(1, 99)) + "@example.com";
  }
  if (format == "hostname" || format == "idn-hostname") {
    return std::string(random_word(rng)) + "-" + std::to_string(rng.between(1, 99)) + ".example.com";
  }
  if (format == "ipv4") {
    return std::to_string(rng.between(1, 223)) + "." + std::to_string(rng.between(0, 255)) + "." +
           std::to_string(rng.between(0, 255)) + "." + std::to_string(rng.between(1, 254));
  }
  if (format == "ipv6") return "2001:db8::" + hex(rng, 4);
  if (format == "uri" || format == "iri") {
    return "https://example.com/" + std::string(random_word(rng)) + "/" + std::to_string(rng.between(1, 999));
  }
  if (format == "uri-reference" || format == "iri-reference") {
    return "/" + std::string(random_word(rng)) + "/" + std::to_string(rng.between(1, 999));
  }
  if (format == "uri-template") return "https://example.com/" + std::string(random_word(rng)) + "/{id}";
  if (format == "uuid") {
    static constexpr char kVariant[] = "89ab";
    return hex(rng, 8) + "-" + hex(rng, 4) + "-4" + hex(rng, 3) + "-" + kVariant[rng.below(4)] + hex(rng, 3) + "-" +
           hex(rng, 12);
  }
  if (format == "json-pointer") return "/" + std::string(random_word(rng)) + "/" + std::to_string(rng.below(10));
  if (format == "relative-json-pointer") return std::to_string(rng.below(3)) + "/" + std::string(random_word(rng));
  if (format == "regex") return "^[a-z]+$";
  return std::nullopt;
}

}  // namespace weld::sample
