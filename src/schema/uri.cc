// URI reference resolution (RFC 3986 §5.2) for `$id`/`$ref` (docs/schema.md, "References").
#include "weld/schema/uri.h"

#include <cctype>
#include <vector>

namespace weld::schema {
namespace {

struct Parts {
  std::string_view scheme, authority, path, query, fragment;
  bool has_scheme = false, has_authority = false, has_query = false, has_fragment = false;
};

Parts parse(std::string_view s) {
  Parts p;
  std::size_t hash = s.find('#');
  if (hash != std::string_view::npos) {
    p.fragment = s.substr(hash + 1);
    p.has_fragment = true;
    s = s.substr(0, hash);
  }
  std::size_t q = s.find('?');
  if (q != std::string_view::npos) {
    p.query = s.substr(q + 1);
    p.has_query = true;
    s = s.substr(0, q);
  }
  if (has_scheme(s)) {
    std::size_t colon = s.find(':');
    p.scheme = s.substr(0, colon);
    p.has_scheme = true;
    s = s.substr(colon + 1);
  }
  if (s.size() >= 2 && s[0] == '/' && s[1] == '/') {
    s = s.substr(2);
    std::size_t slash = s.find('/');
    p.authority = s.substr(0, slash);
    p.has_authority = true;
    s = slash == std::string_view::npos ? std::string_view{} : s.substr(slash);
  }
  p.path = s;
  return p;
}

std::string remove_dot_segments(std::string_view path) {
  std::vector<std::string_view> out;
  bool absolute = !path.empty() && path[0] == '/';
  std::size_t pos = absolute ? 1 : 0;
  bool trailing_slash = false;
  while (pos <= path.size()) {
    std::size_t next = path.find('/', pos);
    if (next == std::string_view::npos) next = path.size();
    std::string_view seg = path.substr(pos, next - pos);
    trailing_slash = false;
    if (seg == ".") {
      trailing_slash = true;
    } else if (seg == "..") {
      if (!out.empty()) out.pop_back();
      trailing_slash = true;
    } else {
      out.push_back(seg);
    }
    pos = next + 1;
  }
  std::string result = absolute ? "/" : "";
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (i) result += '/';
    result += out[i];
  }
  if (trailing_slash && !result.empty() && result.back() != '/') result += '/';
  return result;
}

std::string compose(const Parts& p, const std::string& path) {
  std::string r;
  if (p.has_scheme) {
    r += p.scheme;
    r += ':';
  }
  if (p.has_authority) {
    r += "//";
    r += p.authority;
  }
  r += path;
  if (p.has_query) {
    r += '?';
    r += p.query;
  }
  if (p.has_fragment) {
    r += '#';
    r += p.fragment;
  }
  return r;
}

}  // namespace

bool has_scheme(std::string_view uri) {
  if (uri.empty() || !std::isalpha(static_cast<unsigned char>(uri[0]))) return false;
  for (std::size_t i = 1; i < uri.size(); ++i) {
    char c = uri[i];
    if (c == ':') return true;
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '-' && c != '.') return false;
  }
  return false;
}

std::string resolve_uri(std::string_view base, std::string_view reference) {
  if (base.empty()) return std::string(reference);
  Parts r = parse(reference);
  Parts b = parse(base);
  Parts t;
  std::string path;
  if (r.has_scheme) {
    t = r;
    path = remove_dot_segments(r.path);
  } else {
    t.scheme = b.scheme;
    t.has_scheme = b.has_scheme;
    if (r.has_authority) {
      t.authority = r.authority;
      t.has_authority = true;
      path = remove_dot_segments(r.path);
      t.query = r.query;
      t.has_query = r.has_query;
    } else {
      t.authority = b.authority;
      t.has_authority = b.has_authority;
      if (r.path.empty()) {
        path = std::string(b.path);
        t.query = r.has_query ? r.query : b.query;
        t.has_query = r.has_query || b.has_query;
      } else {
        if (r.path[0] == '/') {
          path = remove_dot_segments(r.path);
        } else {
          std::string merged;
          if (b.has_authority && b.path.empty()) {
            merged = "/" + std::string(r.path);
          } else {
            std::size_t slash = b.path.rfind('/');
            merged = slash == std::string_view::npos ? std::string(r.path)
                                                     : std::string(b.path.substr(0, slash + 1)) + std::string(r.path);
          }
          path = remove_dot_segments(merged);
        }
        t.query = r.query;
        t.has_query = r.has_query;
      }
    }
  }
  t.fragment = r.fragment;
  t.has_fragment = r.has_fragment;
  return compose(t, path);
}

void split_fragment(std::string_view uri, std::string_view& without, std::string_view& fragment,
                    bool* has_fragment) {
  std::size_t hash = uri.find('#');
  if (hash == std::string_view::npos) {
    without = uri;
    fragment = {};
    if (has_fragment) *has_fragment = false;
  } else {
    without = uri.substr(0, hash);
    fragment = uri.substr(hash + 1);
    if (has_fragment) *has_fragment = true;
  }
}

std::string_view strip_fragment(std::string_view uri) {
  return uri.substr(0, uri.find('#'));
}

}  // namespace weld::schema
