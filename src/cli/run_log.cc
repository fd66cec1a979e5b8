// --verbose, --debug and --debug-file (run_log.h).

#include "run_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "usage.h"
#include "weld/base/ascii.h"

namespace weld::cli {
namespace {

// Bodies are cut to this many bytes in the debug log.
constexpr std::size_t kDebugBodyBytes = 4096;

std::string cut(std::string_view body) {
  if (body.size() <= kDebugBodyBytes) return std::string(body);
  return std::string(body.substr(0, kDebugBodyBytes)) + "… [" + std::to_string(body.size() - kDebugBodyBytes) +
         " more bytes]";
}

// Headers that carry credentials: their values are never logged.
bool secret_header(std::string_view name) {
  const std::string lower = ascii_lower(std::string(name));
  return lower == "authorization" || lower == "proxy-authorization" || lower == "cookie" || lower == "set-cookie" ||
         lower.find("key") != std::string::npos || lower.find("token") != std::string::npos ||
         lower.find("secret") != std::string::npos;
}

std::string headers_text(const provider::HttpHeaders& headers, char arrow) {
  std::string out;
  for (const auto& [name, value] : headers) {
    out += std::string(1, arrow) + " " + name + ": " + (secret_header(name) ? "[REDACTED]" : value) + "\n";
  }
  return out;
}

std::string first_line(std::string_view text, std::size_t most = 200) {
  std::string_view line = text.substr(0, text.find('\n'));
  if (line.size() > most) return std::string(line.substr(0, most)) + "…";
  return std::string(line);
}

// Passes a response on, keeping its status, headers and the first bytes of
// its body for the log.
class LoggingSink : public provider::ResponseSink {
 public:
  explicit LoggingSink(provider::ResponseSink& inner) : inner_(inner) {}
  void on_headers(int status, const provider::HttpHeaders& headers) override {
    status_ = status;
    headers_ = headers;
    inner_.on_headers(status, headers);
  }
  bool on_body(std::string_view chunk) override {
    bytes_ += chunk.size();
    if (body_.size() < kDebugBodyBytes) body_.append(chunk.substr(0, kDebugBodyBytes - body_.size()));
    return inner_.on_body(chunk);
  }
  bool last_chunk_was_progress() const override { return inner_.last_chunk_was_progress(); }
  bool complete() const override { return inner_.complete(); }

  int status_ = 0;
  provider::HttpHeaders headers_;
  std::string body_;
  std::size_t bytes_ = 0;

 private:
  provider::ResponseSink& inner_;
};

const char* kind_name(provider::TransportOutcome::Kind kind) {
  using Kind = provider::TransportOutcome::Kind;
  switch (kind) {
    case Kind::Complete: return "complete";
    case Kind::ConnectFailed: return "could not connect";
    case Kind::ConnectTimeout: return "connect timeout";
    case Kind::IdleTimeout: return "idle timeout";
    case Kind::ConnectionLost: return "connection lost";
    case Kind::Tls: return "TLS failure";
    case Kind::Cancelled: return "cancelled";
    case Kind::Aborted: return "stopped by weld";
    case Kind::Other: return "failed";
  }
  return "failed";
}

class LoggingTransport : public provider::Transport {
 public:
  LoggingTransport(std::unique_ptr<provider::Transport> inner, RunLog& log) : inner_(std::move(inner)), log_(log) {}

  provider::TransportOutcome perform(const provider::HttpRequest& request, provider::ResponseSink& sink,
                                     provider::CancelToken& cancel) override {
    const std::string url = provider::url_for_messages(request.url);
    if (log_.verbose()) {
      if (!last_failure_.empty()) log_.step("sending again after " + last_failure_);
      log_.step("request: " + request.method + " " + url + " (" + std::to_string(request.body.size()) + " bytes)");
    }
    if (log_.debugging()) {
      log_.debug("> " + request.method + " " + url + "\n" + headers_text(request.headers, '>') + "\n" +
                 cut(request.body) + "\n");
    }
    LoggingSink logged(sink);
    const auto started = std::chrono::steady_clock::now();
    provider::TransportOutcome outcome = inner_->perform(request, logged, cancel);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    char took[32];
    std::snprintf(took, sizeof took, "%.2f s", seconds);
    last_failure_.clear();
    if (outcome.got_headers) {
      if (log_.verbose()) {
        log_.step("response: HTTP " + std::to_string(logged.status_) + ", " + std::to_string(logged.bytes_) +
                  " bytes in " + took + (outcome.kind == provider::TransportOutcome::Kind::Complete
                                             ? std::string()
                                             : std::string(" (") + kind_name(outcome.kind) + ")"));
      }
      if (logged.status_ >= 400 || outcome.kind != provider::TransportOutcome::Kind::Complete)
        last_failure_ = "HTTP " + std::to_string(logged.status_) + (outcome.kind ==
            provider::TransportOutcome::Kind::Complete ? std::string() : std::string(", ") + kind_name(outcome.kind));
      if (log_.debugging()) {
        log_.debug("< HTTP " + std::to_string(logged.status_) + " (" + took + ")\n" +
                   headers_text(logged.headers_, '<') + "\n" + cut(logged.body_) +
                   (logged.bytes_ > logged.body_.size()
                        ? "… [" + std::to_string(logged.bytes_ - logged.body_.size()) + " more bytes]"
                        : std::string()) +
                   "\n");
      }
    } else {
      last_failure_ = std::string(kind_name(outcome.kind)) + (outcome.detail.empty() ? "" : ": " + outcome.detail);
      if (log_.verbose()) log_.step("request failed after " + std::string(took) + ": " + last_failure_);
      if (log_.debugging()) log_.debug("< (no response: " + last_failure_ + ")\n");
    }
    return outcome;
  }

