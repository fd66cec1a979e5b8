#pragma once
// The request target a client sent, as the proxy forwards it under the
// upstream's path prefix (RFC 9112 §3.2). Pure, so fuzz/http_request_fuzz.cc
// runs it. Private to src/proxy.

#include <string>
#include <string_view>

#include "weld/base/result.h"

namespace weld::proxy {

/// The origin-form ("/path?query") of a request target: an origin-form
/// target as is, an absolute-form one ("http://host/path?query", as sent to
/// a forward proxy) reduced to its path and query (the upstream is always
/// --upstream). Refuses any other form ("*", "host:port"), and a path with a
/// "." or ".." segment, plain or percent-encoded (once or more), behind a
/// "\" or an encoded "/", or with path parameters ("..;x"): the upstream
/// could resolve it to a path outside its prefix. The error's
/// message is for the client.
Result<std::string> origin_form(std::string_view target);

}  // namespace weld::proxy
