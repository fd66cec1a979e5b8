// A main() for the fuzz targets when they are built without libFuzzer (any
// compiler, tests on): `weld_<name>_replay [FILE|DIR]...` runs the target's
// LLVMFuzzerTestOneInput on each file (a crash or a corpus entry to replay
// under gdb or a sanitizer build); with no argument it runs a fixed,
// seeded sequence of generated inputs — random bytes and runs of the tokens
// weld's parsers read (JSON, HTTP/1.1, SSE, JSON Schema keywords) — so CTest
// checks on every build that each target still compiles, links and survives
// inputs shaped like its own, long before a fuzzing campaign runs it.
// A target that crashes or trips a sanitizer fails the test; the input is
// left in `replay-last-input.bin` in the working directory.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

constexpr std::string_view kTokens[] = {
    "{", "}", "[", "]", "\"", ":", ",", " ", "null", "true", "false", "0", "-1.5e300", "123456789012345678901",
    "\"\\u00e9\\ud83d\\ude00\"", "\"\\n\\t\\\"\"", "\xc3\xa9", "\xff", "\"type\"", "\"object\"", "\"string\"",
    "\"array\"", "\"integer\"", "\"properties\"", "\"required\"", "\"items\"", "\"$ref\"", "\"#/$defs/a\"",
    "\"$defs\"", "\"enum\"", "\"const\"", "\"anyOf\"", "\"oneOf\"", "\"allOf\"", "\"not\"", "\"pattern\"",
    "\"^[a-z]+(\\\\d{2,})?$\"", "\"format\"", "\"date-time\"", "\"2026-12-01T10:00:00Z\"", "\"minimum\"",
    "\"maxLength\"", "\"additionalProperties\"", "\"name\"", "\"agents\"", "\"schema\"", "\"model\"",
    "\"messages\"", "\"role\"", "\"content\"", "\"tool_use\"", "\"input\"", "\"tool_calls\"", "\"arguments\"",
    "\"stream\"", "\"jsonrpc\"", "\"2.0\"", "\"id\"", "\"result\"", "\"method\"",
    "POST /v1/messages HTTP/1.1\r\n", "GET /healthz HTTP/1.1\r\n", "HTTP/1.1 200 OK\r\n", "Host: a\r\n",
    "Content-Length: 5\r\n", "Content-Length: 0\r\n", "Transfer-Encoding: chunked\r\n",
    "Content-Type: application/json\r\n", "Content-Type: text/event-stream\r\n", "Connection: close\r\n",
    "X-Agent-Name: router\r\n", "\r\n", "5\r\nhello\r\n", "0\r\n\r\n", "ffffffffffffffff\r\n", "data: ",
    "event: ", "event: message_start\n", "data: [DONE]\n\n", "id: 7\n", ": ping\n", "\n\n", "\n", "\r",
    "__schema=router", "```json\n", "```", "//", "/*", "*/", "'", "NaN", "Infinity", "\\", "\t", "\0", "~1", "~0",
};

// xorshift64*: a fixed sequence on every machine.
struct Rng {
  std::uint64_t state;
  std::uint64_t next() {
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return state * 2685821657736338717ULL;
  }
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }
};

std::string generated_input(Rng& rng) {
  std::string input;
  const std::size_t pieces = rng.below(64);
  for (std::size_t i = 0; i < pieces; ++i) {
    if (rng.below(4) == 0) {
      const std::size_t bytes = 1 + rng.below(8);
      for (std::size_t b = 0; b < bytes; ++b) input.push_back(static_cast<char>(rng.next() >> 56));
    } else {
      input += kTokens[rng.below(std::size(kTokens))];
    }
  }
  return input;
}

constexpr const char* kLastInput = "replay-last-input.bin";

void run(const std::string& input) {
  {
    // Written before the target runs: a crash leaves the input behind.
    std::ofstream keep(kLastInput, std::ios::binary | std::ios::trunc);
    keep.write(input.data(), static_cast<std::streamsize>(input.size()));
  }
  std::vector<std::uint8_t> bytes(input.begin(), input.end());  // exactly sized: ASan sees overreads
  LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
}

bool read_file(const std::filesystem::path& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t count = 0;
  if (argc == 1) {
    Rng rng{0x9e3779b97f4a7c15ULL};
    for (; count <= 3000; ++count) run(count == 0 ? std::string() : generated_input(rng));
    std::filesystem::remove(kLastInput);
    std::printf("%zu generated inputs, no crash\n", count);
    return 0;
  }
  for (int i = 1; i < argc; ++i) {
    std::error_code ec;
    std::vector<std::filesystem::path> files;
    if (std::filesystem::is_directory(argv[i], ec)) {
      for (const auto& entry : std::filesystem::directory_iterator(argv[i], ec)) {
        if (entry.is_regular_file()) files.push_back(entry.path());
      }
    } else {
      files.emplace_back(argv[i]);
    }
    for (const auto& file : files) {
      std::string input;
      if (!read_file(file, input)) {
        std::fprintf(stderr, "cannot read %s\n", file.string().c_str());
        return 2;
      }
      run(input);
      ++count;
    }
  }
  std::filesystem::remove(kLastInput);
  std::printf("%zu inputs, no crash\n", count);
  return 0;
}
