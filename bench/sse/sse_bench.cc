// weld's side of bench/sse: SseDecoder + OpenAiStreamParser over a recorded
// stream fed in 16 KiB reads (as libcurl delivers them), checked against the
// peer by the reassembled arguments' size and FNV-1a hash.
// Usage: weld_sse_bench IN.sse REPEATS [--sse-only] → one JSON line.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <vector>
#include <string>

#include "weld/provider/openai.h"
#include "weld/provider/sse.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: weld_sse_bench IN.sse [REPEATS] [--sse-only]\n");
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  in.seekg(0, std::ios::end);
  std::string bytes(static_cast<std::size_t>(in.tellg()), '\0');
  in.seekg(0);
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 5;
  const bool sse_only = argc > 3 && std::string(argv[3]) == "--sse-only";
  constexpr std::size_t kRead = 16 * 1024;

  // --sse-only: the SSE decoder alone; the "answer" is the event count and
  // the total data size.
  auto sse_once = [&]() -> std::string {
    weld::provider::SseDecoder decoder;
    std::vector<weld::provider::SseEvent> events;
    std::size_t count = 0, data = 0;
    for (std::size_t i = 0; i < bytes.size(); i += kRead) {
      events.clear();
      if (!decoder.feed(std::string_view(bytes).substr(i, kRead), events)) std::exit(1);
      for (const auto& event : events) data += event.data.size();
      count += events.size();
    }
    return std::to_string(count) + " events, " + std::to_string(data) + " data bytes";
  };
  auto once = [&]() -> std::string {
    if (sse_only) return sse_once();
    weld::provider::OpenAiStreamParser parser;
    for (std::size_t i = 0; i < bytes.size(); i += kRead) {
      auto st = parser.feed(std::string_view(bytes).substr(i, kRead));
      if (!st) {
        std::fprintf(stderr, "%s\n", st.error().message.c_str());
        std::exit(1);
      }
    }
    auto response = parser.finish();
    if (!response || response->message.tool_calls.empty()) {
      std::fprintf(stderr, "no tool call\n");
      std::exit(1);
    }
    return response->message.tool_calls[0].arguments;
  };

  std::string args = once();  // warm-up
  auto start = std::chrono::steady_clock::now();
  for (int r = 0; r < repeats; ++r) args = once();
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / repeats;
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : args) hash = (hash ^ c) * 0x100000001b3ull;
  std::printf("{\"impl\":\"weld %s\",\"bytes\":%zu,\"seconds\":%.6f,\"mb_per_s\":%.1f,"
              "\"arguments_bytes\":%zu,\"arguments_fnv1a\":\"%llx\"}\n",
              sse_only ? "SseDecoder" : "SseDecoder + OpenAiStreamParser", bytes.size(), seconds, bytes.size() / 1e6 / seconds, args.size(),
              static_cast<unsigned long long>(hash));
  return 0;
}
