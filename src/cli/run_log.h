#pragma once
// Seeing what a run does (docs/run.md, "Seeing what weld does"): --verbose
// prints one stderr line per step (request sent, status, a resend and why,
// each turn, a failed validation, the repairs, the mechanism chosen);
// --debug (stderr) or --debug-file FILE logs each request and response,
// secrets redacted and bodies cut.

#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "weld/agent/run_loop.h"
#include "weld/base/result.h"
#include "weld/provider/http.h"

namespace weld::cli {

/// The flags, as given.
struct RunLogFlags {
  bool verbose = false;
  bool debug = false;
  std::optional<std::string> debug_file;
};

/// The log of one run: a transport wrapper (requests and responses) and a
/// run observer (turns, validation, the mechanism). Nothing is written
/// unless a flag asks.
class RunLog : public agent::RunObserver {
 public:
  /// Opens --debug-file (appended to, mode 0600). `secret`: the key, never
  /// written.
  static Result<std::unique_ptr<RunLog>> open(const RunLogFlags& flags, std::vector<std::string> secrets);
  ~RunLog() override;

  bool verbose() const { return flags_.verbose; }
  bool debugging() const { return flags_.debug || debug_file_ != nullptr; }
  /// A --verbose line ("weld: " + text).
  void step(const std::string& text);
  /// Wraps the run's transport: what is sent and received is logged.
  std::unique_ptr<provider::Transport> wrap(std::unique_ptr<provider::Transport> inner);
  /// The repairs applied, at the end of the run.
  void finish(const agent::RunOutcome& outcome);

  void on_start(const agent::RunStart& start) override;
  void on_assistant(const provider::Response& response, int turn) override;
  void on_tool_results(const provider::Message& message) override;

  /// Debug text: the request or response, secrets redacted.
  void debug(const std::string& text);
  /// With --mechanism auto: say on stderr what the probe chose (always,
  /// not only with --verbose).
  void note_mechanism_choice() { note_mechanism_ = true; }

 private:
  RunLog(RunLogFlags flags, std::vector<std::string> secrets, std::FILE* file)
      : flags_(std::move(flags)), secrets_(std::move(secrets)), debug_file_(file) {}
  std::string redacted(std::string text) const;
  RunLogFlags flags_;
  std::vector<std::string> secrets_;
  bool note_mechanism_ = false;
  std::FILE* debug_file_ = nullptr;
  std::mutex mutex_;
};

}  // namespace weld::cli
