// The C API (libweld.so) beside the C++ API on the same compiled schemas
// and instances (the jsonschema-benchmark corpus, kept outside the repository:
// tests/support/benchmark_corpus.h says where it comes from; format as an
// annotation and strict off, as bench/schema runs weld). The C API takes
// JSON text, so its cost includes parsing; the C++ columns give both
// `json::parse` + `is_valid` (like for like) and `is_valid` alone.
// Each instance is validated ITERATIONS times in a row, best of 5 rounds.
// Every instance of the corpus is valid: a verdict that differs is printed.
// Usage: weld_c_api_bench [ITERATIONS] [FILTER]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "benchmark_corpus.h"
#include "weld/json/parse.h"
#include "weld/schema/schema.h"
#include "weld/weld.h"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// Best of 5 rounds of ns per call of `validate(index)`, each instance
// `per_round` times in a row; `valid` counts the verdicts of the last round.
double best_ns(std::size_t count, int per_round, const std::function<bool(std::size_t)>& validate,
               std::size_t& valid) {
  double best = 1e30;
  for (int round = 0; round < 5; ++round) {
    valid = 0;
    auto start = Clock::now();
    for (std::size_t index = 0; index < count; ++index) {
      bool verdict = false;
      for (int iteration = 0; iteration < per_round; ++iteration) verdict = validate(index);
      valid += verdict ? 1 : 0;
    }
    double ns = std::chrono::duration<double, std::nano>(Clock::now() - start).count() /
                (static_cast<double>(per_round) * static_cast<double>(std::max<std::size_t>(1, count)));
    best = std::min(best, ns);
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  int iterations = argc > 1 ? std::atoi(argv[1]) : 100;
  std::string filter = argc > 2 ? argv[2] : "";
  int per_round = std::max(1, iterations / 5);
  std::string absent;
  if (!weld::test_support::benchmark_corpus_present(&absent)) {
    std::fprintf(stderr, "weld_c_api_bench: %s\n", absent.c_str());
    return 0;
  }
  fs::path root = weld::test_support::benchmark_corpus_dir();
  std::vector<fs::path> dirs;
  for (const auto& entry : fs::directory_iterator(root)) {
    if (entry.is_directory()) dirs.push_back(entry.path());
  }
  std::sort(dirs.begin(), dirs.end());
  std::printf("| dataset | instances | C++ is_valid ns | C++ parse+is_valid ns | C weld_is_valid ns | C weld_validate ns | C/C++ (with parse) | all valid |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|:---:|\n");
  double log_ratio = 0, log_cpp = 0, log_cpp_parse = 0, log_c = 0, log_c_validate = 0;
  int datasets = 0;
  for (const fs::path& dir : dirs) {
    std::string name = dir.filename().string();
    if (!filter.empty() && name.find(filter) == std::string::npos) continue;
    std::string schema_text = read_file(dir / "schema.json");
    std::vector<std::string> texts;
    std::vector<weld::json::Value> values;
    std::istringstream lines(read_file(dir / "instances.jsonl"));
    for (std::string line; std::getline(lines, line);) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      auto value = weld::json::parse(line);
      if (!value) continue;
      texts.push_back(line);
      values.push_back(std::move(*value));
    }
    weld::schema::CompileOptions options;
    options.strict = false;
    options.assert_formats = false;
    std::optional<weld::schema::Schema> schema;
    try {
      schema.emplace(weld::schema::Schema::compile(*weld::json::parse(schema_text), options));
    } catch (const weld::schema::SchemaError& error) {
      std::printf("| %s | compile error: %s |\n", name.c_str(), error.what());
      continue;
    }
    weld_options* c_options = weld_options_new();
    weld_options_set_strict(c_options, 0);
    weld_options_set_format(c_options, WELD_FORMAT_ANNOTATE);
    weld_schema* c_schema = nullptr;
    char* message = nullptr;
    if (weld_schema_compile(schema_text.data(), schema_text.size(), c_options, &c_schema, &message) != WELD_OK) {
      std::printf("| %s | C API compile error: %s |\n", name.c_str(), message);
      weld_free(message);
      weld_options_free(c_options);
      continue;
    }
    weld_options_free(c_options);

    std::size_t count = texts.size();
    std::size_t cpp_valid = 0, cpp_parse_valid = 0, c_valid = 0, c_validate_valid = 0;
    double cpp = best_ns(count, per_round, [&](std::size_t i) { return schema->is_valid(values[i]); }, cpp_valid);
    double cpp_parse = best_ns(count, per_round, [&](std::size_t i) {
      auto value = weld::json::parse(texts[i]);
      return value && schema->is_valid(*value);
    }, cpp_parse_valid);
    double c = best_ns(count, per_round, [&](std::size_t i) {
      return weld_is_valid(c_schema, texts[i].data(), texts[i].size()) == 1;
    }, c_valid);
    double c_validate = best_ns(count, per_round, [&](std::size_t i) {
      weld_result* result = nullptr;
      bool valid = weld_validate(c_schema, texts[i].data(), texts[i].size(), &result, nullptr) == WELD_OK &&
                   weld_result_valid(result) == 1;
      weld_result_free(result);
      return valid;
    }, c_validate_valid);
    weld_schema_free(c_schema);
    bool all_valid = cpp_valid == count && cpp_parse_valid == count && c_valid == count && c_validate_valid == count;
    std::printf("| %s | %zu | %.1f | %.1f | %.1f | %.1f | %.2f | %s |\n", name.c_str(), count, cpp, cpp_parse, c,
                c_validate, c / cpp_parse, all_valid ? "yes" : "**no**");
    log_ratio += std::log(c / cpp_parse);
    log_cpp += std::log(cpp);
    log_cpp_parse += std::log(cpp_parse);
    log_c += std::log(c);
    log_c_validate += std::log(c_validate);
    ++datasets;
  }
  if (datasets > 0) {
    double n = datasets;
    std::printf("\ngeometric means over %d datasets: C++ is_valid %.1f ns, C++ parse+is_valid %.1f ns, "
                "C weld_is_valid %.1f ns, C weld_validate %.1f ns; C/C++ (with parse) %.3f\n",
                datasets, std::exp(log_cpp / n), std::exp(log_cpp_parse / n), std::exp(log_c / n),
                std::exp(log_c_validate / n), std::exp(log_ratio / n));
  }
  return 0;
}