 private:
  std::unique_ptr<provider::Transport> inner_;
  RunLog& log_;
  std::string last_failure_;
};

}  // namespace

Result<std::unique_ptr<RunLog>> RunLog::open(const RunLogFlags& flags, std::vector<std::string> secrets) {
  std::FILE* file = nullptr;
  if (flags.debug_file) {
    int fd = ::open(flags.debug_file->c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0) {
      return Error{ErrorCode::Io, "--debug-file: could not open \"" + *flags.debug_file + "\": " + std::strerror(errno) + ".",
                   *flags.debug_file};
    }
    file = ::fdopen(fd, "a");
    if (file == nullptr) {
      ::close(fd);
      return Error{ErrorCode::Io, "--debug-file: could not open \"" + *flags.debug_file + "\".", *flags.debug_file};
    }
  }
  return std::unique_ptr<RunLog>(new RunLog(flags, std::move(secrets), file));
}

RunLog::~RunLog() {
  if (debug_file_ != nullptr) std::fclose(debug_file_);
}

std::string RunLog::redacted(std::string text) const {
  for (const std::string& secret : secrets_) text = provider::redact(text, secret);
  return text;
}

void RunLog::step(const std::string& text) {
  std::lock_guard<std::mutex> lock(mutex_);
  write_stderr_lines("weld: ", redacted(text) + "\n");
}

void RunLog::debug(const std::string& text) {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::string clean = redacted(text);
  if (debug_file_ != nullptr) {
    std::fwrite(clean.data(), 1, clean.size(), debug_file_);
    std::fflush(debug_file_);
  } else {
    write_stderr_lines("weld: debug: ", clean);
  }
}

std::unique_ptr<provider::Transport> RunLog::wrap(std::unique_ptr<provider::Transport> inner) {
  if (!flags_.verbose && !debugging()) return inner;
  return std::make_unique<LoggingTransport>(std::move(inner), *this);
}

void RunLog::on_start(const agent::RunStart& start) {
  if (note_mechanism_ && start.json_schema) step("--mechanism auto: using " + start.mechanism);
  if (!flags_.verbose) return;
  std::string tools;
  for (const std::string& tool : start.tools) tools += (tools.empty() ? "" : ", ") + tool;
  step("model " + start.model + " (" + start.provider + ")" +
       (start.json_schema ? ", mechanism " + start.mechanism : std::string()) + "; tools: " +
       (tools.empty() ? std::string("none") : tools));
}

void RunLog::on_assistant(const provider::Response& response, int turn) {
  if (!flags_.verbose) return;
  std::string calls;
  for (const provider::ToolCall& call : response.message.tool_calls) calls += (calls.empty() ? "" : ", ") + call.name;
  step("turn " + std::to_string(turn) + ": the model answered" +
       (calls.empty() ? " with text (" + std::to_string(response.message.text.size()) + " bytes)"
                      : " with tool calls: " + calls) +
       " (stop reason " + (response.stop_reason.empty() ? "none" : response.stop_reason) + ", " +
       std::to_string(response.usage.input_tokens) + " tokens in, " + std::to_string(response.usage.output_tokens) +
       " out)");
}

void RunLog::on_tool_results(const provider::Message& message) {
  if (!flags_.verbose) return;
  for (const provider::ToolResult& result : message.tool_results) {
    if (result.is_error) step("tool result (error) sent back: " + first_line(result.content));
  }
  // The native mechanism sends a failed validation back as user text.
  if (message.tool_results.empty() && !message.text.empty()) step("sent back to the model: " + first_line(message.text));
}

void RunLog::finish(const agent::RunOutcome& outcome) {
  if (!flags_.verbose) return;
  for (const auto& repair : outcome.repairs) {
    step("repair applied: " + repair.kind + (repair.path.empty() ? "" : " at " + repair.path) +
         (repair.detail.empty() ? "" : " (" + repair.detail + ")"));
  }
  step("ended with exit " + std::to_string(outcome.exit_code) + " after " + std::to_string(outcome.num_turns) +
       " turn(s) and " + std::to_string(outcome.attempts) + " structured attempt(s)");
}

}  // namespace weld::cli
