// docs/run.md, "Output formats": in `json` and `stream-json`, every way a
// run ends leaves one parseable error envelope on stdout — the endings
// before the first request included (bad flags, no prompt, a schema or
// configuration error). Those are written here; the run loop's own endings
// go through the OutputWriter in run_command.cc.

#include <unistd.h>

#include <cstdio>
#include <string_view>

#include "run_support.h"
#include "usage.h"
#include "weld/agent/output.h"

namespace weld::cli {

std::optional<agent::OutputFormat> sniff_output_format(int argc, char** argv) {
  // The last valid -o/--output-format wins, as it would for CLI11. Values
  // CLI11 would reject leave the format unknown (text).
  std::optional<agent::OutputFormat> format;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--") break;
    std::optional<std::string_view> value;
    if ((arg == "-o" || arg == "--output-format") && i + 1 < argc) {
      value = argv[++i];
    } else if (arg.rfind("--output-format=", 0) == 0) {
      value = arg.substr(16);
    } else if (arg.size() > 2 && arg.rfind("-o", 0) == 0 && arg[2] != '-') {
      value = arg.substr(2);  // CLI11 reads -o=json as the value "=json"
    }
    if (value) {
      if (auto parsed = agent::parse_output_format(*value)) format = parsed;
    }
  }
  return format;
}

EarlyEnding::EarlyEnding(agent::OutputFormat format, std::string session_id)
    : format_(format), session_id_(std::move(session_id)), started_(std::chrono::steady_clock::now()) {}

int EarlyEnding::fail(int exit_code, std::string message, agent::Subtype subtype) const {
  if (claim_ != nullptr && claim_->exchange(true)) {
    for (;;) ::pause();  // the signal thread writes the ending and exits
  }
  write(exit_code, std::move(message), subtype);
  return exit_code;
}

void EarlyEnding::write(int exit_code, std::string message, agent::Subtype subtype) const {
  while (!message.empty() && message.back() == '\n') message.pop_back();
  // Every stderr line names weld; the envelope says the same words.
  message = with_prefix("weld: ", message);
  std::string line = message + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
  if (format_ != agent::OutputFormat::Text) {
    agent::RunOutcome outcome;
    outcome.subtype = subtype;
    outcome.exit_code = exit_code;
    outcome.error_message = std::move(message);
    outcome.session_id = session_id_;
    outcome.duration_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                              std::chrono::steady_clock::now() - started_)
                              .count();
    agent::OutputWriter writer(format_, false, [](std::string_view text) {
      std::fwrite(text.data(), 1, text.size(), stdout);
      std::fflush(stdout);
    });
    writer.finish(outcome);
  }
}

int EarlyEnding::usage_error(const std::string& message) const {
  return fail(1, "weld: " + message + "\nRun 'weld --help' for usage.");
}

}  // namespace weld::cli
