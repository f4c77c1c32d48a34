#pragma once

#include <cmath>
#include <cstdint>

namespace tailor::recommender {

// The corpus generator's random numbers: SplitMix64 and Box-Muller written out here, because
// the standard library's distributions differ between implementations and the corpus must be
// the same bytes wherever it is generated from the same seed.
class CorpusRandom {
 public:
  explicit CorpusRandom(std::uint64_t seed) : state_(seed) {}

  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  // Sizes spread evenly over orders of magnitude, as container sizes are.
  double log_uniform(double lo, double hi) { return lo * std::exp(std::log(hi / lo) * uniform()); }
  bool chance(double p) { return uniform() < p; }
  int integer(int lo, int hi) { return lo + static_cast<int>(uniform() * (hi - lo + 1)); }
  double normal() {
    const double u = 1.0 - uniform();  // (0, 1]: log(u) is finite
    return std::sqrt(-2.0 * std::log(u)) * std::cos(6.283185307179586 * uniform());
  }

 private:
  std::uint64_t state_;
};

}  // namespace tailor::recommender
