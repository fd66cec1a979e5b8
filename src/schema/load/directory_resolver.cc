// Remote `$ref`s answered from local folders (docs/schema.md, "References": remote
// references are not fetched; a user points weld at local copies instead).

#include "weld/schema/directory_resolver.h"

#include "weld/schema/load.h"

namespace weld::schema {

Result<DirectoryMapping> parse_directory_mapping(const std::string& spec) {
  std::size_t eq = spec.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size()) {
    return Error{ErrorCode::Usage, "--resolve expects PREFIX=DIR, got \"" + spec + "\"", spec};
  }
  std::string dir = spec.substr(eq + 1);
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return DirectoryMapping{spec.substr(0, eq), dir};
}

Resolver directory_resolver(std::vector<DirectoryMapping> mappings) {
  if (mappings.empty()) return Resolver();
  return Resolver([mappings = std::move(mappings)](std::string_view uri) -> std::optional<json::Value> {
    std::string_view base = uri.substr(0, uri.find('#'));
    for (const DirectoryMapping& mapping : mappings) {
      if (base.substr(0, mapping.prefix.size()) != mapping.prefix) continue;
      std::string rest(base.substr(mapping.prefix.size()));
      if (rest.find("..") != std::string::npos) continue;  // stay under DIR
      if (!rest.empty() && rest.front() == '/') rest.erase(0, 1);
      std::string dir = mapping.dir;
      while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
      // The same reader as a schema file: stat first (a FIFO never blocks),
      // size cap, UTF-8, JSON. Any JSON value: `true` is a schema.
      Result<json::Value> document = read_json_argument("@" + dir + "/" + rest, "$ref");
      if (document) return std::move(*document);
    }
    return std::nullopt;
  });
}

}  // namespace weld::schema
