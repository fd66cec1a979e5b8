// Mechanisms (docs/run.md, "Mechanisms"): the small cache that remembers whether an upstream
// really enforces a response_format / output_config.format (the probe that
// tells, shared with the proxy, is provider/native_probe.cc), so that only
// the first `--mechanism auto` run against a server pays for it. Servers
// silently ignore constraints they do not support (the seed's measured vLLM
// table), hence a probe, not a list.

#include "weld/agent/mechanism.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "weld/base/read_file.h"
#include "weld/json/parse.h"
#include "weld/json/serialize.h"

namespace weld::agent {

std::optional<Mechanism> parse_mechanism(std::string_view text) {
  if (text == "tool") return Mechanism::Tool;
  if (text == "native") return Mechanism::Native;
  if (text == "auto") return Mechanism::Auto;
  return std::nullopt;
}

std::string_view mechanism_name(Mechanism mechanism) {
  switch (mechanism) {
    case Mechanism::Tool: return "tool";
    case Mechanism::Native: return "native";
    case Mechanism::Auto: return "auto";
  }
  return "tool";
}

std::string mechanism_cache_path(const std::string& home) { return home + "/.weld/mechanisms.json"; }

std::string mechanism_cache_key(provider::Provider provider, std::string_view base_url, std::string_view model) {
  std::string base(base_url);
  while (!base.empty() && base.back() == '/') base.pop_back();
  return std::string(provider::provider_name(provider)) + " " + base + " " + std::string(model);
}

namespace {

std::optional<json::Value> read_cache_document(const std::string& path) {
  Result<std::string> text = read_regular_file(path, 4 * 1024 * 1024);  // a cache: unreadable means empty
  if (!text) return std::nullopt;
  Result<json::Value> doc = json::parse(*text);
  if (!doc || !doc->is_object()) return std::nullopt;
  return std::move(*doc);
}

}  // namespace

std::optional<bool> read_mechanism_cache(const std::string& path, const std::string& key, std::int64_t now_seconds) {
  std::optional<json::Value> doc = read_cache_document(path);
  if (!doc) return std::nullopt;
  const json::Value* entries = doc->find("entries");
  if (!entries || !entries->is_object()) return std::nullopt;
  const json::Value* entry = entries->find(key);
  if (!entry || !entry->is_object()) return std::nullopt;
  const json::Value* native = entry->find("native");
  const json::Value* probed = entry->find("probed_at");
  if (!native || !native->is_bool() || !probed || !probed->is_integer()) return std::nullopt;
  std::int64_t age = now_seconds - probed->as_integer();
  if (age < 0 || age > kMechanismCacheMaxAgeSeconds) return std::nullopt;
  return native->as_bool();
}

Status write_mechanism_cache(const std::string& path, const std::string& key, bool native, std::int64_t now_seconds) {
  namespace fs = std::filesystem;
  json::Value doc = read_cache_document(path).value_or(json::Object{});
  if (!doc.find("entries") || !doc.find("entries")->is_object()) doc.set("entries", json::Object{});
  doc.set("version", 1);
  doc.find("entries")->set(key, json::Object{{"native", native}, {"probed_at", now_seconds}});
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  if (ec) return Error{ErrorCode::Io, "could not create " + fs::path(path).parent_path().string() + ": " + ec.message(), path};
  std::string temporary = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) return Error{ErrorCode::Io, "could not write " + temporary + ": " + std::strerror(errno), path};
    out << json::serialize(doc) << '\n';
    if (!out.flush()) return Error{ErrorCode::Io, "could not write " + temporary, path};
  }
  fs::rename(temporary, path, ec);
  if (ec) {
    fs::remove(temporary, ec);
    return Error{ErrorCode::Io, "could not replace " + path + ": " + ec.message(), path};
  }
  return Ok{};
}

}  // namespace weld::agent
