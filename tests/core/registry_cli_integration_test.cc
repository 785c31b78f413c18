// What the pcglab executable has registered (`pcglab cli registry`), checked against what the build
// has: every libtorch module built is registered by the code that opens it and the other way round,
// every test area is a folder under tests/ with its tests built, and every CLI verb's group exists
// (a verb without a group is a top-level command such as `pcglab merge`).
// The tracks' own tests check their own registrations (tests/<track>/registry_test.cc).
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "core/json.h"
#include "testing/test_areas.h"
#include "testing/testing.h"

namespace pcglab {
namespace {
namespace fs = std::filesystem;

Json registered() {
  const auto r = testing::run_pcglab({"cli", "registry", "--format", "json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return parse_json(r.out, "pcglab cli registry");
}

std::set<std::string> names_of(const Json& rows, const std::string& kind) {
  std::set<std::string> out;
  for (const auto& row : rows)
    if (row.at("kind") == kind) out.insert(row.at("name").get<std::string>());
  return out;
}

TEST(RegistryCli, EveryLibtorchModuleBuiltIsRegisteredAndTheOtherWayRound) {
  std::set<std::string> built;
  for (const auto& entry : fs::directory_iterator(PCGLAB_BINARY_DIR)) {
    const std::string file = entry.path().filename().string();
    if (file == "libpcglab_torch.so") {
      built.insert("nn");
    } else if (file.rfind("libpcglab_", 0) == 0 && file.size() > 19 &&
               file.compare(file.size() - 9, 9, "_torch.so") == 0) {
      built.insert(file.substr(10, file.size() - 19));
    }
  }
  EXPECT_EQ(names_of(registered(), "libtorch-modules"), built);
  EXPECT_EQ(built.count("nn"), 1u);
}

TEST(RegistryCli, VerbsBelongToRegisteredGroups) {
  const Json rows = registered();
  const auto groups = names_of(rows, "cli-groups");
  const auto verbs = names_of(rows, "cli-verbs");
  EXPECT_FALSE(groups.empty());
  EXPECT_FALSE(verbs.empty());
  for (const auto& verb : verbs) {  // "group verb", or a top-level command ("merge")
    if (verb.find(' ') != std::string::npos) {
      EXPECT_EQ(groups.count(verb.substr(0, verb.find(' '))), 1u) << verb;
    }
  }
  for (const auto& group : groups) {
    bool has_verb = false;
    for (const auto& verb : verbs) has_verb |= verb.rfind(group + " ", 0) == 0;
    EXPECT_TRUE(has_verb) << group;
  }
}

// Test areas are the folders under tests/ (but testing, data, oracle), each built into at least
// one test executable: a new tests/<area>/ needs no edit of tests/CMakeLists.txt.
TEST(RegistryCli, TestAreasAreTheFoldersUnderTests) {
  std::set<std::string> folders;
  for (const auto& entry : fs::directory_iterator(testing::source_dir() / "tests")) {
    const std::string name = entry.path().filename().string();
    if (entry.is_directory() && name != "testing" && name != "data" && name != "oracle") folders.insert(name);
  }
  std::set<std::string> areas;
  const std::string text = PCGLAB_TEST_AREAS;
  for (size_t start = 0; start <= text.size();) {
    const size_t end = std::min(text.find(',', start), text.size());
    areas.insert(text.substr(start, end - start));
    start = end + 1;
  }
  EXPECT_EQ(areas, folders);
  for (const auto& area : areas) {
    bool built = false;
    for (const char* label : {"unit", "integration", "slow"})
      built |= fs::exists(fs::path(PCGLAB_BINARY_DIR) / "tests" / (area + "_" + label + "_tests"));
    EXPECT_TRUE(built) << area;
    EXPECT_TRUE(fs::is_directory(testing::source_dir() / "src" / area)) << area << ": tests mirror src/";
  }
}

}  // namespace
}  // namespace pcglab
