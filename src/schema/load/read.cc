// docs/schema.md, "Reading --json-schema VALUE", steps 1-4: trim, @path (stat before open, 4 MiB cap), parse
// (read_json_argument), must be an object (read_schema_argument). Messages are the documented ones, word for word; a file's
// content never appears in one (a secret file must not leak to stderr).

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <optional>
#include <filesystem>
#include <system_error>

#include "weld/json/parse.h"
#include "weld/json/utf8.h"
#include "weld/base/read_file.h"
#include "weld/schema/load.h"
#include "weld/base/text.h"

namespace weld::schema {
namespace {

Error config_error(std::string message, std::string where = {}) {
  return Error{ErrorCode::Config, std::move(message), std::move(where)};
}


// `~`, `~/…` -> $HOME; relative -> against cwd; then lexically normalised.
std::string absolute_path(std::string_view path, const std::string& cwd) {
  std::filesystem::path p;
  if (path == "~" || path.substr(0, 2) == "~/") {
    const char* home = std::getenv("HOME");  // read-only; the process environment
    p = std::filesystem::path(home ? home : "/") / std::string(path.substr(path == "~" ? 1 : 2));
  } else {
    p = std::filesystem::path(std::string(path));
  }
  if (p.is_relative()) {
    std::error_code ignored;
    std::filesystem::path base = cwd.empty() ? std::filesystem::current_path(ignored) : std::filesystem::path(cwd);
    p = base / p;
  }
  std::string text = p.lexically_normal().string();
  while (text.size() > 1 && text.back() == '/') text.pop_back();
  return text;
}

std::string quote_path(const std::string& path) { return "\"" + path + "\""; }

// Reads a regular file of at most kMaxSchemaFileBytes (the one bounded
// read, weld/base/read_file.h), with the flag's own messages.
Result<std::string> read_schema_file(const std::string& path, std::string_view flag) {
  std::string f(flag);
  std::uint64_t size = 0;
  Result<std::string> content = read_regular_file(path, kMaxSchemaFileBytes, &size);
  if (content) return content;
  const Error& error = content.error();
  if (error.code == ErrorCode::NotRegular) return config_error(f + " \"@" + path + "\" must be a regular file.", path);
  if (error.code == ErrorCode::TooLarge) {
    return config_error(f + " file " + quote_path(path) + " is " + std::to_string(size) + " bytes (>" +
                            std::to_string(kMaxSchemaFileBytes) +
                            "). Refusing to read; this is almost certainly a wrong-path argument.",
                        path);
  }
  return config_error(f + " " + error.message, path);
}

// A parse error's text without the character it quotes ("unexpected
// character 'x'" → "unexpected character"): a file's content (a secret
// given by mistake) never reaches stderr.
std::string without_quoted_text(const std::string& message) {
  for (std::string_view quoting : {"unexpected character '", "invalid escape '"}) {
    if (message.rfind(quoting, 0) == 0) return std::string(quoting.substr(0, quoting.size() - 2));
  }
  return message;
}

}  // namespace

Result<json::Value> read_json_argument(std::string_view value, std::string_view flag, const std::string& cwd) {
  std::string f(flag);
  std::string_view text = trim(value);
  if (text.empty()) return config_error(f + " cannot be empty.");
  Result<json::Value> document = json::Value();
  // A path without the @ (as `weld schema`, `weld sample` and Codex's
  // --output-schema take it): a value that is not JSON and names a file is
  // read as that file.
  std::optional<std::string> bare_path;
  if (text.front() != '@' && text.front() != '{' && text.front() != '[' && !json::parse(text)) {
    std::string path = absolute_path(text, cwd);
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
      return config_error(f + " is neither JSON nor a file: \"" + std::string(text) + "\" does not parse as JSON, and " +
                              quote_path(path) + " does not exist (inline JSON, @path and a path are accepted).",
                          path);
    }
    bare_path = std::move(path);
  }
  if (text.front() == '@' || bare_path) {
    std::string path = bare_path ? *bare_path : absolute_path(trim(text.substr(1)), cwd);
    Result<std::string> content = read_schema_file(path, flag);
    if (!content) return content.error();
    std::string_view body = *content;
    if (body.substr(0, 3) == "\xEF\xBB\xBF") body.remove_prefix(3);  // a UTF-8 byte order mark
    // Generic on purpose: never quote the file (it may hold a secret).
    if (!json::is_valid_utf8(body)) return config_error(f + " content of " + quote_path(path) + " is not valid JSON.", path);
    document = json::parse(body);
    if (!document && document.error().code == ErrorCode::Depth) {
      // Says why and where without quoting the file.
      return config_error(f + " content of " + quote_path(path) + " is not valid JSON: " + document.error().message +
                              " at " + document.error().where + ".",
                          path);
    }
    // Where, never what: the message names no character of the file.
    if (!document) {
      return config_error(f + " content of " + quote_path(path) + " is not valid JSON: " +
                              without_quoted_text(document.error().message) + " at " + document.error().where + ".",
                          path);
    }
  } else {
    document = json::parse(text);
    if (!document) {
      const Error& e = document.error();
      return config_error(f + " is not valid JSON: " + e.message + (e.where.empty() ? "" : " at " + e.where));
    }
  }
  return document;
}

Result<json::Value> read_schema_argument(std::string_view value, std::string_view flag, const std::string& cwd) {
  Result<json::Value> document = read_json_argument(value, flag, cwd);
  if (document && !document->is_object()) {
    return config_error(std::string(flag) + " must be a JSON object describing a schema.");
  }
  return document;
}

}  // namespace weld::schema
