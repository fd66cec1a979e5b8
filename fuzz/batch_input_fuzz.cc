// Fuzzes `weld batch`'s input-line reader and row reader, and the resume
// reader of result lines. The first byte picks the longest line kept and the
// read size. Invariants: reading in small pieces gives exactly the lines of
// reading at once (a byte order mark split across reads included), and so
// does the verdict on the input's start (compressed, one JSON document,
// UTF-16), whose message names the input; no line
// contains "\n"; line numbers are 1-based and increase; a row is either
// runnable (a prompt) or errored with a message naming its line; a line read
// as a result line starts as result lines do; nothing crashes or hangs.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "weld/batch/input.h"
#include "weld/batch/result_line.h"

namespace {

using weld::batch::InputLine;
using weld::batch::LineReader;

struct Line {
  std::uint64_t number;
  bool too_long;
  std::string text;
  bool operator==(const Line&) const = default;
};

// The lines, and whether check_input_start refused the stream's start.
std::vector<Line> read_all(std::string_view bytes, std::size_t max_line, std::size_t piece, bool& refused) {
  std::size_t offset = 0;
  LineReader reader(
      [&](char* buffer, std::size_t size) -> weld::Result<std::size_t> {
        std::size_t n = std::min({size, piece, bytes.size() - offset});
        std::copy_n(bytes.data() + offset, n, buffer);
        offset += n;
        return n;
      },
      max_line);
  std::vector<Line> lines;
  auto start = reader.peek_start();
  if (!start) std::abort();
  const weld::Status verdict = weld::batch::check_input_start(*start, "in.jsonl");
  refused = !verdict;
  if (refused && verdict.error().message.rfind("the input \"in.jsonl\" ", 0) != 0) std::abort();
  for (;;) {
    auto line = reader.next();
    if (!line) std::abort();  // the memory source never fails
    if (!*line) break;
    lines.push_back({(*line)->number, (*line)->too_long, std::string((*line)->text)});
  }
  return lines;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t max_line = 1 + data[0] % 97 * 8;
  const std::size_t piece = 1 + data[0] % 13;
  std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);

  bool refused = false, refused_in_pieces = false;
  std::vector<Line> whole = read_all(input, max_line, input.size() + 1, refused);
  if (read_all(input, max_line, piece, refused_in_pieces) != whole) std::abort();
  // The verdict on the start does not depend on how the bytes arrive.
  if (refused != refused_in_pieces) std::abort();

  const weld::json::Value schema = weld::json::Object{{"type", "object"}};
  weld::batch::InputOptions options{.id_field = "key", .prompt = "Extract", .schema = &schema};
  std::uint64_t previous = 0;
  for (const Line& line : whole) {
    if (line.number <= previous) std::abort();
    previous = line.number;
    if (line.text.find('\n') != std::string::npos || line.text.size() > max_line) std::abort();
    if (line.too_long) continue;
    weld::batch::Row row = weld::batch::read_row(line.text, line.number, options);
    if (row.error) {
      if (row.error_message.rfind("line " + std::to_string(line.number) + ": ", 0) != 0) std::abort();
    } else if (row.request.prompt.empty() && row.shape == weld::batch::RowShape::Data) {
      std::abort();
    }
    if (weld::batch::read_result_line(line.text) && !weld::batch::is_result_line_start(line.text)) std::abort();
  }
  return 0;
}
