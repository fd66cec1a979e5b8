#pragma once
/// \file
/// The run's output (docs/run.md, "Output formats"): agent-SDK-shaped messages, the result
/// envelope, and a writer for `--output-format text|json|stream-json` that
/// writes through a caller-supplied sink (the CLI passes stdout).
///
/// \code
///   weld::agent::OutputWriter out(weld::agent::OutputFormat::StreamJson, false,
///                                 [](std::string_view s) { std::fwrite(s.data(), 1, s.size(), stdout); std::fflush(stdout); });
///   RunOutcome outcome = weld::agent::run(model, tools, options, {&out}, cancel);
///   out.finish(outcome);
/// \endcode

#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "weld/agent/run_loop.h"
#include "weld/json/value.h"

namespace weld::agent {

/// `--output-format`. `Result` prints only the result envelope, one JSON
/// object, as `claude -p --output-format json` does.
enum class OutputFormat { Text, Json, StreamJson, Result };

/// Parses "text", "json", "stream-json", "result"; nullopt otherwise.
std::optional<OutputFormat> parse_output_format(std::string_view text);

/// The user's prices in USD per million tokens (`--price-input`,
/// `--price-output`, and for cached tokens `--price-cache-read`,
/// `--price-cache-write`). weld knows no prices of its own.
struct Prices {
  double input = 0;
  double output = 0;
  std::optional<double> cache_read;
  std::optional<double> cache_write;
};

/// The cost of `usage` at `prices`; nullopt when the usage has cached tokens
/// whose price was not given (a cost that left them out would be wrong).
std::optional<double> cost_usd(const provider::Usage& usage, const Prices& prices);

/// `{"type":"system","subtype":"init",…}`.
json::Value init_message(const RunStart& start);
/// `{"type":"assistant","message":{…content blocks…},…}`.
json::Value assistant_message(const provider::Response& response, const std::string& model,
                              const std::string& session_id);
/// `{"type":"user","message":{"role":"user","content":[tool_result…]},…}`.
json::Value user_message(const provider::Message& message, const std::string& session_id);
/// `{"type":"partial_result","structured_partial":…,"attempt":N,…}`.
json::Value partial_result_message(const json::Value& partial, int attempt, const std::string& session_id);
/// `{"type":"stream_event","event":…,…}`.
json::Value stream_event_message(const json::Value& event, const std::string& session_id);
/// The result envelope with every field docs/run.md lists, plus `total_cost_usd`
/// when `prices` is given and the cost is known (see cost_usd).
json::Value result_envelope(const RunOutcome& outcome, const Prices* prices = nullptr);
/// `{"input_tokens":…,"output_tokens":…,…}`.
json::Value usage_json(const provider::Usage& usage);
/// A tool call's arguments as a JSON value: the parsed object when the text
/// is JSON, `{}` when empty, else the raw text as a string.
json::Value arguments_value(std::string_view arguments);

/// Writes the run's output in one format. Thread-safe: `finish` may be
/// called from a watchdog thread while the run is still going (signal
/// deadline); after the first `finish`, everything else is ignored.
class OutputWriter : public RunObserver {
 public:
  using Sink = std::function<void(std::string_view)>;

  OutputWriter(OutputFormat format, bool include_partial_messages, Sink sink);

  /// Prices for the envelope's `total_cost_usd` (absent without them).
  void set_prices(const Prices& prices);

  void on_start(const RunStart& start) override;
  void on_stream_event(const json::Value& event) override;
  void on_assistant(const provider::Response& response, int turn) override;
  void on_tool_results(const provider::Message& message) override;
  void on_partial_result(const json::Value& partial, int attempt) override;

  /// Writes the ending: text mode → the payload (or final text) and "\n" on
  /// success, nothing on failure; json → the whole array; stream-json → the
  /// result line. Returns false when already finished.
  bool finish(const RunOutcome& outcome);

  /// What the writer has seen so far (turns, usage, last stop reason), for a
  /// forced ending that does not come from the run loop.
  RunOutcome snapshot() const;

 private:
  void emit(const json::Value& message);

  OutputFormat format_;
  bool partial_;
  Sink sink_;
  mutable std::mutex mutex_;
  bool finished_ = false;
  std::string model_;
  std::string session_id_;
  json::Value messages_ = json::Array{};
  RunOutcome seen_;
  std::optional<Prices> prices_;
};

}  // namespace weld::agent
