// The C++ validator's own time on the data bench/python/bench.py runs the
// Python module on: json::parse + is_valid on each instance's text (what the
// module's is_valid_json does), and is_valid alone on the parsed value (the
// part of the module's dict path that is not conversion). Same schemas
// (schema-noformat.json, strict off, format as an annotation), same loop:
// each instance ITERATIONS times in a row, best of 3 rounds, in CPU time of
// the thread (as bench.py: on a shared machine, wall time would count other
// processes' turns).
// Usage: weld_python_cpp_text_bench SCHEMAS_DIR [ITERATIONS] [DATASET]
// Prints one JSON line per data set: {"dataset","parse_ns","valid_ns","all_valid"}.
#include <algorithm>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "weld/json/parse.h"
#include "weld/json/serialize.h"
#include "weld/schema/schema.h"

namespace fs = std::filesystem;

namespace {

// CPU time of this thread, in ns.
double thread_ns() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) * 1e9 + static_cast<double>(now.tv_nsec);
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// Best of 3 rounds of ns per call; `valid` counts the last round's verdicts.
template <typename Call>
double best_ns(std::size_t count, int iterations, Call call, std::size_t& valid) {
  double best = 1e30;
  for (int round = 0; round < 3; ++round) {
    valid = 0;
    const double start = thread_ns();
    for (std::size_t index = 0; index < count; ++index) {
      bool verdict = false;
      for (int iteration = 0; iteration < iterations; ++iteration) verdict = call(index);
      valid += verdict ? 1 : 0;
    }
    double ns = (thread_ns() - start) /
                (static_cast<double>(iterations) * static_cast<double>(std::max<std::size_t>(1, count)));
    best = std::min(best, ns);
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: weld_python_cpp_text_bench SCHEMAS_DIR [ITERATIONS] [DATASET]\n");
    return 2;
  }
  fs::path root = argv[1];
  int iterations = argc > 2 ? std::max(1, std::atoi(argv[2])) : 20;
  std::string only = argc > 3 ? argv[3] : "";  // one data set, by its exact name
  std::vector<fs::path> dirs;
  for (const auto& entry : fs::directory_iterator(root)) {
    if (entry.is_directory()) dirs.push_back(entry.path());
  }
  std::sort(dirs.begin(), dirs.end());
  for (const fs::path& dir : dirs) {
    std::string name = dir.filename().string();
    if (!only.empty() && name != only) continue;
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
    auto document = weld::json::parse(read_file(dir / "schema-noformat.json"));
    if (!document) continue;
    std::optional<weld::schema::Schema> schema;
    try {
      schema.emplace(weld::schema::Schema::compile(*document, options));
    } catch (const weld::schema::SchemaError& error) {
      std::fprintf(stderr, "%s: %s\n", name.c_str(), error.what());
      continue;
    }
    std::size_t parse_valid = 0, valid = 0;
    double parse_ns = best_ns(texts.size(), iterations, [&](std::size_t i) {
      auto value = weld::json::parse(texts[i]);
      return value && schema->is_valid(*value);
    }, parse_valid);
    double valid_ns = best_ns(values.size(), iterations, [&](std::size_t i) { return schema->is_valid(values[i]); },
                              valid);
    weld::json::Value row = weld::json::Object{{"dataset", name},
                                               {"parse_ns", parse_ns},
                                               {"valid_ns", valid_ns},
                                               {"all_valid", parse_valid == texts.size() && valid == values.size()}};
    std::printf("%s\n", weld::json::serialize(row).c_str());
    std::fflush(stdout);
  }
  return 0;
}
