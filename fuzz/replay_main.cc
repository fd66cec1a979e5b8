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
#include <algorithm>
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

// The seed itself, 16 truncations spread over its length, and 16 copies
// with a few bytes overwritten, a token spliced in or a range cut out.
void run_variants(const std::string& seed, Rng& rng) {
  run(seed);
  for (std::size_t i = 1; i <= 16; ++i) run(seed.substr(0, seed.size() * i / 17));
  for (int i = 0; i < 16; ++i) {
    std::string variant = seed;
    const std::size_t at = variant.empty() ? 0 : rng.below(variant.size());
    switch (rng.below(3)) {
      case 0: {
        const std::size_t overwrites = variant.empty() ? 0 : 1 + rng.below(4);
        for (std::size_t b = 0; b < overwrites; ++b) variant[rng.below(variant.size())] = static_cast<char>(rng.next() >> 56);
        break;
      }
      case 1:
        variant.insert(at, kTokens[rng.below(std::size(kTokens))]);
        break;
      default:
        variant.erase(at, 1 + rng.below(64));
        break;
    }
    run(variant);
  }
}

bool read_files(const char* arg, std::vector<std::string>& inputs) {
  std::error_code ec;
  std::vector<std::filesystem::path> files;
  if (std::filesystem::is_directory(arg, ec)) {
    for (const auto& entry : std::filesystem::directory_iterator(arg, ec)) {
      if (entry.is_regular_file()) files.push_back(entry.path());
    }
    // Directory order is the file system's; sorted, the seeds (and so the
    // variants drawn after them) are the same on every machine.
    std::sort(files.begin(), files.end());
  } else {
    files.emplace_back(arg);
  }
  for (const auto& file : files) {
    std::string input;
    if (!read_file(file, input)) {
      std::fprintf(stderr, "cannot read %s\n", file.string().c_str());
      return false;
    }
    inputs.push_back(std::move(input));
  }
  return true;
}

}  // namespace

/// `weld_<name>_replay`                      3,000 generated inputs
/// `weld_<name>_replay --mutate SEED...`     the same, then each seed file and 32 variants of it
/// `weld_<name>_replay FILE|DIR...`          each file exactly as it is (a crash, a corpus)
int main(int argc, char** argv) {
  const bool mutate = argc > 1 && std::string_view(argv[1]) == "--mutate";
  std::vector<std::string> inputs;
  for (int i = mutate ? 2 : 1; i < argc; ++i) {
    if (!read_files(argv[i], inputs)) return 2;
  }
  if (argc == 1 || mutate) {
    Rng rng{0x9e3779b97f4a7c15ULL};
    std::size_t count = 0;
    for (; count <= 3000; ++count) run(count == 0 ? std::string() : generated_input(rng));
    for (const std::string& seed : inputs) run_variants(seed, rng);
    std::filesystem::remove(kLastInput);
    std::printf("%zu generated inputs, %zu seeds with 32 variants each, no crash\n", count, inputs.size());
    return 0;
  }
  for (const std::string& input : inputs) run(input);
  std::filesystem::remove(kLastInput);
  std::printf("%zu inputs, no crash\n", inputs.size());
  return 0;
}
