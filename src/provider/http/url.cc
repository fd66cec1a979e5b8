// Credentials in URLs (issue 13.4). weld refuses a URL with userinfo
// (`http://user:PASS@host/v1`) for --base-url and the proxy's --upstream
// alike, rather than masking it in every place a URL is shown or stored
// (errors, envelopes, transcripts, ~/.weld/mechanisms.json): a refused URL
// cannot leak, and a key belongs in WELD_API_KEY or the provider's variable.

#include "weld/provider/http.h"

namespace weld::provider {

bool url_has_credentials(std::string_view url) {
  std::size_t scheme_end = url.find("://");
  std::string_view rest = scheme_end == std::string_view::npos ? url : url.substr(scheme_end + 3);
  std::string_view authority = rest.substr(0, rest.find_first_of("/?#\\"));
  return authority.find('@') != std::string_view::npos;
}

}  // namespace weld::provider
