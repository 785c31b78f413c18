// A reward written as LLMs write them, and the same formula in C++, for the tests of
// SandboxReward and `pcglab pcgrl reward`.
#pragma once

#include <algorithm>
#include <cstdlib>

#include "pcgrl/tiles.h"

namespace pcglab::pcgrl::formula_testing {

// A reward in the style LLMs write (counts, deltas, where/abs/clip, a per-row sum), with integer
// arithmetic until the final exact scaling, so that the C++ formula below gives the same bits.
constexpr const char* kFormulaReward = R"PY(
import jax.numpy as jnp

def compute_reward(prev_array, unused3, curr_array, unused4):
    keys = jnp.sum(curr_array == 7) - jnp.sum(prev_array == 7)
    enemies = jnp.sum(jnp.logical_and(curr_array >= 4, curr_array <= 6))
    rows = jnp.sum(curr_array == 2, axis=1) - jnp.sum(prev_array == 2, axis=1)
    reward = keys * 3 - jnp.sum(jnp.abs(rows)) + jnp.clip(enemies - 3, 0, 5)
    reward = jnp.where(jnp.sum(curr_array == 3) == 1, reward, reward - 10)
    return reward * 0.25
)PY";

inline float formula_reward(const Map& prev, const Map& curr) {
  const auto count = [](const Map& m, auto pred) {
    int c = 0;
    for (uint8_t t : m) c += pred(t) ? 1 : 0;
    return c;
  };
  const int keys = count(curr, [](int t) { return t == 7; }) - count(prev, [](int t) { return t == 7; });
  const int enemies = count(curr, [](int t) { return t >= 4 && t <= 6; });
  int rows = 0;
  for (int r = 0; r < kMapSize; ++r) {
    int d = 0;
    for (int c = 0; c < kMapSize; ++c) d += (curr[r * kMapSize + c] == 2) - (prev[r * kMapSize + c] == 2);
    rows += std::abs(d);
  }
  int reward = keys * 3 - rows + std::clamp(enemies - 3, 0, 5);
  if (count(curr, [](int t) { return t == 3; }) != 1) reward -= 10;
  return static_cast<float>(reward) * 0.25f;
}

}  // namespace pcglab::pcgrl::formula_testing
