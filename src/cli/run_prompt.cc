// docs/run.md, "The prompt": the prompt comes from -p/--prompt, a positional argument, or
// standard input when it is not a terminal; both → piped text, a blank line,
// then the prompt.

#include <unistd.h>

#include "run_support.h"
#include "weld/base/read_file.h"

namespace weld::cli {
namespace {
constexpr std::uint64_t kMaxPromptBytes = 16 * 1024 * 1024;
}  // namespace

Result<std::optional<std::string>> assemble_prompt(const std::optional<std::string>& prompt_arg) {
  std::string piped;
  if (::isatty(STDIN_FILENO) == 0) {
    // Bounded: /dev/zero as standard input is an error, not a hang.
    Result<std::string> read = read_stream(STDIN_FILENO, kMaxPromptBytes, "standard input");
    if (!read && read.error().code == ErrorCode::TooLarge) {
      return Error{ErrorCode::Io, "Standard input is more than " + std::to_string(kMaxPromptBytes >> 20) +
                             " MiB; weld reads at most that much prompt.", "stdin"};
    }
    if (!read) return Error{ErrorCode::Io, "C" + read.error().message.substr(1), "stdin"};  // "Could not read standard input: …"
    piped = std::move(*read);
  }
  while (!piped.empty() && (piped.back() == '\n' || piped.back() == '\r')) piped.pop_back();
  bool have_piped = piped.find_first_not_of(" \t\r\n") != std::string::npos;
  bool have_arg = prompt_arg && prompt_arg->find_first_not_of(" \t\r\n") != std::string::npos;
  if (have_piped && have_arg) return std::optional<std::string>(piped + "\n\n" + *prompt_arg);
  if (have_piped) return std::optional<std::string>(piped);
  if (have_arg) return std::optional<std::string>(*prompt_arg);
  return std::optional<std::string>();
}

}  // namespace weld::cli
