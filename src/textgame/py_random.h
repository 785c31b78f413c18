// CPython's `random.Random` as far as the official BYTESIZED32 scripts use it: the Mersenne Twister
// (MT19937) seeded from an int as CPython's _randommodule.c seeds it (init_by_array over the 32-bit
// words of |seed|), `getrandbits(k)` for k <= 32, `_randbelow` (getrandbits of n's bit length,
// rejected while >= n) and `shuffle` (Lib/random.py). Written from the published algorithm (Matsumoto
// and Nishimura, 1998) and CPython's documented behaviour; checked against /usr/bin/python3's
// `random` in tests/textgame/py_random_test.cc. pcglab's own generator is core/rng.h; this one exists
// so that a crawl picks exactly the paths the official Python picks for the same seed.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace pcglab::textgame {

class PyRandom {
 public:
  // random.Random(seed): a negative seed seeds as its absolute value, as in CPython.
  explicit PyRandom(int64_t seed);

  uint32_t genrand_uint32();
  // random.getrandbits(k), 0 <= k <= 32.
  uint32_t getrandbits(int k);
  // random.Random._randbelow(n): uniform in [0, n), 1 <= n < 2^32.
  uint64_t randbelow(uint64_t n);

  // random.Random.shuffle(x): in place, the same permutation as Python's for the same state.
  template <typename T>
  void shuffle(std::vector<T>& x) {
    for (std::size_t i = x.size(); i-- > 1;) std::swap(x[i], x[randbelow(i + 1)]);
  }

 private:
  void init_genrand(uint32_t s);

  std::array<uint32_t, 624> mt_{};
  std::size_t index_ = 624;
};

}  // namespace pcglab::textgame
