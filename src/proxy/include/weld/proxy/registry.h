#pragma once
/// \file
/// The agent registry (docs/proxy.md, "The registry"): `agents.json` in the
/// format of the proxy plugin weld replaces —
/// each key an agent name, each value `{"description": …, "input_schema":
/// {…}}` — plus weld's optional fields `max_retries` (default 2), `clamp`
/// (default true), `mode` (`forced` | `two_phase`) and `mechanism` (`tool` |
/// `native` | `auto`). Every schema is compiled strictly when loaded.
///
/// \code
///   weld::Result<weld::proxy::RegistryPtr> r = weld::proxy::load_registry_file("agents.json");
///   if (!r) { std::cerr << r.error().message << "\n"; return 1; }  // names the agent
///   const weld::proxy::Agent* router = (*r)->find("router");
/// \endcode

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "weld/base/result.h"
#include "weld/json/value.h"
#include "weld/proxy/weld.h"

namespace weld::proxy {

/// An immutable, compiled set of agents. Shared read-only between worker
/// threads; a reload builds a new one and swaps the pointer.
class Registry {
 public:
  /// The agent called `name`, or nullptr.
  const Agent* find(std::string_view name) const;
  /// Agents in file order.
  const std::vector<Agent>& agents() const { return agents_; }
  /// Names in file order, e.g. for the "unknown agent" error.
  std::vector<std::string> names() const;
  /// Compile warnings ("agent \"x\": …"), for the log.
  const std::vector<std::string>& warnings() const { return warnings_; }
  /// Where it came from (a path, or "built-in default").
  const std::string& origin() const { return origin_; }

 private:
  friend Result<std::shared_ptr<const Registry>> load_registry(std::string_view, std::string_view);
  std::vector<Agent> agents_;
  std::vector<std::string> warnings_;
  std::string origin_;
};

using RegistryPtr = std::shared_ptr<const Registry>;

/// Parses and strictly compiles registry JSON text. On failure the error's
/// message names the agent and the problem, e.g.
/// `agents.json: agent "router": input_schema is not a valid JSON Schema: …`
/// (code "registry", `where` = the agent name, or "" for the file).
Result<RegistryPtr> load_registry(std::string_view text, std::string_view origin);

/// Reads `path` (a regular file, at most 16 MiB) and loads it.
Result<RegistryPtr> load_registry_file(const std::string& path);

/// The JSON text of the default registry: the four shapes of the proxy plugin weld replaces
/// (`router`, `advisor`, `ticket`, `brief`). Same content as config/agents.json.
std::string_view default_registry_text();

/// Agent names must be usable as tool names and in a model suffix:
/// 1-64 characters of [A-Za-z0-9_-].
bool is_valid_agent_name(std::string_view name);

}  // namespace weld::proxy
