#pragma once
// A small deterministic PRNG for the sampler (same seed, same
// instance on every machine: docs/schema.md, "weld sample"). splitmix64 is used instead of <random> distributions, whose
// output is not specified and differs between standard library versions.

#include <cstdint>

namespace weld::sample {

/// splitmix64 (Steele, Lea, Flood 2014), with bounded helpers that use only
/// integer arithmetic so every platform draws the same values.
class Prng {
 public:
  explicit Prng(std::uint64_t seed) : state_(seed) {}

  /// The next 64 random bits.
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

  /// Uniform in [0, n); 0 when n == 0. (Modulo bias is irrelevant here.)
  std::uint64_t below(std::uint64_t n) { return n == 0 ? 0 : next() % n; }

  /// Uniform in [lo, hi] (requires lo <= hi; the span must fit in uint64).
  std::int64_t between(std::int64_t lo, std::int64_t hi) {
    std::uint64_t span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
    if (span == ~0ull) return static_cast<std::int64_t>(next());
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + below(span + 1));
  }

  /// True with probability numerator/denominator.
  bool chance(std::uint64_t numerator, std::uint64_t denominator) { return below(denominator) < numerator; }

  /// Uniform in [0, 1), from 53 random bits.
  double unit() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }

 private:
  std::uint64_t state_;
};

/// Mixes several values into one seed (splitmix64 finaliser over each).
inline std::uint64_t mix_seed(std::uint64_t a, std::uint64_t b, std::uint64_t c = 0) {
  Prng p(a ^ 0x6A09E667F3BCC908ull);
  std::uint64_t x = p.next() ^ b;
  Prng q(x);
  std::uint64_t y = q.next() ^ c;
  Prng r(y);
  return r.next();
}

}  // namespace weld::sample
