#pragma once
/// \file
/// The input of `weld batch` (docs/batch.md, "Input: one object a line"): JSON Lines read one line at a time
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
#include "weld/base/setting_names.h"
#include "weld/batch/ids.h"
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
  /// 1-based line number, as editors, `sed -n` and `grep -n` count (blank
  /// lines count; the id of a row that has none).
  std::uint64_t number = 0;
  /// The line without its "\n" (and "\r"). Empty when `too_long`.
  std::string_view text;
  /// The line was longer than the reader's limit: it was skipped unread.
  bool too_long = false;
};

/// Splits a byte stream into lines, holding at most one line (up to the
/// limit) plus one read buffer in memory. Blank lines are not returned (they
/// are not rows) but are counted. A last line without "\n" is a line. A
/// UTF-8 byte order mark at the start of the stream is skipped.
class LineReader {
 public:
  /// Longest line kept: longer ones are returned as `too_long`.
  static constexpr std::size_t kDefaultMaxLine = 16u << 20;

  explicit LineReader(ByteSource source, std::size_t max_line = kDefaultMaxLine);

  /// The first bytes of the stream (up to 8; fewer only when the stream is
  /// shorter), read ahead without consuming them, after any byte order mark.
  /// For `check_input_start`. An Error when the source fails.
  Result<std::string_view> peek_start();
  /// Whether the stream started with a UTF-8 byte order mark (known once
  /// `peek_start` or `next` ran).
  bool had_byte_order_mark() const { return bom_; }

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
  bool started_ = false;        // peek_start ran (the byte order mark is handled)
  bool bom_ = false;
  std::optional<Error> error_;
};

/// Refuses a stream that is almost surely not JSON Lines, from its first
/// bytes (`LineReader::peek_start`), with the command that converts it
/// (docs/batch.md, "Input that is not JSON Lines"): gzip, bzip2, xz or zstd data; one
/// JSON document (a "[", or a "{" alone on its line); UTF-16 or UTF-32
/// text. `name` names the input in the message ("-": standard input).
Status check_input_start(std::string_view start, std::string_view name);

/// Which of the input shapes (docs/batch.md, "Input: one object a line") a line is.
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
  /// --json-schema as given (not owned; nullptr: no check): a request line
  /// whose own response format asks for another schema is errored.
  const json::Value* schema = nullptr;
  /// How the errored lines' messages name the schema, the id field and the
  /// tools (the CLI: `--json-schema`, `--id-field`, `--core-tools`).
  SettingNames names{};
};

/// Why a line is not a row that can be run (the errored line's `error.type`).
enum class InputErrorKind {
  InvalidLine,   ///< not a JSON object, or a request the shapes do not allow
  DuplicateId,   ///< an earlier line of the input has the same id
};

/// "error_invalid_input" / "error_duplicate_id".
std::string_view input_error_type(InputErrorKind kind);

/// What one row's run sends: the system prompt, earlier messages, the last
/// user message, the model the row asks for ("" = the configured one), and
/// the request's own sampling fields (docs/batch.md, "Input").
struct RowRequest {
  std::string model;
  std::string system;
  std::vector<provider::Message> history;
  std::string prompt;
  provider::Sampling sampling;
  /// The line's own token limit (max_tokens, max_completion_tokens or
  /// max_output_tokens), when it has one.
  std::optional<std::int64_t> max_tokens;
  /// Fields of the request that are not sent ("body.logit_bias"), for a
  /// warning; weld batch names each once.
  std::vector<std::string> unsent;
};

/// One input line, read.
struct Row {
  /// 1-based.
  std::uint64_t line = 0;
  /// custom_id, else the --id-field value, else `id` (an integer is its
  /// text: `"id":1` and `"id":"1"` are the same id). Empty when the row has
  /// none: its line number names it (`id_from_line`).
  std::string id;
  /// The row has no id of its own: its key is its line's (`key_of_line`),
  /// which no written id can equal, and its result line has
  /// `"custom_id":null`.
  bool id_from_line = false;
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
/// non-string `custom_id`, or is a request the shapes do not allow (or whose
/// response format or tools conflict with --json-schema) comes back with
/// `error` set (and its line as id unless it has a usable one).
Row read_row(std::string_view text, std::uint64_t line_number, const InputOptions& options);

/// A row with no id, or one that cannot be read: named by its line.
Row line_row(std::uint64_t line_number);

/// The key a row is known by: `key_of_id(id)`, or `key_of_line(line)`.
RowKey key_of_row(const Row& row);

}  // namespace weld::batch
