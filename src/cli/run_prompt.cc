// SPEC §2.1: the prompt comes from -p/--prompt, a positional argument, or
// standard input when it is not a terminal; both → piped text, a blank line,
// then the prompt.

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "run_support.h"

namespace weld::cli {

Result<std::optional<std::string>> assemble_prompt(const std::optional<std::string>& prompt_arg) {
  std::string piped;
  if (::isatty(STDIN_FILENO) == 0) {
    char buffer[65536];
    for (;;) {
      ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        if (errno == EBADF) break;  // stdin closed: no piped input
        return Error{"io", std::string("Could not read standard input: ") + std::strerror(errno), "stdin"};
      }
      if (n == 0) break;
      piped.append(buffer, static_cast<std::size_t>(n));
    }
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
