// Seeded random numbers that give the same sequence on every platform and standard library.
// Every random component in pcglab takes an explicit seed; parallel tasks derive theirs with
// derive_seed(base, task_index) so results never depend on the number of threads.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

namespace pcglab {

// SplitMix64 step: a good 64-bit mixer, used to derive seeds and to seed Rng.
constexpr uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// The seed of task `index` under a base seed: independent streams for every (base, index).
constexpr uint64_t derive_seed(uint64_t base, uint64_t index) {
  uint64_t s = base ^ (0xD1B54A32D192ED03ULL * (index + 1));
  splitmix64(s);
  return splitmix64(s);
}

// xoshiro256** generator with portable distributions (std:: distributions differ across
// standard libraries, so they are not used where results must be reproducible).
class Rng {
 public:
  using result_type = uint64_t;
  explicit Rng(uint64_t seed) {
    uint64_t s = seed;
    for (auto& word : state_) word = splitmix64(s);
  }

  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<uint64_t>::max(); }

  result_type operator()() {
    const uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }

  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>((*this)() >> 11) * 0x1.0p-53; }
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }

  // Uniform integer in [0, n), unbiased (Lemire's method). n must be > 0.
  uint64_t below(uint64_t n) {
    __uint128_t m = static_cast<__uint128_t>((*this)()) * n;
    auto low = static_cast<uint64_t>(m);
    if (low < n) {
      const uint64_t threshold = (0 - n) % n;
      while (low < threshold) {
        m = static_cast<__uint128_t>((*this)()) * n;
        low = static_cast<uint64_t>(m);
      }
    }
    return static_cast<uint64_t>(m >> 64);
  }

  // Uniform integer in [lo, hi] inclusive.
  int64_t between(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(below(static_cast<uint64_t>(hi - lo) + 1));
  }

  // Standard normal (Box-Muller, no cached second value so the stream is simple to reason about).
  double normal() {
    double u1 = uniform();
    while (u1 <= 0.0) u1 = uniform();
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
  }

 private:
  static constexpr uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t state_[4]{};
};

}  // namespace pcglab
