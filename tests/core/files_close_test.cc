// write_file_atomic checks close(): an error reported only by close() (NFS, FUSE, quota) fails the
// write and leaves the target untouched. close() is interposed for this test binary: it fails once
// for a file whose name holds kFailMarker while the test arms it, and is libc's otherwise.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

#include <fmt/format.h>

#include "core/check.h"
#include "core/files.h"
#include "testing/testing.h"

namespace {
std::atomic<bool> g_fail_close{false};
constexpr const char* kFailMarker = "close-fails";

bool names_marked_file(int fd) {
  char link[64];
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  char target[PATH_MAX];
  const ssize_t n = ::readlink(link, target, sizeof target - 1);
  if (n <= 0) return false;
  target[n] = '\0';
  return std::strstr(target, kFailMarker) != nullptr;
}
}  // namespace

extern "C" int close(int fd) {
  using Close = int (*)(int);
  static const auto real_close = reinterpret_cast<Close>(::dlsym(RTLD_NEXT, "close"));
  if (g_fail_close.load() && names_marked_file(fd)) {
    g_fail_close = false;
    real_close(fd);  // Linux releases the descriptor even when close reports an error
    errno = EIO;
    return -1;
  }
  return real_close(fd);
}

namespace pcglab {
namespace {
namespace fs = std::filesystem;

TEST(AtomicWrite, CloseErrorFailsTheWriteAndKeepsTheOldFile) {
  testing::TempDir dir;
  const fs::path p = dir / (std::string(kFailMarker) + ".json");
  write_file_atomic(p, "old");
  g_fail_close = true;
  try {
    write_file_atomic(p, "new contents");
    ADD_FAILURE() << "a failed close() went unnoticed";
  } catch (const SetupError& e) {
    EXPECT_EQ(std::string(e.what()), fmt::format("cannot write {}: {}", p.string(), std::strerror(EIO)));
  }
  EXPECT_FALSE(g_fail_close.load()) << "close() was not called on the temporary";
  g_fail_close = false;
  EXPECT_EQ(read_file(p), "old");
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir.path())) files += e.is_regular_file();
  EXPECT_EQ(files, 1) << "the temporary was left behind";
  write_file_atomic(p, "new contents");  // and the next write works
  EXPECT_EQ(read_file(p), "new contents");
}

}  // namespace
}  // namespace pcglab
