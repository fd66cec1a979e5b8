// The jsonschema-benchmark corpus (34 real-world schemas, each with
// instances valid against it) for the tests and benchmarks that check weld
// on real data. It is data outside the repository: the schemas/ folder of
// sourcemeta-research/jsonschema-benchmark (commit 862e479d), which carries
// no licence, so weld cannot ship a copy. Whoever reads it skips, saying
// so, when it is absent (README.md, "Building from source").
#pragma once

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace weld::test_support {

/// The corpus's schemas/ folder: DIR/jsonschema-benchmark/schemas, DIR being
/// the environment's WELD_DATA_DIR, else the CMake cache variable
/// WELD_DATA_DIR (../shared/data beside the checkout by default).
inline std::filesystem::path benchmark_corpus_dir() {
  const char* env = std::getenv("WELD_DATA_DIR");
  std::filesystem::path data = env != nullptr && *env != '\0' ? env : WELD_DATA_DIR;
  return data / "jsonschema-benchmark" / "schemas";
}

/// True when the corpus is there; else false with the reason to print
/// (a test gives it to GTEST_SKIP()).
inline bool benchmark_corpus_present(std::string* why_not) {
  if (std::filesystem::is_directory(benchmark_corpus_dir())) return true;
  *why_not = "no jsonschema-benchmark corpus at " + benchmark_corpus_dir().string() +
             " (the schemas/ folder of sourcemeta-research/jsonschema-benchmark, kept outside the repository): "
             "skipped; set WELD_DATA_DIR (configure or environment) to a folder holding jsonschema-benchmark/schemas";
  return false;
}

/// The corpus's data sets in name order: each a folder holding schema.json,
/// schema-noformat.json and instances.jsonl (one valid instance per line).
/// Empty when the corpus is absent.
inline std::vector<std::filesystem::path> benchmark_corpus_sets() {
  std::vector<std::filesystem::path> sets;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(benchmark_corpus_dir(), error)) {
    if (std::filesystem::exists(entry.path() / "instances.jsonl")) sets.push_back(entry.path());
  }
  std::sort(sets.begin(), sets.end());
  return sets;
}

/// A corpus file's bytes ("" when it cannot be read).
inline std::string read_corpus_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace weld::test_support
