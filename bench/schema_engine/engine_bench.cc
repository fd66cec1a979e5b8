// Engine-only timing over the jsonschema-benchmark corpus (kept outside the
// repository: tests/support/benchmark_corpus.h says where it comes from):
// per dataset, compile time (best of 5) and mean ns per `is_valid` (parse
// excluded; each instance validated ITERATIONS times in a row, as Blaze's
// `--benchmark --loop` does), checked against the reference answer (every instance of the
// corpus is valid). Usage: weld_schema_engine_bench [ITERATIONS] [FILTER]
#include <algorithm>
#include <cstdlib>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "benchmark_corpus.h"
#include "weld/json/parse.h"
#include "weld/schema/schema.h"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

static std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int main(int argc, char** argv) {
  int iterations = argc > 1 ? std::atoi(argv[1]) : 100;
  std::string filter = argc > 2 ? argv[2] : "";
  std::string absent;
  if (!weld::test_support::benchmark_corpus_present(&absent)) {
    std::fprintf(stderr, "weld_schema_engine_bench: %s\n", absent.c_str());
    return 0;
  }
  fs::path root = weld::test_support::benchmark_corpus_dir();
  std::vector<fs::path> dirs;
  for (const auto& e : fs::directory_iterator(root)) {
    if (e.is_directory()) dirs.push_back(e.path());
  }
  std::sort(dirs.begin(), dirs.end());
  double log_sum = 0;
  int count = 0;
  std::printf("%-28s %10s %10s %8s %s\n", "dataset", "compile_us", "ns/valid", "instances", "check");
  for (const fs::path& dir : dirs) {
    std::string name = dir.filename().string();
    if (!filter.empty() && name.find(filter) == std::string::npos) continue;
    auto schema_json = weld::json::parse(read_file(dir / "schema.json"));
    if (!schema_json) {
      std::printf("%-28s schema parse error\n", name.c_str());
      continue;
    }
    std::vector<weld::json::Value> instances;
    std::istringstream lines(read_file(dir / "instances.jsonl"));
    for (std::string line; std::getline(lines, line);) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      auto v = weld::json::parse(line);
      if (v) instances.push_back(std::move(*v));
    }
    weld::schema::CompileOptions options;
    options.strict = false;
    // The corpus's reference answers (and Blaze's default) treat `format` as
    // an annotation: some instances have e.g. "repository": "" under
    // "format": "uri". WELD_BENCH_FORMATS=1 asserts formats as weld does.
    options.assert_formats = std::getenv("WELD_BENCH_FORMATS") != nullptr;
    double best_compile = 1e30;
    std::optional<weld::schema::Schema> schema;
    try {
      for (int i = 0; i < 5; ++i) {
        auto t0 = Clock::now();
        schema.emplace(weld::schema::Schema::compile(*schema_json, options));
        double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
        best_compile = std::min(best_compile, us);
      }
    } catch (const weld::schema::SchemaError& e) {
      std::printf("%-28s compile error: %s\n", name.c_str(), e.what());
      continue;
    }
    std::size_t invalid = 0;
    for (const auto& inst : instances) {
      if (!schema->is_valid(inst)) ++invalid;
    }
    // The machine is shared: take the best of 5 rounds of ITERATIONS/5.
    std::size_t sink = 0;
    double ns = 1e30;
    int per_round = std::max(1, iterations / 5);
    for (int round = 0; round < 5; ++round) {
      auto t0 = Clock::now();
      // Instance-major, like `jsonschema validate --benchmark --loop N`:
      // each instance is validated per_round times in a row.
      for (const auto& inst : instances) {
        for (int it = 0; it < per_round; ++it) sink += schema->is_valid(inst);
      }
      double round_ns = std::chrono::duration<double, std::nano>(Clock::now() - t0).count() /
                        (static_cast<double>(per_round) * static_cast<double>(std::max<std::size_t>(1, instances.size())));
      ns = std::min(ns, round_ns);
    }
    std::printf("%-28s %10.1f %10.1f %8zu %s\n", name.c_str(), best_compile, ns, instances.size(),
                invalid ? ("MISMATCH: " + std::to_string(invalid) + " invalid").c_str() : "ok");
    if (sink == 42) std::printf(" ");
    log_sum += std::log(ns);
    ++count;
  }
  if (count) std::printf("geometric mean ns/validation: %.1f over %d datasets\n", std::exp(log_sum / count), count);
  return 0;
}
