// Fuzzes the OpenAI Chat Completions reader (streamed and whole) and what
// the proxy does with its answers: see reader_fuzz.h.
#include "reader_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return weld::fuzzing::fuzz_reader(weld::provider::Protocol::OpenAiChat, weld::proxy::Protocol::OpenAiChat, data, size);
}
