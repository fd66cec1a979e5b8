#pragma once
/// \file
/// A `Resolver` that answers remote `$ref`s from local folders: documents
/// under DIR answer for URIs under PREFIX (`weld schema --resolve
/// PREFIX=DIR`, the C API's `weld_options_add_resolve_dir`).
///
/// \code
///   weld::schema::CompileOptions options;
///   options.resolver = weld::schema::directory_resolver({{"http://localhost:1234/", "suite/remotes"}});
/// \endcode

#include <string>
#include <utility>
#include <vector>

#include "weld/base/result.h"
#include "weld/schema/schema.h"

namespace weld::schema {

/// One mapping: URIs starting with `prefix` are files under `dir`.
struct DirectoryMapping {
  std::string prefix;
  std::string dir;
};

/// A resolver over `mappings`, tried in order: the URI (without fragment)
/// minus the prefix names a file under the folder; `..` never leaves it.
/// Files that are missing, not regular, larger than kMaxSchemaFileBytes or
/// not JSON do not resolve (the compiler then names the URI). An empty list
/// gives an empty Resolver (no remote `$ref` resolves).
Resolver directory_resolver(std::vector<DirectoryMapping> mappings);

/// Parses `PREFIX=DIR` (the `--resolve` value); an Error names a malformed one.
Result<DirectoryMapping> parse_directory_mapping(const std::string& spec);

}  // namespace weld::schema
