#include "core/cpython_random.h"

#include <bit>
#include <cmath>
#include <unordered_set>

#include "core/check.h"

namespace pcglab {

void CPythonRandom::init_genrand(uint32_t s) {
  mt_[0] = s;
  for (int i = 1; i < 624; ++i)
    mt_[i] = 1812433253U * (mt_[i - 1] ^ (mt_[i - 1] >> 30)) + static_cast<uint32_t>(i);
  index_ = 624;
}

void CPythonRandom::seed_int(int64_t seed) {
  uint64_t magnitude = seed < 0 ? 0 - static_cast<uint64_t>(seed) : static_cast<uint64_t>(seed);
  std::vector<uint32_t> key;
  while (magnitude != 0) {
    key.push_back(static_cast<uint32_t>(magnitude & 0xffffffffU));
    magnitude >>= 32;
  }
  if (key.empty()) key.push_back(0);
  init_genrand(19650218U);
  size_t i = 1, j = 0;
  const size_t n = 624;
  for (size_t k = std::max(n, key.size()); k > 0; --k) {
    mt_[i] = (mt_[i] ^ ((mt_[i - 1] ^ (mt_[i - 1] >> 30)) * 1664525U)) + key[j] + static_cast<uint32_t>(j);
    ++i;
    ++j;
    if (i >= n) {
      mt_[0] = mt_[n - 1];
      i = 1;
    }
    if (j >= key.size()) j = 0;
  }
  for (size_t k = n - 1; k > 0; --k) {
    mt_[i] = (mt_[i] ^ ((mt_[i - 1] ^ (mt_[i - 1] >> 30)) * 1566083941U)) - static_cast<uint32_t>(i);
    ++i;
    if (i >= n) {
      mt_[0] = mt_[n - 1];
      i = 1;
    }
  }
  mt_[0] = 0x80000000U;
  index_ = 624;
}

void CPythonRandom::reload() {
  constexpr uint32_t kUpper = 0x80000000U, kLower = 0x7fffffffU, kMatrix = 0x9908b0dfU;
  for (int k = 0; k < 624; ++k) {
    const uint32_t y = (mt_[k] & kUpper) | (mt_[(k + 1) % 624] & kLower);
    mt_[k] = mt_[(k + 397) % 624] ^ (y >> 1) ^ ((y & 1U) != 0 ? kMatrix : 0U);
  }
  index_ = 0;
}

uint32_t CPythonRandom::next_u32() {
  if (index_ >= 624) reload();
  uint32_t y = mt_[index_++];
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680U;
  y ^= (y << 15) & 0xefc60000U;
  y ^= y >> 18;
  return y;
}

double CPythonRandom::random() {
  const uint32_t a = next_u32() >> 5, b = next_u32() >> 6;
  return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

uint32_t CPythonRandom::getrandbits(int k) {
  return next_u32() >> (32 - k);
}

uint64_t CPythonRandom::randbelow(uint64_t n) {
  PCGLAB_CHECK(n >= 1 && n <= 0xffffffffULL) << "randbelow(" << n << ")";
  const int k = static_cast<int>(std::bit_width(n));
  uint64_t r = getrandbits(k);
  while (r >= n) r = getrandbits(k);
  return r;
}

std::vector<size_t> CPythonRandom::sample_indices(size_t n, size_t k) {
  PCGLAB_CHECK(k <= n) << "sample larger than population";
  size_t setsize = 21;
  if (k > 5)
    setsize +=
        static_cast<size_t>(std::pow(4.0, std::ceil(std::log(3.0 * static_cast<double>(k)) / std::log(4.0))));
  std::vector<size_t> result(k);
  if (n <= setsize) {
    std::vector<size_t> pool(n);
    for (size_t i = 0; i < n; ++i) pool[i] = i;
    for (size_t i = 0; i < k; ++i) {
      const size_t j = randbelow(n - i);
      result[i] = pool[j];
      pool[j] = pool[n - i - 1];
    }
    return result;
  }
  std::unordered_set<size_t> taken;
  for (size_t i = 0; i < k; ++i) {
    size_t j = randbelow(n);
    while (taken.count(j) != 0) j = randbelow(n);
    taken.insert(j);
    result[i] = j;
  }
  return result;
}

}  // namespace pcglab
