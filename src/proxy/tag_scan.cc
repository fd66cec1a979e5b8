// The hot-path tag check (docs/proxy.md, "Tagging a request"): untagged requests must not be parsed.
// We look for `"model"` used as a key (followed by `:`) whose string value
// contains `__schema=`. memmem is SIMD-fast in glibc, so the common case is
// one or two passes over the body with no allocation.

#include "weld/proxy/tag_scan.h"

#include <cstring>

namespace weld::proxy {
namespace {

constexpr std::string_view kKey = "\"model\"";
constexpr std::string_view kSuffix = "__schema=";

bool is_json_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

}  // namespace

bool may_be_suffix_tagged(std::string_view body) {
  // Cheapest rejection first: no suffix anywhere, no tag. (An empty body
  // may have a null data(), which memmem must not be given.)
  if (body.size() < kSuffix.size()) return false;
  if (::memmem(body.data(), body.size(), kSuffix.data(), kSuffix.size()) == nullptr) return false;
  std::size_t from = 0;
  while (from < body.size()) {
    const void* hit = ::memmem(body.data() + from, body.size() - from, kKey.data(), kKey.size());
    if (hit == nullptr) return false;
    std::size_t pos = static_cast<const char*>(hit) - body.data();
    from = pos + 1;
    // `\"model\"` inside a string is escaped; a real key is not preceded by a backslash.
    if (pos > 0 && body[pos - 1] == '\\') continue;
    std::size_t i = pos + kKey.size();
    while (i < body.size() && is_json_space(body[i])) ++i;
    if (i >= body.size() || body[i] != ':') continue;
    ++i;
    while (i < body.size() && is_json_space(body[i])) ++i;
    if (i >= body.size() || body[i] != '"') continue;
    ++i;
    std::size_t start = i;
    while (i < body.size() && body[i] != '"') {
      if (body[i] == '\\') ++i;  // skip the escaped character
      ++i;
    }
    std::size_t end = i < body.size() ? i : body.size();
    std::string_view value = body.substr(start, end - start);
    if (value.find(kSuffix) != std::string_view::npos) return true;
  }
  return false;
}

}  // namespace weld::proxy
