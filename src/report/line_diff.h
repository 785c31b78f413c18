// A line diff for reports (a reward function's revision, a text game's reflection): the longest
// common subsequence of lines, shown as kept, removed and added lines. Moved here from
// pcgrl/refine_report so every track's page uses one.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace pcglab::report {

// The lines of `text` split at '\n' (a final '\n' ends the last line; no empty line after it).
std::vector<std::string> split_lines(const std::string& text);

// Each line of the result is "  line" (kept), "- line" (only in before) or "+ line" (only in
// after); removals before additions, as diff prints them. The table of the LCS has (lines + 1)²
// cells: above `max_cells` (generated code is hostile text: a 10⁵-line file) the trimmed common
// head and tail are kept and the middle is shown as all removed, then all added.
std::vector<std::string> line_diff(const std::string& before, const std::string& after,
                                   size_t max_cells = size_t{1} << 24);

}  // namespace pcglab::report
