#pragma once
/// \file
/// Session transcripts (docs/run.md, "Sessions and privacy"): every run is
/// recorded as JSONL under
/// `~/.weld/projects/<sanitised cwd>/chats/<session-id>.jsonl`, with the
/// answers (`structured_output` arguments, a native answer's text) redacted
/// unless the run keeps them (`--keep-answers`). A transcript can be read
/// back to resume the conversation (`--continue`, `--resume ID`).
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

/// How many answers in `history` are the redaction placeholder (the model
/// resuming it sees a placeholder, not what it answered).
std::size_t redacted_answers(const std::vector<provider::Message>& history);

/// Whether a transcript keeps the answers.
enum class Answers {
  Redacted,  ///< the default: a transcript may leave the machine; the payload is on stdout
  Kept,      ///< `--keep-answers`: a resumed run gives the model what it answered
};

/// Records a run, one JSON line per event, flushed as it goes. Recording
/// failures (a read-only home) never stop the run: `error()` says what failed.
class SessionLog : public RunObserver {
 public:
  explicit SessionLog(std::string path, Answers answers = Answers::Redacted);
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
  json::Value message_json(const provider::Message& message) const;

  std::string path_;
  std::FILE* file_ = nullptr;
  std::string error_;
  std::string session_id_;
  bool native_ = false;
  Answers answers_ = Answers::Redacted;
};

}  // namespace weld::agent
