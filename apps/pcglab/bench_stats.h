// Statistics the `pcglab bench ...` verbs print.
#pragma once

#include <algorithm>
#include <vector>

namespace pcglab::cli {

// The median (the mean of the two middle values for an even count); 0 for no values.
inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace pcglab::cli
