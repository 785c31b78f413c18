// The built binaries have no zero-length FDE (unwind entry). GCC gives an empty hot/cold `.cold`
// part one, and Debian's lld 14 could list it in .eh_frame_hdr in place of the real FDE of the
// function at the same address, so an exception thrown through that function called
// std::terminate (`pcgrl train --reward FILE` aborted). pcglab links with GNU ld, which leaves them
// out (cmake/toolchain.cmake); this test fails on a binary linked the other way.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "testing/testing.h"

namespace pcglab {
namespace {
namespace fs = std::filesystem;

// Number of FDEs in `binary` whose address range is empty, and the number of FDEs in all.
std::pair<size_t, size_t> zero_length_fdes(const fs::path& readelf, const fs::path& binary) {
  const std::string command = readelf.string() + " --debug-dump=frames '" + binary.string() + "' 2>/dev/null";
  FILE* pipe = ::popen(command.c_str(), "r");  // NOLINT(cert-env33-c): a fixed tool on a built file
  if (pipe == nullptr) return {0, 0};
  size_t zero = 0, all = 0;
  char line[4096];
  while (std::fgets(line, sizeof line, pipe) != nullptr) {
    const std::string text = line;
    if (text.find(" FDE ") == std::string::npos) continue;
    const size_t pc = text.find("pc=");
    const size_t dots = text.find("..", pc);
    if (pc == std::string::npos || dots == std::string::npos) continue;
    ++all;
    const std::string begin = text.substr(pc + 3, dots - pc - 3);
    std::string end = text.substr(dots + 2);
    end.erase(end.find_last_not_of(" \r\n") + 1);
    if (begin == end) ++zero;
  }
  ::pclose(pipe);
  return {zero, all};
}

TEST(UnwindTable, NoBuiltBinaryHasAZeroLengthUnwindEntry) {
  const fs::path readelf = testing::find_program({"readelf"});
  if (readelf.empty()) GTEST_SKIP() << "readelf (binutils) is not installed";
  std::vector<fs::path> binaries = {PCGLAB_CLI};
  for (const auto& entry : fs::recursive_directory_iterator(PCGLAB_BINARY_DIR)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && name.starts_with("libpcglab") && name.ends_with(".so"))
      binaries.push_back(entry.path());
  }
  ASSERT_GE(binaries.size(), 2u) << "no libpcglab*.so under " << PCGLAB_BINARY_DIR;
  for (const fs::path& binary : binaries) {
    const auto [zero, all] = zero_length_fdes(readelf, binary);
    EXPECT_GT(all, 0u) << binary << ": readelf listed no unwind entries";
    EXPECT_EQ(zero, 0u) << binary << " has " << zero << " zero-length FDEs of " << all;
  }
}

}  // namespace
}  // namespace pcglab
