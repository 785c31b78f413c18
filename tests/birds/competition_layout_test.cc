// The competition layout's one rule for teams and trial files, on folders with stray files,
// misplaced trials and symlink loops.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "birds/competition_layout.h"
#include "core/check.h"
#include "core/files.h"
#include "testing/testing.h"

namespace pcglab::birds {
namespace {
namespace fs = std::filesystem;

std::vector<std::string> stems(const std::vector<TrialFile>& files) {
  std::vector<std::string> out;
  for (const auto& f : files) out.push_back(f.character + "/" + f.stem);
  return out;
}

std::vector<std::string> names(const std::vector<fs::path>& teams) {
  std::vector<std::string> out;
  for (const auto& t : teams) out.push_back(t.filename().string());
  return out;
}

TEST(CompetitionLayout, OnlyFilesNamedForTheirTeamLetterAndTrialAreTrials) {
  testing::TempDir dir;
  const fs::path raw = dir / "t/raw";
  for (const char* f : {"A/t_A_1.txt", "A/t_A_10.txt", "A/t_A_2.txt", "B/t_B_1.txt",
                        // left out: another letter's name in A/, no trial number, a copy, a leading
                        // zero, another team's name, another extension, a folder that is not a letter
                        "A/t_B_6.txt", "A/random.txt", "A/x copy.txt", "A/t_A_1 copy.txt", "A/t_A_01.txt",
                        "A/u_A_3.txt", "A/t_A_3.xml", "notes/t_notes_1.txt", "a/t_a_1.txt", "loose.txt"}) {
    write_file_atomic(raw / f, "x");
  }
  fs::create_directories(raw / "B/t_B_2.txt");  // a folder with a trial's name
  EXPECT_EQ(stems(list_stage_files(dir / "t", "raw", ".txt", LayoutWarnings::kSilent)),
            (std::vector<std::string>{"A/t_A_1", "A/t_A_2", "A/t_A_10", "B/t_B_1"}));
  // A trailing '/' or "/." names the same team.
  EXPECT_EQ(stems(list_stage_files(dir.path() / "t/", "raw", ".txt", LayoutWarnings::kSilent)).size(), 4u);
  EXPECT_EQ(stems(list_stage_files(dir.path() / "t/.", "raw", ".txt", LayoutWarnings::kSilent)).size(), 4u);
  EXPECT_EQ(team_name_of(dir.path() / "t/."), "t");
  EXPECT_EQ(team_name_of(dir.path() / "t/"), "t");
}

TEST(CompetitionLayout, ImagesListColourViewsToo) {
  testing::TempDir dir;
  for (const char* f : {"A/t_A_1.png", "A/t_A_1_raw.png", "A/t_A_raw.png"})
    write_file_atomic(dir / "t/images" / f, "x");
  EXPECT_EQ(stems(list_stage_files(dir / "t", "images", ".png", LayoutWarnings::kSilent)),
            (std::vector<std::string>{"A/t_A_1", "A/t_A_1_raw"}));
}

TEST(CompetitionLayout, SymlinkLoopsAndSecondNamesAreNotTeams) {
  testing::TempDir dir;
  write_file_atomic(dir / "teamx/raw/A/teamx_A_1.txt", "x");
  fs::create_directories(dir / "empty/raw");  // a team with no responses is a team
  fs::create_directories(dir / "loop");
  fs::create_directory_symlink("../loop", dir / "loop/raw");  // raw/ leads back into the team
  fs::create_directory_symlink("teamx", dir / "dup");         // a second name for teamx
  fs::create_directory_symlink(".", dir / "self");            // the competition folder itself
  fs::create_directory_symlink("spin", dir / "spin");         // cannot be followed
  fs::create_directories(dir / "result");
  fs::create_directories(dir / "notes");
  EXPECT_EQ(names(list_team_folders(dir.path(), "raw", LayoutWarnings::kSilent)),
            (std::vector<std::string>{"empty", "teamx"}));
  // The scoring script's teams (every folder but result/): the same minus the stage requirement.
  EXPECT_EQ(names(list_team_folders(dir.path(), "", LayoutWarnings::kSilent)),
            (std::vector<std::string>{"empty", "notes", "teamx"}));
  EXPECT_TRUE(list_team_folders(dir.path(), "levels", LayoutWarnings::kSilent).empty());
  try {
    find_team_folders(dir.path(), "levels", LayoutWarnings::kSilent);
    FAIL() << "no team with levels/";
  } catch (const SetupError& e) {
    EXPECT_NE(std::string(e.what()).find("no team folder"), std::string::npos) << e.what();
  }
  EXPECT_EQ(names(find_team_folders(dir / "teamx", "raw")), (std::vector<std::string>{"teamx"}));
}

}  // namespace
}  // namespace pcglab::birds
