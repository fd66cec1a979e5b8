#pragma once
/// \file
/// Result lines of `weld batch` (docs/batch.md, "Output"): one JSON line per row, in weld's
/// shape or as OpenAI Batch output lines (what vLLM's `run-batch` writes),
/// and the reverse — the key a result line already in `-o FILE` answers,
/// for resuming.
///
/// weld's shape:
/// `{"custom_id":"r1","line":1,"status":"succeeded","structured_result":{…},"attempts":1,"repairs":[],"usage":{…},"duration_ms":3}`
/// `{"custom_id":"r2","line":2,"status":"errored","error":{"type":"error_max_structured_output_retries","message":"…"},"last_candidate":…,"attempts":6,"usage":{…},"duration_ms":9}`
/// The OpenAI shape: `{"id":"batch_req_…","custom_id":"r1","line":1,"response":{…},"error":null}`.
/// A row without an id has `"custom_id":null`; `line` (1-based) names it.

#include <optional>
#include <string>
#include <string_view>

#include "weld/agent/run_loop.h"
#include "weld/batch/ids.h"
#include "weld/batch/input.h"

namespace weld::batch {

/// `--output-format`.
enum class OutputFormat { Weld, OpenAi };

/// "weld" / "openai"; nullopt otherwise.
std::optional<OutputFormat> parse_output_format(std::string_view text);

/// Whether a row whose run ended with `outcome` succeeded (a validated
/// structured answer): its line is a succeeded one.
bool row_succeeded(const agent::RunOutcome& outcome);

/// The line (with its "\n") for a row whose run ended with `outcome` (any
/// ending but the ones that leave a row unanswered: 41, 75, 130). `model` is
/// the model the row asked for, for the OpenAI shape's body.
std::string run_result_line(OutputFormat format, const Row& row, const agent::RunOutcome& outcome,
                            std::string_view model);

/// The errored line (with its "\n") of a row that was not run (`row.error`
/// set, or `kind` DuplicateId).
std::string input_error_line(OutputFormat format, const Row& row, InputErrorKind kind, std::string_view message);

/// What a result line already in `-o FILE` says.
struct ResultLineInfo {
  /// The key it answers: `key_of_id(custom_id)`, `key_of_line(line)` for a
  /// row without an id, or `key_of_duplicate(line)` for the errored line of
  /// a repeated id.
  RowKey key;
  OutputFormat format = OutputFormat::Weld;
  bool errored = false;
};

/// Reads a result line of either shape, recognised by its whole shape (a
/// batch request line, or another tool's result line, is not one): nullopt
/// when `line` is not one.
std::optional<ResultLineInfo> read_result_line(std::string_view line);

/// Whether `bytes` (a file's last bytes after its last "\n") can be a result
/// line cut short: they start as every result line does.
bool is_result_line_start(std::string_view bytes);

}  // namespace weld::batch
