#include "core/files.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "core/check.h"

namespace pcglab {
namespace fs = std::filesystem;

namespace {
constexpr std::string_view kTempMarker = ".pcglab-tmp-";

std::string errno_text() {
  return std::strerror(errno);
}

void write_all(int fd, std::string_view data, const fs::path& shown) {
  size_t off = 0;
  while (off < data.size()) {
    const ssize_t n = ::write(fd, data.data() + off, data.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw SetupError(fmt::format("cannot write {}: {}", shown.string(), errno_text()));
    }
    off += static_cast<size_t>(n);
  }
}
}  // namespace

std::string read_file(const fs::path& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    throw InputError(fmt::format("cannot read {}: it is a directory", path.string()));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw InputError(fmt::format("cannot read {}: {}", path.string(),
                                 fs::exists(path, ec) ? errno_text() : "no such file"));
  }
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) throw InputError(fmt::format("cannot read {}: read error", path.string()));
  return buf.str();
}

fs::path temp_path_for(const fs::path& path) {
  static std::atomic<uint64_t> counter{0};
  return path.parent_path() /
         fmt::format(".{}{}{}-{}", path.filename().string(), kTempMarker, ::getpid(), counter.fetch_add(1));
}

void write_file_atomic(const fs::path& path, std::string_view data) {
  std::error_code ec;
  const fs::path parent = path.parent_path();
  if (!parent.empty()) {
    fs::create_directories(parent, ec);
    if (ec) throw SetupError(fmt::format("cannot create folder {}: {}", parent.string(), ec.message()));
  }
  const fs::path tmp = temp_path_for(path);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw SetupError(fmt::format("cannot write {}: {}", path.string(), errno_text()));
  try {
    write_all(fd, data, path);
    if (::fsync(fd) != 0) throw SetupError(fmt::format("cannot write {}: {}", path.string(), errno_text()));
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  // close() can report a write error of its own (NFS, some FUSE file systems, quota): the file is
  // not known to be complete, so it must not replace the target.
  if (::close(fd) != 0) {
    const std::string cause = errno_text();
    ::unlink(tmp.c_str());
    throw SetupError(fmt::format("cannot write {}: {}", path.string(), cause));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string cause = errno_text();
    ::unlink(tmp.c_str());
    throw SetupError(fmt::format("cannot write {}: {}", path.string(), cause));
  }
  // Make the rename itself durable.
  const int dfd = ::open(parent.empty() ? "." : parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

bool write_file_if_changed(const fs::path& path, std::string_view data) {
  std::error_code ec;
  if (fs::is_regular_file(path, ec) && fs::file_size(path, ec) == data.size() && !ec) {
    try {
      if (read_file(path) == data) return false;
    } catch (const InputError&) {  // unreadable: write it
    }
  }
  write_file_atomic(path, data);
  return true;
}

bool is_temporary_file(const fs::path& path) {
  return path.filename().string().find(kTempMarker) != std::string::npos;
}

int remove_stale_temporaries(const fs::path& dir) {
  int removed = 0;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file(ec) && is_temporary_file(it->path())) {
      if (fs::remove(it->path(), ec)) ++removed;
    }
  }
  return removed;
}

int remove_dead_writers_temporaries(const fs::path& dir) {
  std::vector<fs::path> dead;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (!e.is_regular_file(ec) || !is_temporary_file(e.path())) continue;
    const std::string name = e.path().filename().string();
    const size_t at = name.find(kTempMarker) + kTempMarker.size();
    const long pid = std::strtol(name.c_str() + at, nullptr, 10);
    if (pid <= 0 || (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)) dead.push_back(e.path());
  }
  int removed = 0;
  for (const fs::path& p : dead)
    if (fs::remove(p, ec)) ++removed;
  return removed;
}

}  // namespace pcglab
