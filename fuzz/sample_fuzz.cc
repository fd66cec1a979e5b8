// Fuzzes the sampler (docs/schema.md, "weld sample"): random bytes as a schema. Whatever compiles
// must sample without crashing or hanging, and an instance returned must
// validate and be the same for the same seed.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "weld/json/parse.h"
#include "weld/json/serialize.h"
#include "weld/sample/sample.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 16384) return 0;  // schema compile cost is the schema fuzzer's business
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto doc = weld::json::parse(text);
  if (!doc) return 0;
  auto sampler = weld::sample::Sampler::create(*doc);
  if (!sampler) return 0;
  weld::schema::CompileOptions options;
  options.strict = false;
  weld::schema::Schema check = weld::schema::Schema::compile(*doc, options);
  for (std::uint64_t seed = 0; seed < 2; ++seed) {
    auto first = sampler->generate({.seed = seed});
    if (!first) continue;
    if (!check.is_valid(*first)) std::abort();
    auto second = sampler->generate({.seed = seed});
    if (!second || weld::json::serialize(*first) != weld::json::serialize(*second)) std::abort();
  }
  return 0;
}
