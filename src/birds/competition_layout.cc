#include "birds/competition_layout.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/check.h"
#include "core/files.h"

namespace pcglab::birds {
namespace fs = std::filesystem;

std::vector<fs::path> find_team_folders(const fs::path& dir, const std::string& stage) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw SetupError(fmt::format("{}: not a folder", dir.string()));
  if (fs::is_directory(dir / stage, ec)) return {dir};
  std::vector<fs::path> teams;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.is_directory(ec) && fs::is_directory(entry.path() / stage, ec)) teams.push_back(entry.path());
  }
  std::sort(teams.begin(), teams.end());
  if (teams.empty()) {
    throw SetupError(fmt::format("{}: no team folder (a folder with a {}/ sub-folder) found", dir.string(), stage));
  }
  return teams;
}

std::vector<TrialFile> list_stage_files(const fs::path& team_dir, const std::string& stage, const std::string& extension) {
  std::vector<TrialFile> out;
  std::error_code ec;
  const fs::path root = team_dir / stage;
  if (!fs::is_directory(root, ec)) return out;
  const std::string team = team_dir.filename().string();
  for (const auto& character : fs::directory_iterator(root, ec)) {
    if (!character.is_directory(ec)) continue;
    for (const auto& file : fs::directory_iterator(character.path(), ec)) {
      if (!file.is_regular_file(ec) || file.path().extension() != extension) continue;
      if (is_temporary_file(file.path())) continue;
      out.push_back({team, character.path().filename().string(), file.path().stem().string(), file.path()});
    }
  }
  std::sort(out.begin(), out.end(), [](const TrialFile& a, const TrialFile& b) {
    if (a.character != b.character) return a.character < b.character;
    const int ta = trial_number_of(a.stem);
    const int tb = trial_number_of(b.stem);
    return ta != tb ? ta < tb : a.stem < b.stem;
  });
  return out;
}

fs::path stage_path(const fs::path& team_dir, const std::string& stage, const std::string& character,
                    const std::string& stem, const std::string& extension) {
  return team_dir / stage / character / (stem + extension);
}

int trial_number_of(const std::string& stem) {
  const size_t us = stem.rfind('_');
  const std::string last = us == std::string::npos ? stem : stem.substr(us + 1);
  if (last.empty() || last.size() > 9 || !std::all_of(last.begin(), last.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return -1;
  }
  return std::stoi(last);
}

std::string parse_letters(const std::string& spec) {
  std::string out;
  for (size_t i = 0; i < spec.size(); ++i) {
    const char c = static_cast<char>(std::toupper(static_cast<unsigned char>(spec[i])));
    if (c == ',' || c == ' ') continue;
    if (c < 'A' || c > 'Z') throw SetupError(fmt::format("--letters: '{}' is not a letter (use e.g. A-Z or A,C,E)", spec[i]));
    if (i + 2 < spec.size() && spec[i + 1] == '-') {
      const char end = static_cast<char>(std::toupper(static_cast<unsigned char>(spec[i + 2])));
      if (end < c || end > 'Z') throw SetupError(fmt::format("--letters: bad range {}-{}", c, spec[i + 2]));
      for (char x = c; x <= end; ++x) out += x;
      i += 2;
    } else {
      out += c;
    }
  }
  if (out.empty()) throw SetupError("--letters: no letters");
  return out;
}

}  // namespace pcglab::birds
