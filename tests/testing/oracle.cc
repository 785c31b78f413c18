#include "testing/oracle.h"

#include <unistd.h>

#include <cstdlib>
#include <stdexcept>

#include "core/files.h"

namespace pcglab::testing {
namespace fs = std::filesystem;
namespace {

// Where scripts/install-deps.sh puts the packages (the same rule as there).
fs::path oracle_folder() {
  if (const char* dir = std::getenv("PCGLAB_ORACLE_DIR"); dir != nullptr) return dir;
  if (const char* cache = std::getenv("XDG_CACHE_HOME"); cache != nullptr && *cache != '\0') {
    return fs::path(cache) / "pcglab/npm";
  }
  const char* home = std::getenv("HOME");
  return fs::path(home != nullptr ? home : "") / ".cache/pcglab/npm";
}

bool node_on_path() {
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "";
  size_t start = 0;
  while (start <= dirs.size()) {
    const size_t end = std::min(dirs.find(':', start), dirs.size());
    const fs::path dir = end > start ? fs::path(dirs.substr(start, end - start)) : fs::path(".");
    if (::access((dir / "node").c_str(), X_OK) == 0) return true;
    start = end + 1;
  }
  return false;
}

bool has_package(const fs::path& dir, const std::string& name, const std::string& version) {
  std::error_code ec;
  const fs::path manifest = dir / "node_modules" / name / "package.json";
  if (!fs::is_regular_file(manifest, ec)) return false;
  try {
    return parse_json(read_file(manifest), manifest.string()).value("version", "") == version;
  } catch (const std::exception&) {
    return false;
  }
}

bool has_packages(const fs::path& dir) {
  return has_package(dir, "chatgpt4pcg", "1.4.1") && has_package(dir, "words-count", "2.0.2");
}

}  // namespace

std::optional<fs::path> official_oracle_dir() {
  const fs::path dir = oracle_folder();
  if (!node_on_path() || !has_packages(dir)) return std::nullopt;
  return dir;
}

std::string missing_official_oracle() {
  if (!node_on_path()) {
    return "the official npm oracles need Node.js and no `node` is on PATH (scripts/install-deps.sh "
           "installs it)";
  }
  return "the official npm oracles chatgpt4pcg@1.4.1 and words-count@2.0.2 are not installed in " +
         oracle_folder().string() +
         " (scripts/install-deps.sh installs them; PCGLAB_ORACLE_DIR chooses the folder)";
}

Json run_official_oracle(const Json& cases) {
  const auto dir = official_oracle_dir();
  if (!dir) throw std::runtime_error(missing_official_oracle());
  TempDir tmp;
  write_file_atomic(tmp / "cases.json", dump_json(cases));
  const auto run = run_program({"/usr/bin/env", "node", (source_dir() / "tests/oracle/run.js").string(),
                                dir->string(), (tmp / "cases.json").string(), (tmp / "out.json").string()});
  if (run.exit_code != 0) throw std::runtime_error("node oracle failed: " + run.err);
  return parse_json(read_file(tmp / "out.json"), "oracle output");
}

}  // namespace pcglab::testing
