#include "report/line_diff.h"

#include <gtest/gtest.h>

namespace pcglab::report {
namespace {

TEST(LineDiff, KeptRemovedAndAddedLines) {
  EXPECT_EQ(line_diff("a\nb\nc\n", "a\nx\nc\n"), (std::vector<std::string>{"  a", "- b", "+ x", "  c"}));
  EXPECT_EQ(line_diff("", "a\nb"), (std::vector<std::string>{"+ a", "+ b"}));
  EXPECT_EQ(line_diff("a\nb\nc", "b\nc\na"), (std::vector<std::string>{"- a", "  b", "  c", "+ a"}));
}

// Past the LCS table's size limit (hostile generated code), the common head and tail stay and the
// middle is shown removed, then added, instead of allocating (lines + 1)² cells.
TEST(LineDiff, AboveTheCellLimitTheMiddleIsRemovedThenAdded) {
  EXPECT_EQ(line_diff("h\na\nb\nt\n", "h\nb\nx\nt\n", 4),
            (std::vector<std::string>{"  h", "- a", "- b", "+ b", "+ x", "  t"}));
  EXPECT_EQ(line_diff("h\na\nb\nt\n", "h\nb\nx\nt\n"),
            (std::vector<std::string>{"  h", "- a", "  b", "+ x", "  t"}));
}

}  // namespace
}  // namespace pcglab::report
