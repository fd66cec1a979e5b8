#pragma once
/// \file
/// Session transcripts (SPEC §2.8): every run is recorded as JSONL under
/// `~/.weld/projects/<sanitised cwd>/chats/<session-id>.jsonl`, with
/// `structured_output` arguments redacted (SPEC §2.6). A transcript can be
/// read back to resume the conversation (`--continue`, `--resume ID`).
///
/// \code
///   weld::agent::SessionLog log(weld::agent::session_path(home, cwd, id));
///   outcome = weld::agent::run(model, tools, options, {&writer, &log}, cancel);
///   log.finish(outcome);
/// \endcode

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "weld/agent/run_loop.h"
#include "weld/base/result.h"
#include "weld/json/value.h"

namespace weld::agent {

/// What replaces `structured_output` arguments wherever weld persists data.
json::Value redacted_payload();

/// `<home>/.weld/projects/<sanitised cwd>` (every character outside
/// [A-Za-z0-9] becomes '-').
std::string project_dir(const std::string& home, const std::string& cwd);
/// `<project_dir>/chats/<session_id>.jsonl`.
std::string session_path(const std::string& home, const std::string& cwd, const std::string& session_id);

/// A new random session id (UUID v4 text).
std::string new_session_id();

/// Id of the newest session recorded for `cwd`; an Error when there is none.
Result<std::string> newest_session_id(const std::string& home, const std::string& cwd);

/// Reads a transcript back as conversation messages (redacted arguments
/// stay redacted). An Error names the file and line when it is unreadable.
Result<std::vector<provider::Message>> read_session(const std::string& path);

/// Records a run, one JSON line per event, flushed as it goes. Recording
/// failures (a read-only home) never stop the run: `error()` says what failed.
class SessionLog : public RunObserver {
 public:
  explicit SessionLog(std::string path);
  ~SessionLog() override;
  SessionLog(const SessionLog&) = delete;
  SessionLog& operator=(const SessionLog&) = delete;

  void on_start(const RunStart& start) override;
  void on_prompt(const provider::Message& message) override;
  void on_assistant(const provider::Response& response, int turn) override;
  void on_tool_results(const provider::Message& message) override;
  /// Records the ending (subtype, turns, usage, durations; no payload).
  void finish(const RunOutcome& outcome);

  /// Empty, or why recording stopped.
  const std::string& error() const { return error_; }

 private:
  void write(const json::Value& line);
  provider::Message redact_native_answer(const provider::Message& message) const;

  std::string path_;
  std::FILE* file_ = nullptr;
  std::string error_;
  std::string session_id_;
  bool native_ = false;
};

}  // namespace weld::agent
