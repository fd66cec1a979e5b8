// Session transcripts (docs/run.md, "Sessions and privacy"), with the
// answers redacted by default: the payload is already on stdout, and a
// transcript may leave the machine. `--keep-answers` keeps them (the file
// is 0600 either way) so that a resumed run gives the model what it answered.

#include "weld/agent/session_log.h"

#include <sys/stat.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <system_error>

#include "weld/agent/output.h"
#include "weld/base/read_file.h"
#include "weld/json/parse.h"
#include "weld/json/serialize.h"

namespace weld::agent {
namespace fs = std::filesystem;
namespace {

// A transcript larger than this is not resumed (a run's history goes into
// every request; this is far beyond any context window).
constexpr std::uint64_t kMaxTranscriptBytes = 256 * 1024 * 1024;

std::string now_iso8601() {
  auto now = std::chrono::system_clock::now();
  std::time_t t = std::chrono::system_clock::to_time_t(now);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  char out[48];
  std::snprintf(out, sizeof out, "%s.%03dZ", buf, static_cast<int>(ms));
  return out;
}

}  // namespace

json::Value SessionLog::message_json(const provider::Message& message) const {
  json::Value out = json::Object{{"role", message.role == provider::Role::User ? "user" : "assistant"}};
  if (!message.text.empty()) out.set("text", message.text);
  if (!message.tool_calls.empty()) {
    json::Array calls;
    for (const auto& call : message.tool_calls) {
      // The payload is not persisted unless the run keeps answers, failed
      // attempts included.
      std::string arguments = call.name == kStructuredOutputTool && answers_ == Answers::Redacted
                                  ? json::serialize(redacted_payload())
                                  : call.arguments;
      calls.emplace_back(json::Object{{"id", call.id}, {"name", call.name}, {"arguments", arguments}});
    }
    out.set("tool_calls", std::move(calls));
  }
  if (!message.tool_results.empty()) {
    json::Array results;
    for (const auto& r : message.tool_results) {
      results.emplace_back(
          json::Object{{"tool_call_id", r.tool_call_id}, {"content", r.content}, {"is_error", r.is_error}});
    }
    out.set("tool_results", std::move(results));
  }
  return out;
}

json::Value redacted_payload() {
  return json::Object{{"__redacted", "structured_output payload (see stdout result)"}};
}

std::string project_dir(const std::string& home, const std::string& cwd) {
  std::string sanitised = cwd;
  for (char& c : sanitised) {
    bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!keep) c = '-';
  }
  return home + "/.weld/projects/" + sanitised;
}

std::string session_path(const std::string& home, const std::string& cwd, const std::string& session_id) {
  return project_dir(home, cwd) + "/chats/" + session_id + ".jsonl";
}

std::string new_session_id() {
  std::random_device device;
  std::mt19937_64 rng((static_cast<std::uint64_t>(device()) << 32) ^ device() ^
                      static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()));
  std::uint64_t hi = rng();
  std::uint64_t lo = rng();
  hi = (hi & 0xFFFFFFFFFFFF0FFFull) | 0x0000000000004000ull;  // version 4
  lo = (lo & 0x3FFFFFFFFFFFFFFFull) | 0x8000000000000000ull;  // variant 10
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(hi >> 32),
                static_cast<unsigned>((hi >> 16) & 0xFFFF), static_cast<unsigned>(hi & 0xFFFF),
                static_cast<unsigned>(lo >> 48), static_cast<unsigned long long>(lo & 0xFFFFFFFFFFFFull));
  return buf;
}

Result<std::string> newest_session_id(const std::string& home, const std::string& cwd) {
  fs::path chats = fs::path(project_dir(home, cwd)) / "chats";
  std::error_code ec;
  fs::directory_iterator it(chats, ec);
  if (ec) return Error{ErrorCode::Session, "No previous session found for " + cwd + " (looked in " + chats.string() + ").", ""};
  fs::path best;
  fs::file_time_type best_time{};
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) break;
    if (it->path().extension() != ".jsonl") continue;
    std::error_code time_ec;
    auto t = fs::last_write_time(it->path(), time_ec);
    if (time_ec) continue;
    if (best.empty() || t > best_time) {
      best = it->path();
      best_time = t;
    }
  }
  if (best.empty()) return Error{ErrorCode::Session, "No previous session found for " + cwd + " (looked in " + chats.string() + ").", ""};
  return best.stem().string();
}

std::size_t redacted_answers(const std::vector<provider::Message>& history) {
  const std::string placeholder = json::serialize(redacted_payload());
  std::size_t count = 0;
  for (const provider::Message& message : history) {
    if (message.role != provider::Role::Assistant) continue;
    if (message.tool_calls.empty() && message.text == placeholder) ++count;  // a native answer
    for (const provider::ToolCall& call : message.tool_calls)
      if (call.name == kStructuredOutputTool && call.arguments == placeholder) ++count;
  }
  return count;
}

