// CPython's `random` module, bit for bit (docs/poker.md, "Randomness"): MT19937 seeded by the
// reference init_by_array with the 32-bit words of |seed| (not std::mt19937's seed_seq), and the
// module's random(), getrandbits, _randbelow, randint, choice, shuffle and sample, so that a seed
// draws exactly what `random.seed(seed)` then the same calls draw in Python 3.6-3.13. Used where
// pcglab must pick what official Python code picks: the poker engine's round (poker/engine.h) and
// the text-game alignment crawl's shuffle (textgame/judge.h).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace pcglab {

class CPythonRandom {
 public:
  explicit CPythonRandom(int64_t seed = 0) { seed_int(seed); }

  void seed_int(int64_t seed);     // random.seed(seed) for an int
  uint32_t next_u32();             // one tempered MT19937 output
  double random();                 // random.random()
  uint32_t getrandbits(int k);     // k in 1..32
  uint64_t randbelow(uint64_t n);  // random._randbelow(n), n >= 1
  int64_t randint(int64_t a, int64_t b) {
    return a + static_cast<int64_t>(randbelow(static_cast<uint64_t>(b - a + 1)));
  }

  template <typename T>
  void shuffle(std::vector<T>& x) {  // random.shuffle(x)
    for (size_t i = x.size(); i-- > 1;) std::swap(x[i], x[randbelow(i + 1)]);
  }
  // random.sample(range(n), k) as indices; the caller maps them to its population. k <= n.
  std::vector<size_t> sample_indices(size_t n, size_t k);

 private:
  void init_genrand(uint32_t s);
  void reload();
  std::array<uint32_t, 624> mt_{};
  int index_ = 624;
};

}  // namespace pcglab
