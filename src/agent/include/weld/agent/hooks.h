#pragma once
/// \file
/// Hooks from settings (docs/run.md, "Hooks"): `PreToolUse`, `PostToolUse`,
/// `PostToolUseFailure`, each a list of
/// `{"matcher": "write_file|edit", "hooks": [{"type":"command","command":"…","timeout":60}
///                                           | {"type":"http","url":"…"}]}`.
/// A hook gets a JSON description of the call on stdin (or as the POST
/// body), with the raw arguments — `structured_output` included (hooks see
/// what the tool sees: that is their contract). A `PreToolUse` command hook that exits 2
/// blocks the call; its stderr goes back to the model as the tool result.
///
/// \code
///   weld::agent::HookRunner hooks(settings.hooks, session_id, cwd);
///   auto decision = hooks.pre_tool_use(call, &cancel);
///   if (decision.blocked) result = {decision.message, true};
/// \endcode

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "weld/agent/tool.h"
#include "weld/base/result.h"
#include "weld/json/value.h"
#include "weld/provider/http.h"
#include "weld/provider/model.h"

namespace weld::agent {

/// One hook: a command (run with `bash -c`) or an HTTP endpoint (POSTed to).
struct HookCommand {
  std::string type;  ///< "command" or "http"
  std::string command;
  std::string url;
  int timeout_seconds = 60;
};

/// Hooks that run for tools whose name the matcher matches (a regular
/// expression over the whole name; "" or "*" match every tool).
struct HookMatcher {
  std::string matcher;
  std::vector<HookCommand> hooks;
};

/// The `hooks` section of the settings.
struct HookSettings {
  std::vector<HookMatcher> pre_tool_use;
  std::vector<HookMatcher> post_tool_use;
  std::vector<HookMatcher> post_tool_use_failure;
  bool empty() const { return pre_tool_use.empty() && post_tool_use.empty() && post_tool_use_failure.empty(); }
};

/// Parses a settings file's `hooks` object, appending to `out`. Errors name
/// the file and the field.
Status parse_hooks(const json::Value& hooks, const std::string& file, HookSettings& out);

/// Runs hooks for tool calls.
class HookRunner {
 public:
  /// `network`: proxy and CA settings for HTTP hooks (as the provider's).
  HookRunner(HookSettings settings, std::string session_id, std::string cwd, provider::NetworkSettings network = {});
  ~HookRunner();
  /// Replaces the HTTP transport of HTTP hooks (tests).
  void set_transport_factory(std::function<std::unique_ptr<provider::Transport>()> factory) {
    transport_factory_ = std::move(factory);
  }

  /// The outcome of the PreToolUse hooks.
  struct Decision {
    bool blocked = false;
    /// The blocking hook's stderr (what the model sees).
    std::string message;
  };

  /// Runs the PreToolUse hooks that match `call.name`, in order, until one blocks.
  Decision pre_tool_use(const provider::ToolCall& call, const provider::CancelToken* cancel) const;
  /// Runs PostToolUse (or PostToolUseFailure when `output.is_error`) hooks.
  void post_tool_use(const provider::ToolCall& call, const ToolOutput& output,
                     const provider::CancelToken* cancel) const;

  /// True when no hook is configured.
  bool empty() const { return settings_.empty(); }

 private:
  json::Value describe_call(std::string_view event, const provider::ToolCall& call) const;
  void post_json(const std::string& url, const std::string& body, int timeout_seconds,
                 const provider::CancelToken* cancel) const;
  HookSettings settings_;
  std::string session_id_;
  std::string cwd_;
  provider::NetworkSettings network_;
  std::function<std::unique_ptr<provider::Transport>()> transport_factory_;
  mutable std::mutex transport_mutex_;
  mutable std::unique_ptr<provider::Transport> transport_;
};

}  // namespace weld::agent
