#pragma once
// One JSON implementation under test (weld, nlohmann, simdjson): each lives
// in its own <name>_impl.cc and fills this table.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace weld::bench {

/// A structural summary of a parsed document, used to check that every
/// implementation read the same thing (numbers are counted, not compared,
/// since the libraries split integer/real differently).
struct Digest {
  std::uint64_t nulls = 0, booleans = 0, trues = 0, numbers = 0, strings = 0, string_bytes = 0;
  std::uint64_t arrays = 0, elements = 0, objects = 0, members = 0, key_bytes = 0;
  bool operator==(const Digest&) const = default;
};
std::string to_string(const Digest& digest);

/// Documents parsed once, kept for the serialize benchmark.
class ParsedSet {
 public:
  virtual ~ParsedSet() = default;
  /// Serializes every document compactly; returns the total output bytes.
  virtual std::size_t serialize_all() = 0;
};

/// Input texts, each with at least 64 readable bytes of padding after its
/// end (simdjson reads ahead; the others ignore it).
using Texts = std::vector<std::string>;

struct Impl {
  std::string_view name;
  /// Parses each text and destroys the result; returns how many parsed.
  std::size_t (*parse_all)(const Texts& texts);
  std::unique_ptr<ParsedSet> (*parse_keep)(const Texts& texts);
  Digest (*digest)(std::string_view text);
};

const Impl& weld_impl();
const Impl& nlohmann_impl();
const Impl& simdjson_impl();

/// Heap allocations (operator new calls) since the program started.
std::uint64_t allocation_count();

}  // namespace weld::bench
