#include "report/line_diff.h"

#include <algorithm>

namespace pcglab::report {

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::vector<std::string> line_diff(const std::string& before, const std::string& after, size_t max_cells) {
  const std::vector<std::string> a_all = split_lines(before), b_all = split_lines(after);
  // The common head and tail are kept as they are; the LCS runs on the middle.
  size_t head = 0;
  while (head < a_all.size() && head < b_all.size() && a_all[head] == b_all[head]) ++head;
  size_t tail = 0;
  while (tail < a_all.size() - head && tail < b_all.size() - head &&
         a_all[a_all.size() - 1 - tail] == b_all[b_all.size() - 1 - tail])
    ++tail;
  const std::vector<std::string> a(a_all.begin() + static_cast<long>(head),
                                   a_all.end() - static_cast<long>(tail)),
      b(b_all.begin() + static_cast<long>(head), b_all.end() - static_cast<long>(tail));
  std::vector<std::string> out;
  for (size_t k = 0; k < head; ++k) out.push_back("  " + a_all[k]);
  const size_t n = a.size(), m = b.size();
  if ((n + 1) * (m + 1) > max_cells) {
    for (const std::string& line : a) out.push_back("- " + line);
    for (const std::string& line : b) out.push_back("+ " + line);
  } else {
    // lcs[i][j]: length of the longest common subsequence of a[i..] and b[j..].
    std::vector<std::vector<int>> lcs(n + 1, std::vector<int>(m + 1, 0));
    for (size_t i = n; i-- > 0;)
      for (size_t j = m; j-- > 0;)
        lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
    size_t i = 0, j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && a[i] == b[j]) {
        out.push_back("  " + a[i++]);
        ++j;
      } else if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1])) {
        out.push_back("- " + a[i++]);
      } else {
        out.push_back("+ " + b[j++]);
      }
    }
  }
  for (size_t k = a_all.size() - tail; k < a_all.size(); ++k) out.push_back("  " + a_all[k]);
  return out;
}

}  // namespace pcglab::report
