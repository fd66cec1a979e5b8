// Request targets (docs/proxy.md, "Errors and timeouts"): what reaches the upstream stays under its
// path prefix, however the client spelled the path.

#include "request_target.h"
#include "weld/base/text.h"

namespace weld::proxy {
namespace {

// True when `path`, split at "/" and "\", has a "." or ".." segment (also
// with path parameters, "..;x", which some servers strip before resolving).
bool has_dot_segment(std::string_view path) {
  std::size_t start = 0;
  for (std::size_t idx = 0; idx <= path.size(); ++idx) {
    if (idx == path.size() || path[idx] == '/' || path[idx] == '\\') {
      const std::string_view segment = path.substr(start, idx - start);
      const std::string_view name = segment.substr(0, segment.find(';'));
      if (name == "." || name == "..") return true;
      start = idx + 1;
    }
  }
  return false;
}

// Whether the path could name a dot segment to a server that decodes it, as
// many times as it takes (each round makes the text shorter, so this ends).
bool escapes(std::string_view path) {
  if (path.find('%') == std::string_view::npos) return has_dot_segment(path);  // nothing to decode
  std::string text(path);
  for (;;) {
    if (has_dot_segment(text)) return true;
    std::string decoded = percent_decode(text);
    if (decoded == text) return false;
    text = std::move(decoded);
  }
}

bool starts_with_scheme(std::string_view target, std::string_view scheme) {
  if (target.size() < scheme.size()) return false;
  for (std::size_t idx = 0; idx < scheme.size(); ++idx) {
    char c = target[idx];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != scheme[idx]) return false;
  }
  return true;
}

}  // namespace

Result<std::string> origin_form(std::string_view target) {
  std::string_view origin = target;
  if (target.empty() || target.front() != '/') {
    std::size_t after_scheme = 0;
    if (starts_with_scheme(target, "http://")) after_scheme = 7;
    if (starts_with_scheme(target, "https://")) after_scheme = 8;
    if (after_scheme == 0) {
      return Error{ErrorCode::RequestTarget, "request target must be a path or an absolute http(s) URL", ""};
    }
    const std::size_t path_at = target.find_first_of("/?#", after_scheme);
    origin = path_at == std::string_view::npos ? std::string_view() : target.substr(path_at);
  }
  // Up to the query: a "#" has no place in a request target, and an
  // upstream may well take it as part of the path.
  const std::string_view path = origin.substr(0, origin.find('?'));
  if (escapes(path)) {
    return Error{ErrorCode::RequestTarget,
                 "request target has a \".\" or \"..\" path segment (plain or percent-encoded), which could leave "
                 "the upstream's path prefix",
                 ""};
  }
  if (origin.empty() || origin.front() != '/') return "/" + std::string(origin);
  return std::string(origin);
}

}  // namespace weld::proxy
