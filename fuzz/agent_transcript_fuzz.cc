// Fuzzes what the run reads back from disk and from the model in src/agent:
// session transcripts (read_session, for --continue/--resume), glob patterns
// written by the model (glob tool), and the plain-text preview.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "../src/agent/tools/paths.h"
#include "weld/agent/run_loop.h"
#include "weld/agent/session_log.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);

  // A transcript file with arbitrary content.
  char path[] = "/tmp/weld_transcript_fuzz_XXXXXX";
  int fd = ::mkstemp(path);
  if (fd >= 0) {
    if (::write(fd, input.data(), input.size()) == static_cast<ssize_t>(input.size())) {
      auto messages = weld::agent::read_session(path);
      (void)messages;
    }
    ::close(fd);
    ::unlink(path);
  }

  // pattern '\n' path
  std::size_t nl = input.find('\n');
  if (nl != std::string_view::npos && nl < 256 && input.size() - nl < 4096) {
    (void)weld::agent::tools::glob_match(input.substr(0, nl), input.substr(nl + 1));
  }

  (void)weld::agent::plain_text_message(3, input);
  return 0;
}
