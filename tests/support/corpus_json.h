// A benchmark corpus file (benchmark_corpus.h) read as JSON, for the tests
// that check weld on the corpus's schemas. A header of its own, so that
// benchmark_corpus.h (also used by the benchmarks of other engines) does not
// depend on weld's JSON library.
#pragma once

#include <filesystem>
#include <optional>
#include <utility>

#include "benchmark_corpus.h"
#include "weld/json/parse.h"
#include "weld/json/value.h"

namespace weld::test_support {

/// A corpus file parsed as JSON; nullopt when it cannot be read or is not JSON.
inline std::optional<json::Value> read_corpus_json(const std::filesystem::path& path) {
  auto document = json::parse(read_corpus_file(path));
  if (!document) return std::nullopt;
  return std::move(*document);
}

}  // namespace weld::test_support
