// CPythonRandom (core/cpython_random.h) against CPython's random.Random: the expected values were computed
// with /usr/bin/python3 (3.11) and recorded here, e.g.
//   r = random.Random(0); [r.getrandbits(32) for _ in range(3)]
//   r = random.Random(0); x = list(range(5)); r.shuffle(x)   (then 12, 40 on the same generator)
#include "core/cpython_random.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <numeric>

namespace pcglab {
namespace {

using ::testing::ElementsAre;

std::vector<int> range(int n) {
  std::vector<int> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), 0);
  return v;
}

TEST(CPythonRandom, SeedsAndDrawsAsCPython) {
  CPythonRandom zero(0);
  EXPECT_EQ(zero.getrandbits(32), 3626764237U);
  EXPECT_EQ(zero.getrandbits(32), 1654615998U);
  EXPECT_EQ(zero.getrandbits(32), 3255389356U);
  CPythonRandom one(1);
  EXPECT_EQ(one.getrandbits(32), 577090037U);
  CPythonRandom game(20230614);  // the official winnability seed
  EXPECT_EQ(game.getrandbits(32), 1020848372U);
  EXPECT_EQ(game.getrandbits(32), 1748461750U);
  CPythonRandom big((int64_t{1} << 40) + 7);  // a key of two 32-bit words
  EXPECT_EQ(big.getrandbits(32), 2635837658U);
  EXPECT_EQ(big.getrandbits(32), 3209733218U);
  EXPECT_EQ(big.getrandbits(32), 3500038837U);
}

TEST(CPythonRandom, ShufflesAsCPython) {
  CPythonRandom r(0);  // one generator, shuffled four times in a row
  std::vector<int> x = range(2);
  r.shuffle(x);
  EXPECT_THAT(x, ElementsAre(0, 1));
  x = range(5);
  r.shuffle(x);
  EXPECT_THAT(x, ElementsAre(4, 2, 1, 0, 3));
  x = range(12);
  r.shuffle(x);
  EXPECT_THAT(x, ElementsAre(11, 9, 0, 8, 2, 1, 10, 3, 5, 7, 4, 6));
  x = range(40);
  r.shuffle(x);
  EXPECT_THAT(x, ElementsAre(25, 39, 3, 37, 33, 26, 27, 5, 7, 18, 22, 28, 23, 29, 32, 12, 2, 0, 24, 1, 8, 16,
                             14, 15, 17, 31, 20, 36, 10, 13, 11, 35, 30, 21, 4, 6, 19, 9, 38, 34));
  // A negative seed seeds as its absolute value.
  for (int64_t seed : {3, -3}) {
    CPythonRandom s(seed);
    x = range(10);
    s.shuffle(x);
    EXPECT_THAT(x, ElementsAre(1, 5, 6, 0, 9, 4, 7, 2, 8, 3)) << seed;
  }
  CPythonRandom big((int64_t{1} << 40) + 7);
  x = range(10);
  big.shuffle(x);
  EXPECT_THAT(x, ElementsAre(0, 5, 2, 3, 6, 1, 8, 4, 7, 9));
}

}  // namespace
}  // namespace pcglab
