// Fuzzes the Gemini generateContent writer: what it writes, its reader reads
// back to the same value (see codec_writer_fuzz.h).
#include "codec_writer_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return weld::fuzzing::fuzz_writer(weld::provider::Protocol::GeminiGenerateContent, data, size);
}
