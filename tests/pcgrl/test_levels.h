// Levels written as text in tests: # wall, . empty, @ player, b bat, s scorpion, p spider, k key, D door.
#pragma once

#include <string>
#include <vector>

#include "pcgrl/accuracy.h"

namespace pcglab::pcgrl::test_levels {

inline Map level(const std::vector<std::string>& rows) {
  std::string text;
  for (const auto& r : rows) text += r + "\n";
  return parse_levels(text, "test").at(0);
}

}  // namespace pcglab::pcgrl::test_levels
