// Hooks (docs/run.md, "Hooks"). Command hooks run `bash -c` with the call's JSON on
// stdin through the subprocess runner (own process group, timeout, no
// provider keys); HTTP hooks POST the same JSON through the provider's
// transport. Hooks never crash or stall a run: a failing hook is ignored, except
// a PreToolUse command hook exiting 2, which blocks the call.

#include "weld/agent/hooks.h"

#include <re2/re2.h>

#include <algorithm>
#include <chrono>

#include "weld/agent/output.h"
#include "weld/agent/subprocess.h"
#include "weld/json/serialize.h"

namespace weld::agent {
namespace {

constexpr std::size_t kMaxHookOutput = 64 * 1024;

Status parse_event(const json::Value& list, const std::string& field, const std::string& file,
                   std::vector<HookMatcher>& out) {
  auto bad = [&](const std::string& what) {
    return Error{ErrorCode::Config, "Settings file \"" + file + "\": " + what, file};
  };
  if (!list.is_array()) return bad(field + " must be an array.");
  for (std::size_t i = 0; i < list.as_array().size(); ++i) {
    const json::Value& entry = list.as_array()[i];
    std::string at = field + "[" + std::to_string(i) + "]";
    if (!entry.is_object()) return bad(at + " must be an object.");
    HookMatcher matcher;
    if (const json::Value* m = entry.find("matcher")) {
      if (!m->is_string()) return bad(at + ".matcher must be a string.");
      matcher.matcher = m->as_string();
      if (!matcher.matcher.empty() && matcher.matcher != "*") {
        RE2::Options options;
        options.set_log_errors(false);
        RE2 re(matcher.matcher, options);
        if (!re.ok()) return bad(at + ".matcher is not a valid regular expression: " + re.error());
      }
    }
    const json::Value* hooks = entry.find("hooks");
    if (hooks == nullptr || !hooks->is_array()) return bad(at + ".hooks must be an array.");
    for (std::size_t j = 0; j < hooks->as_array().size(); ++j) {
      const json::Value& h = hooks->as_array()[j];
      std::string hat = at + ".hooks[" + std::to_string(j) + "]";
      if (!h.is_object()) return bad(hat + " must be an object.");
      HookCommand command;
      const json::Value* type = h.find("type");
      if (type == nullptr || !type->is_string() || (type->as_string() != "command" && type->as_string() != "http")) {
        return bad(hat + ".type must be \"command\" or \"http\".");
      }
      command.type = type->as_string();
      const char* key = command.type == "command" ? "command" : "url";
      const json::Value* target = h.find(key);
      if (target == nullptr || !target->is_string() || target->as_string().empty()) {
        return bad(hat + "." + key + " must be a non-empty string.");
      }
      (command.type == "command" ? command.command : command.url) = target->as_string();
      if (const json::Value* t = h.find("timeout")) {
        if (!t->is_number() || t->as_double() <= 0 || t->as_double() > 3600) {
          return bad(hat + ".timeout must be a number of seconds between 0 and 3600.");
        }
        command.timeout_seconds = static_cast<int>(t->as_double() + 0.999);
      }
      matcher.hooks.push_back(std::move(command));
    }
    out.push_back(std::move(matcher));
  }
  return Ok{};
}

bool matches(const std::string& matcher, const std::string& tool) {
  if (matcher.empty() || matcher == "*") return true;
  RE2::Options options;
  options.set_log_errors(false);
  RE2 re(matcher, options);
  return re.ok() && RE2::FullMatch(tool, re);
}

struct CommandResult {
  int exit_code = -1;  ///< -1: did not run to completion (timeout, cancel, spawn failure)
  std::string stderr_text;
};

// Runs `bash -c command` with `input` on stdin; bounded by `timeout_seconds`
// and `cancel`. Through the one subprocess runner: no provider keys in its
// environment, and its background jobs killed when it ends.
CommandResult run_command(const std::string& command, const std::string& input, const std::string& cwd,
                          int timeout_seconds, const provider::CancelToken* cancel) {
  SubprocessOptions options;
  options.argv = {"/bin/bash", "-c", command};
  options.cwd = cwd;
  options.stdin_mode = SubprocessOptions::Input::Data;
  options.input = input;
  options.stdout_mode = SubprocessOptions::Output::Null;
  options.stderr_mode = SubprocessOptions::Output::Pipe;
  SubprocessRun ran = run_subprocess(options, {std::chrono::seconds(timeout_seconds), cancel, kMaxHookOutput});
  CommandResult result;
  if (ran.end == SubprocessRun::End::Exited) result.exit_code = ran.exit_code;
  result.stderr_text = std::move(ran.error_output);
  return result;
}

// Discards a notification hook's answer (only its arrival matters).
class DiscardSink final : public provider::ResponseSink {
 public:
  void on_headers(int, const provider::HttpHeaders&) override {}
  bool on_body(std::string_view chunk) override {
    received_ += chunk.size();
    return received_ <= kMaxHookOutput;
  }