Result<std::vector<provider::Message>> read_session(const std::string& path) {
  // A FIFO or a link to /dev/zero must not hang the run.
  Result<std::string> text = read_regular_file(path, kMaxTranscriptBytes);
  if (!text) return Error{ErrorCode::Session, "Session transcript: " + text.error().message + ".", path};
  std::istringstream in(std::move(*text));
  std::vector<provider::Message> messages;
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty()) continue;
    Result<json::Value> doc = json::parse(line);
    if (!doc || !doc->is_object()) {
      return Error{ErrorCode::Session, "Session transcript \"" + path + "\" line " + std::to_string(line_no) + " is not valid JSON.",
                   path};
    }
    const json::Value* type = doc->find("type");
    const json::Value* m = doc->find("message");
    if (type == nullptr || !type->is_string() || m == nullptr || !m->is_object()) continue;
    if (type->as_string() != "user" && type->as_string() != "assistant") continue;
    provider::Message message;
    message.role = type->as_string() == "user" ? provider::Role::User : provider::Role::Assistant;
    if (const auto* t = m->find("text"); t && t->is_string()) message.text = t->as_string();
    if (const auto* calls = m->find("tool_calls"); calls && calls->is_array()) {
      for (const auto& c : calls->as_array()) {
        provider::ToolCall call;
        if (const auto* v = c.find("id"); v && v->is_string()) call.id = v->as_string();
        if (const auto* v = c.find("name"); v && v->is_string()) call.name = v->as_string();
        if (const auto* v = c.find("arguments"); v && v->is_string()) call.arguments = v->as_string();
        message.tool_calls.push_back(std::move(call));
      }
    }
    if (const auto* results = m->find("tool_results"); results && results->is_array()) {
      for (const auto& r : results->as_array()) {
        provider::ToolResult result;
        if (const auto* v = r.find("tool_call_id"); v && v->is_string()) result.tool_call_id = v->as_string();
        if (const auto* v = r.find("content"); v && v->is_string()) result.content = v->as_string();
        if (const auto* v = r.find("is_error"); v && v->is_bool()) result.is_error = v->as_bool();
        message.tool_results.push_back(std::move(result));
      }
    }
    messages.push_back(std::move(message));
  }
  // A transcript that ends on an assistant turn with tool calls (the
  // accepted structured_output turn, or a cut-off run) needs results for
  // every call before the conversation can go on: the APIs require pairs.
  if (!messages.empty() && messages.back().role == provider::Role::Assistant && !messages.back().tool_calls.empty()) {
    provider::Message results;
    results.role = provider::Role::User;
    for (const auto& call : messages.back().tool_calls) {
      results.tool_results.push_back({call.id, "The previous run ended before this call's result was recorded.", true});
    }
    messages.push_back(std::move(results));
  }
  return messages;
}

SessionLog::SessionLog(std::string path, Answers answers) : path_(std::move(path)), answers_(answers) {
  std::error_code ec;
  fs::create_directories(fs::path(path_).parent_path(), ec);
  if (ec) {
    error_ = "could not create " + fs::path(path_).parent_path().string() + ": " + ec.message();
    return;
  }
  file_ = std::fopen(path_.c_str(), "ab");
  if (file_ == nullptr) {
    error_ = "could not open " + path_ + ": " + std::strerror(errno);
    return;
  }
  ::chmod(path_.c_str(), 0600);  // transcripts hold prompts and tool output
}

SessionLog::~SessionLog() {
  if (file_ != nullptr) std::fclose(file_);
}

void SessionLog::write(const json::Value& line) {
  if (file_ == nullptr) return;
  std::string text = json::serialize(line);
  text += '\n';
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size() || std::fflush(file_) != 0) {
    error_ = "could not write " + path_;
    std::fclose(file_);
    file_ = nullptr;
  }
}

void SessionLog::on_start(const RunStart& start) {
  session_id_ = start.session_id;
  native_ = start.mechanism == "native";
  json::Value line = init_message(start);
  line.set("timestamp", now_iso8601());
  write(line);
}

void SessionLog::on_prompt(const provider::Message& message) {
  write(json::Object{{"type", "user"}, {"timestamp", now_iso8601()}, {"session_id", session_id_},
                     {"message", message_json(message)}});
}

provider::Message SessionLog::redact_native_answer(const provider::Message& message) const {
  // With --mechanism native the payload is the text of an answer without
  // tool calls (redacted as structured_output arguments are: docs/run.md, "Sessions and privacy").
  if (answers_ == Answers::Kept || !native_ || !message.tool_calls.empty() || message.text.empty()) return message;
  provider::Message redacted = message;
  redacted.text = json::serialize(redacted_payload());
  return redacted;
}

void SessionLog::on_assistant(const provider::Response& response, int turn) {
  write(json::Object{{"type", "assistant"},
                     {"timestamp", now_iso8601()},
                     {"session_id", session_id_},
                     {"turn", turn},
                     {"message", message_json(redact_native_answer(response.message))},
                     {"stop_reason", response.stop_reason},
                     {"usage", usage_json(response.usage)}});
}

void SessionLog::on_tool_results(const provider::Message& message) {
  write(json::Object{{"type", "user"}, {"timestamp", now_iso8601()}, {"session_id", session_id_},
                     {"message", message_json(message)}});
}

void SessionLog::finish(const RunOutcome& outcome) {
  json::Value line = json::Object{{"type", "result"},
                                  {"timestamp", now_iso8601()},
                                  {"session_id", session_id_},
                                  {"subtype", subtype_name(outcome.subtype)},
                                  {"is_error", outcome.subtype != Subtype::Success},
                                  {"num_turns", outcome.num_turns},
                                  {"attempts", outcome.attempts},
                                  {"usage", usage_json(outcome.usage)},
                                  {"duration_ms", outcome.duration_ms},
                                  {"duration_api_ms", outcome.duration_api_ms}};
  if (outcome.subtype != Subtype::Success) line.set("error", json::Object{{"message", outcome.error_message}});
  write(line);
}

}  // namespace weld::agent
