#pragma once
/// \file
/// The input of `weld batch` (SPEC §7): JSON Lines read one line at a time
/// with bounded memory (`LineReader`), each line read as a row (`read_row`:
/// its shape and id, or why it is not a row), and a row turned into what one
/// run sends (`row_request`).
///
/// \code
///   weld::batch::LineReader lines(weld::batch::fd_source(fd));
///   weld::batch::InputOptions input{.id_field = "ticket", .prompt = "Classify this ticket"};
///   while (auto line = lines.next()) {
///     weld::batch::Row row = weld::batch::read_row(line->text, line->number, input);
///     if (row.error) { /* an errored result line */ continue; }
///     run(row.request);  // system, history and prompt for agent::run
///   }
/// \endcode

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "weld/base/result.h"
#include "weld/json/value.h"
#include "weld/provider/model.h"

namespace weld::batch {

/// Reads up to `size` bytes into `buffer`; returns the count, 0 at the end,
/// or an Error (I/O).
using ByteSource = std::function<Result<std::size_t>(char* buffer, std::size_t size)>;

/// A source reading a file descriptor (EINTR retried).
ByteSource fd_source(int fd);
/// A source over bytes in memory (tests, fuzzing); `bytes` must outlive it.
ByteSource memory_source(std::string_view bytes);

/// One physical line of the input.
struct InputLine {
  /// 0-based line number (blank lines count, SPEC §7's row id fallback).
  std::uint64_t number = 0;
  /// The line without its "\n" (and "\r"). Empty when `too_long`.
  std::string_view text;
  /// The line was longer than the reader's limit: it was skipped unread.
  bool too_long = false;
};

/// Splits a byte stream into lines, holding at most one line (up to the
/// limit) plus one read buffer in memory. Blank lines are not returned (they
/// are not rows) but are counted. A last line without "\n" is a line.
class LineReader {
 public:
  /// Longest line kept: longer ones are returned as `too_long`.
  static constexpr std::size_t kDefaultMaxLine = 16u << 20;

  explicit LineReader(ByteSource source, std::size_t max_line = kDefaultMaxLine);

  /// The next non-blank line (valid until the next call), nullopt at the
  /// end, or an Error when the source fails.
  Result<std::optional<InputLine>> next();

  /// Bytes consumed so far (for progress).
  std::uint64_t bytes_read() const { return bytes_read_; }

 private:
  bool fill();

  ByteSource source_;
  std::size_t max_line_;
  std::vector<char> buffer_;
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
  bool eof_ = false;
  std::uint64_t line_number_ = 0;
  std::uint64_t bytes_read_ = 0;
  std::string long_line_;      // a line that spans buffer refills
  bool returned_long_ = false;  // next() returned a view of long_line_
  bool skipping_ = false;       // inside a line longer than max_line_
  std::optional<Error> error_;
};

/// Which of SPEC §7's input shapes a line is.
enum class RowShape {
  OpenAiBatch,     ///< {"custom_id","method","url","body":{…chat completion request…}}
  AnthropicBatch,  ///< {"custom_id","params":{…Messages request…}}
  Data,            ///< any other object: sent as its JSON, a blank line, then --prompt
};

/// What `read_row` and `row_request` need from the command line.
struct InputOptions {
  /// --id-field: the data row field that holds the id ("" = none).
  std::string id_field;
  /// --prompt: the instruction sent after a data row ("" = none).
  std::string prompt;
};

/// Why a line is not a row that can be run (the errored line's `error.type`).
enum class InputErrorKind {
  InvalidLine,   ///< not a JSON object, or a request the shapes do not allow
  DuplicateId,   ///< an earlier line of the input has the same id
};

/// "error_invalid_input" / "error_duplicate_id".
std::string_view input_error_type(InputErrorKind kind);

/// What one row's run sends: the system prompt, earlier messages, the last
/// user message, and the model the row asks for ("" = the configured one).
struct RowRequest {
  std::string model;
  std::string system;
  std::vector<provider::Message> history;
  std::string prompt;
};

/// One input line, read.
struct Row {
  std::uint64_t line = 0;
  /// custom_id, else the --id-field value, else `id`, else the line number
  /// (SPEC §7). A number is written as its JSON text.
  std::string id;
  RowShape shape = RowShape::Data;
  /// What the row's run sends (empty when `error` is set).
  RowRequest request;
  /// Set when the line cannot be run: it gets an errored result line.
  std::optional<InputErrorKind> error;
  /// Names what was wrong and where, e.g. `line 7: body.messages[2].content:
  /// only text content is supported`.
  std::string error_message;
};

/// Reads one line. Never fails: a line that is not a JSON object, has a
/// non-string `custom_id`, or is a request the shapes do not allow comes back
/// with `error` set (and its line number as id unless it has a usable one).
Row read_row(std::string_view text, std::uint64_t line_number, const InputOptions& options);

}  // namespace weld::batch