 private:
  std::size_t received_ = 0;
};

}  // namespace

Status parse_hooks(const json::Value& hooks, const std::string& file, HookSettings& out) {
  if (!hooks.is_object()) return Error{ErrorCode::Config, "Settings file \"" + file + "\": hooks must be an object.", file};
  for (const auto& member : hooks.as_object()) {
    std::vector<HookMatcher>* target = nullptr;
    if (member.key == "PreToolUse") target = &out.pre_tool_use;
    if (member.key == "PostToolUse") target = &out.post_tool_use;
    if (member.key == "PostToolUseFailure") target = &out.post_tool_use_failure;
    if (target == nullptr) continue;  // other events belong to other tools' settings
    if (Status s = parse_event(member.value, "hooks." + member.key, file, *target); !s) return s;
  }
  return Ok{};
}

HookRunner::HookRunner(HookSettings settings, std::string session_id, std::string cwd,
                       provider::NetworkSettings network)
    : settings_(std::move(settings)), session_id_(std::move(session_id)), cwd_(std::move(cwd)),
      network_(std::move(network)) {}

HookRunner::~HookRunner() = default;

void HookRunner::post_json(const std::string& url, const std::string& body, int timeout_seconds,
                           const provider::CancelToken* cancel) const {
  // Through the provider's transport (its proxy and CA settings, its
  // cancellation); a failing notification hook never stops the run.
  std::lock_guard lock(transport_mutex_);
  if (!transport_) transport_ = transport_factory_ ? transport_factory_() : provider::make_curl_transport(network_);
  provider::HttpRequest request;
  request.url = url;
  request.headers = {{"Content-Type", "application/json"}};
  request.body = body;
  request.connect_timeout = std::chrono::seconds(std::min(timeout_seconds, 10));
  request.idle_timeout = std::chrono::seconds(timeout_seconds);
  DiscardSink sink;
  provider::CancelToken never;
  // perform() only reads the token; the run's own one makes a signal stop the POST.
  provider::CancelToken& token = cancel != nullptr ? const_cast<provider::CancelToken&>(*cancel) : never;
  (void)transport_->perform(request, sink, token);
}

json::Value HookRunner::describe_call(std::string_view event, const provider::ToolCall& call) const {
  return json::Object{{"session_id", session_id_},
                      {"hook_event_name", event},
                      {"cwd", cwd_},
                      {"tool_name", call.name},
                      {"tool_use_id", call.id},
                      {"tool_input", arguments_value(call.arguments)}};
}

HookRunner::Decision HookRunner::pre_tool_use(const provider::ToolCall& call,
                                              const provider::CancelToken* cancel) const {
  Decision decision;
  if (settings_.pre_tool_use.empty()) return decision;
  std::string input = json::serialize(describe_call("PreToolUse", call));
  for (const auto& matcher : settings_.pre_tool_use) {
    if (!matches(matcher.matcher, call.name)) continue;
    for (const auto& hook : matcher.hooks) {
      if (hook.type == "http") {
        post_json(hook.url, input, hook.timeout_seconds, cancel);
        continue;
      }
      CommandResult r = run_command(hook.command, input, cwd_, hook.timeout_seconds, cancel);
      if (r.exit_code == 2) {
        decision.blocked = true;
        decision.message = r.stderr_text.empty() ? "Blocked by a PreToolUse hook." : r.stderr_text;
        while (!decision.message.empty() && decision.message.back() == '\n') decision.message.pop_back();
        return decision;
      }
    }
  }
  return decision;
}

void HookRunner::post_tool_use(const provider::ToolCall& call, const ToolOutput& output,
                               const provider::CancelToken* cancel) const {
  const auto& list = output.is_error ? settings_.post_tool_use_failure : settings_.post_tool_use;
  if (list.empty()) return;
  json::Value description = describe_call(output.is_error ? "PostToolUseFailure" : "PostToolUse", call);
  description.set("tool_response", json::Object{{"content", output.content}, {"is_error", output.is_error}});
  std::string input = json::serialize(description);
  for (const auto& matcher : list) {
    if (!matches(matcher.matcher, call.name)) continue;
    for (const auto& hook : matcher.hooks) {
      if (hook.type == "http") post_json(hook.url, input, hook.timeout_seconds, cancel);
      else (void)run_command(hook.command, input, cwd_, hook.timeout_seconds, cancel);
    }
  }
}

}  // namespace weld::agent
