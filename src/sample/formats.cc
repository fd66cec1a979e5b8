// Format examples for the sampler. Values are plain and obviously synthetic
// (example.com, 2001:db8::/32 documentation addresses) so nobody mistakes
// sampled output for real data.

#include "formats.h"

#include <array>
#include <cstdio>

#include "weld/schema/format.h"

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
  // The names weld asserts (weld::schema::format_id), so every asserted
  // format has a generator: the switch covers every FormatId.
  std::optional<schema::FormatId> id = schema::format_id(format, false);
  if (!id) return std::nullopt;
  switch (*id) {
    case schema::FormatId::DateTime: return date(rng) + "T" + time_of_day(rng);
    case schema::FormatId::Date: return date(rng);
    case schema::FormatId::Time: return time_of_day(rng);
    case schema::FormatId::Duration: return duration(rng);
    case schema::FormatId::Email:
    case schema::FormatId::IdnEmail:
      return std::string(random_word(rng)) + std::to_string(rng.between(1, 99)) + "@example.com";
    case schema::FormatId::Hostname:
    case schema::FormatId::HostnameRfc1123:
    case schema::FormatId::IdnHostname:
      return std::string(random_word(rng)) + "-" + std::to_string(rng.between(1, 99)) + ".example.com";
    case schema::FormatId::Ipv4:
      return std::to_string(rng.between(1, 223)) + "." + std::to_string(rng.between(0, 255)) + "." +
             std::to_string(rng.between(0, 255)) + "." + std::to_string(rng.between(1, 254));
    case schema::FormatId::Ipv6: return "2001:db8::" + hex(rng, 4);
    case schema::FormatId::Uri:
    case schema::FormatId::Iri:
      return "https://example.com/" + std::string(random_word(rng)) + "/" + std::to_string(rng.between(1, 999));
    case schema::FormatId::UriReference:
    case schema::FormatId::IriReference:
      return "/" + std::string(random_word(rng)) + "/" + std::to_string(rng.between(1, 999));
    case schema::FormatId::UriTemplate: return "https://example.com/" + std::string(random_word(rng)) + "/{id}";
    case schema::FormatId::Uuid: {
      static constexpr char kVariant[] = "89ab";
      return hex(rng, 8) + "-" + hex(rng, 4) + "-4" + hex(rng, 3) + "-" + kVariant[rng.below(4)] + hex(rng, 3) + "-" +
             hex(rng, 12);
    }
    case schema::FormatId::JsonPointer:
      return "/" + std::string(random_word(rng)) + "/" + std::to_string(rng.below(10));
    case schema::FormatId::RelativeJsonPointer: return std::to_string(rng.below(3)) + "/" + std::string(random_word(rng));
    case schema::FormatId::Regex: return "^[a-z]+$";
  }
  return std::nullopt;
}

}  // namespace weld::sample
