// URLs: paths joined before a query, URLs as messages show them, and
// credentials. weld refuses a URL with userinfo
// (`http://user:PASS@host/v1`) for --base-url and the proxy's --upstream
// alike, rather than masking it in every place a URL is shown or stored
// (errors, envelopes, transcripts, ~/.weld/mechanisms.json): a refused URL
// cannot leak, and a key belongs in WELD_API_KEY or the provider's variable.

#include "weld/provider/http.h"

#include <algorithm>

namespace weld::provider {

std::string url_with_path(std::string_view base, std::string_view path) {
  std::size_t scheme_end = base.find("://");
  std::size_t authority = scheme_end == std::string_view::npos ? 0 : scheme_end + 3;
  std::size_t tail = base.find_first_of("?#", authority);
  std::string_view head = base.substr(0, tail);
  std::string_view query = tail == std::string_view::npos ? std::string_view() : base.substr(tail);
  std::string out(head);
  while (out.size() > authority && out.back() == '/') out.pop_back();
  while (!path.empty() && path.front() == '/') path.remove_prefix(1);
  if (!path.empty()) {
    out += '/';
    out += path;
  }
  out += query;
  return out;
}

std::string url_for_messages(std::string_view url) {
  std::size_t scheme_end = url.find("://");
  std::size_t host = scheme_end == std::string_view::npos ? 0 : scheme_end + 3;
  std::size_t path = std::min(url.find_first_of("/?#", host), url.size());
  std::string_view authority = url.substr(host, path - host);
  if (std::size_t at = authority.rfind('@'); at != std::string_view::npos) authority.remove_prefix(at + 1);
  std::string_view rest = url.substr(path);
  std::size_t query = rest.find_first_of("?#");
  std::string out = std::string(url.substr(0, host)) + std::string(authority) + std::string(rest.substr(0, query));
  if (query != std::string_view::npos) out += "?…";
  return out;
}

bool url_has_credentials(std::string_view url) {
  std::size_t scheme_end = url.find("://");
  std::string_view rest = scheme_end == std::string_view::npos ? url : url.substr(scheme_end + 3);
  std::string_view authority = rest.substr(0, rest.find_first_of("/?#\\"));
  return authority.find('@') != std::string_view::npos;
}

}  // namespace weld::provider
