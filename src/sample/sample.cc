// weld::sample: generate, validate with the schema engine, retry (docs/schema.md, "weld sample").
// A generated candidate is never trusted: only an instance the compiled
// schema accepts is returned.

#include "weld/sample/sample.h"

#include <map>
#include <optional>

#include "generator.h"
#include "prng.h"
#include "weld/schema/regex.h"

namespace weld::sample {
namespace {

constexpr std::uint64_t kAttempts = 32;

// Pattern checks for the generator, compiled once per generate() call (no
// shared mutable state between threads).
class PatternCache {
 public:
  bool matches(std::string_view pattern, std::string_view text) {
    auto it = cache_.find(std::string(pattern));
    if (it == cache_.end()) {
      auto compiled = schema::Regex::compile(pattern);
      std::optional<schema::Regex> entry;
      if (compiled) entry.emplace(std::move(*compiled));
      it = cache_.emplace(std::string(pattern), std::move(entry)).first;
    }
    if (!it->second) return false;
    return it->second->search(text) == schema::Regex::Match::Yes;
  }

 private:
  std::map<std::string, std::optional<schema::Regex>> cache_;
};

}  // namespace

Result<Sampler> Sampler::create(const json::Value& schema) {
  schema::CompileOptions options;
  options.strict = false;
  try {
    return Sampler(std::make_shared<const schema::Schema>(schema::Schema::compile(schema, options)));
  } catch (const schema::SchemaError& error) {
    return Error{ErrorCode::Schema, error.what(), error.pointer()};
  }
}

Sampler::Sampler(std::shared_ptr<const schema::Schema> compiled) : compiled_(std::move(compiled)) {}

Result<json::Value> Sampler::generate(const Options& options) const {
  const json::Value& source = compiled_->source();
  PatternCache patterns;
  PatternMatcher matcher = [&patterns](std::string_view pattern, std::string_view text) {
    return patterns.matches(pattern, text);
  };
  std::string last_problem;
  for (std::uint64_t attempt = 0; attempt < kAttempts; ++attempt) {
    Prng rng(mix_seed(options.seed, options.index, attempt));
    auto candidate = generate_candidate(source, rng, matcher, options.object_root);
    if (!candidate) {
      last_problem = candidate.error().message;
      continue;
    }
    schema::ValidationResult result = compiled_->validate(*candidate, schema::Collect::First);
    if (result.valid) return std::move(*candidate);
    last_problem = result.violations.empty() ? "the schema rejected every candidate"
                                             : schema::describe(result.violations.front(), "instance");
  }
  return Error{ErrorCode::Sample, "could not sample a valid instance: " + last_problem, ""};
}

Result<json::Value> generate(const json::Value& schema, const Options& options) {
  auto sampler = Sampler::create(schema);
  if (!sampler) return sampler.error();
  return sampler->generate(options);
}

}  // namespace weld::sample
