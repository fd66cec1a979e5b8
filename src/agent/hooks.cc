// Hooks (SPEC §2.7). Command hooks run `bash -c` with the call's JSON on
// stdin, in their own process group, with a timeout; HTTP hooks POST the same
// JSON. Hooks never crash or stall a run: a failing hook is ignored, except
// a PreToolUse command hook exiting 2, which blocks the call.

#include "weld/agent/hooks.h"

#include <curl/curl.h>
#include <fcntl.h>
#include <poll.h>
#include <re2/re2.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>

#include "weld/json/serialize.h"
#include "weld/agent/output.h"

namespace weld::agent {
namespace {

constexpr std::size_t kMaxHookOutput = 64 * 1024;

Status parse_event(const json::Value& list, const std::string& field, const std::string& file,
                   std::vector<HookMatcher>& out) {
  auto bad = [&](const std::string& what) {
    return Error{"config", "Settings file \"" + file + "\": " + what, file};
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
// and `cancel`.
CommandResult run_command(const std::string& command, const std::string& input, const std::string& cwd,
                          int timeout_seconds, const provider::CancelToken* cancel) {
  CommandResult result;
  char input_path[] = "/tmp/weld-hook-input-XXXXXX";
  int input_fd = ::mkstemp(input_path);
  if (input_fd < 0) return result;
  ::unlink(input_path);  // the open descriptor keeps it alive
  if (::write(input_fd, input.data(), input.size()) != static_cast<ssize_t>(input.size())) {
    ::close(input_fd);
    return result;
  }
  ::lseek(input_fd, 0, SEEK_SET);
  int err_pipe[2];
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
    ::close(input_fd);
    return result;
  }
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(input_fd);
    ::close(err_pipe[0]);
    ::close(err_pipe[1]);
    return result;
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::signal(SIGPIPE, SIG_DFL);
    ::dup2(input_fd, 0);
    int devnull = ::open("/dev/null", O_WRONLY);
    if (devnull >= 0) ::dup2(devnull, 1);
    ::dup2(err_pipe[1], 2);
    if (::chdir(cwd.c_str()) != 0) ::_exit(126);
    ::execl("/bin/bash", "bash", "-c", command.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  ::close(input_fd);
  ::close(err_pipe[1]);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  bool killed = false;
  char buffer[4096];
  for (;;) {
    if ((cancel != nullptr && cancel->cancelled.load()) || std::chrono::steady_clock::now() >= deadline) {
      killed = true;
      break;
    }
    pollfd pfd{err_pipe[0], POLLIN, 0};
    int ready = ::poll(&pfd, 1, 50);
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    ssize_t n = ::read(err_pipe[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    if (result.stderr_text.size() < kMaxHookOutput) {
      result.stderr_text.append(buffer, std::min<std::size_t>(static_cast<std::size_t>(n), kMaxHookOutput - result.stderr_text.size()));
    }
  }
  ::close(err_pipe[0]);
  if (killed) ::kill(-pid, SIGKILL);
  int status = 0;
  for (int i = 0; i < 300; ++i) {
    pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) {
      if (!killed && WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
      return result;
    }
    if (r < 0) return result;
    if (i == 100) ::kill(-pid, SIGKILL);
    ::usleep(10000);
  }
  return result;
}

size_t discard(char*, size_t size, size_t count, void*) { return size * count; }

void post_json(const std::string& url, const std::string& body, int timeout_seconds) {
  CURL* easy = curl_easy_init();
  if (easy == nullptr) return;
  curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
  curl_easy_setopt(easy, CURLOPT_URL, url.c_str());
  curl_easy_setopt(easy, CURLOPT_POSTFIELDS, body.c_str());
  curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
  curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(easy, CURLOPT_TIMEOUT, static_cast<long>(timeout_seconds));
  curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, discard);
  curl_easy_perform(easy);  // a failing notification hook never stops the run
  curl_slist_free_all(headers);
  curl_easy_cleanup(easy);
}

}  // namespace

Status parse_hooks(const json::Value& hooks, const std::string& file, HookSettings& out) {
  if (!hooks.is_object()) return Error{"config", "Settings file \"" + file + "\": hooks must be an object.", file};
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

HookRunner::HookRunner(HookSettings settings, std::string session_id, std::string cwd)
    : settings_(std::move(settings)), session_id_(std::move(session_id)), cwd_(std::move(cwd)) {}

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
        post_json(hook.url, input, hook.timeout_seconds);
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
      if (hook.type == "http") post_json(hook.url, input, hook.timeout_seconds);
      else (void)run_command(hook.command, input, cwd_, hook.timeout_seconds, cancel);
    }
  }
}

}  // namespace weld::agent
