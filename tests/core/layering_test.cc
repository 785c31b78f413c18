// The dependency rule of docs/ARCHITECTURE.md, checked on the sources: a shared module (core, llm,
// store, nn, report, batch, refine, ...) never includes a track, and a track never includes another
// track. A track is what the build calls one: a folder under src/ with a module.cmake (see
// pcglab_add_tracks in cmake/pcglab_module.cmake); every other folder is a shared module. So a new
// track or shared module is covered without an edit here, and every subfolder (src/birds/letters/,
// src/<track>/torch/) counts as part of its module.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "core/files.h"
#include "testing/testing.h"

namespace pcglab {
namespace {
namespace fs = std::filesystem;

// "file: includes <header>" for every include that breaks the rule under `src`.
std::vector<std::string> layering_violations(const fs::path& src) {
  std::set<std::string> tracks;
  for (const auto& entry : fs::directory_iterator(src)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_directory() && fs::exists(entry.path() / "module.cmake")) tracks.insert(name);
  }
  const std::regex include(R"(^\s*#\s*include\s*"([A-Za-z0-9_]+)/)");
  std::vector<std::string> out;
  for (const auto& entry : fs::recursive_directory_iterator(src)) {
    const fs::path& p = entry.path();
    if (!entry.is_regular_file() || (p.extension() != ".h" && p.extension() != ".cc")) continue;
    const std::string module = fs::relative(p, src).begin()->string();
    std::ifstream in(p);
    std::string line;
    while (std::getline(in, line)) {
      std::smatch m;
      if (!std::regex_search(line, m, include)) continue;
      const std::string target = m[1];
      if (tracks.count(target) != 0 && target != module) {
        out.push_back(fs::relative(p, src).string() + ": " + line.substr(line.find('"')));
      }
    }
  }
  return out;
}

TEST(Layering, SharedModulesNeverIncludeATrackAndTracksNeverIncludeEachOther) {
  const auto violations = layering_violations(testing::source_dir() / "src");
  EXPECT_TRUE(violations.empty()) << ::testing::PrintToString(violations);
  // The tracks known today are found as tracks (a track without module.cmake would not be checked,
  // but the build refuses it).
  EXPECT_TRUE(fs::exists(testing::source_dir() / "src/birds/module.cmake"));
  EXPECT_TRUE(fs::exists(testing::source_dir() / "src/pcgrl/module.cmake"));
  EXPECT_FALSE(fs::exists(testing::source_dir() / "src/nn/module.cmake"));
}

TEST(Layering, TheCheckFindsEachKindOfViolation) {
  testing::TempDir dir;
  write_file_atomic(dir / "src/core/ok.h", "#include \"core/check.h\"\n");
  write_file_atomic(dir / "src/nn/bad.cc", "#include <vector>\n  #include \"birds/level.h\"\n");
  write_file_atomic(dir / "src/birds/level.h", "#include \"core/check.h\"\n#include \"birds/x.h\"\n");
  write_file_atomic(dir / "src/pcgrl/bad.h", "#include \"birds/level.h\"\n");
  write_file_atomic(dir / "src/textgame/ok.cc", "#include \"llm/chat_client.h\"\n");
  write_file_atomic(dir / "src/birds/letters/deep.h", "#include \"pcgrl/dungeon.h\"\n");
  write_file_atomic(dir / "src/refine/bad.h", "#include \"textgame/x.h\"\n");
  for (const char* track : {"birds", "pcgrl", "textgame"})
    write_file_atomic(dir / "src" / track / "module.cmake", "pcglab_module(x)\n");
  auto v = layering_violations(dir / "src");
  std::sort(v.begin(), v.end());
  EXPECT_EQ(v, (std::vector<std::string>{"birds/letters/deep.h: \"pcgrl/dungeon.h\"",
                                         "nn/bad.cc: \"birds/level.h\"", "pcgrl/bad.h: \"birds/level.h\"",
                                         "refine/bad.h: \"textgame/x.h\""}));
}

}  // namespace
}  // namespace pcglab
