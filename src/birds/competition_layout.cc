#include "birds/competition_layout.h"

#include <algorithm>
#include <string_view>

#include <fmt/format.h>

#include "core/check.h"
#include "core/files.h"
#include "core/log.h"

namespace pcglab::birds {
namespace fs = std::filesystem;

namespace {

// The sub-folders a team folder may hold (checked for symlink loops).
constexpr const char* kTeamSubfolders[] = {"raw",       "intermediate", "levels",   "images",
                                           "stability", "similarity",   "diversity"};

// Whether `inner` is `outer` or inside it (both canonical).
bool is_within(const fs::path& inner, const fs::path& outer) {
  auto o = outer.begin();
  for (auto i = inner.begin(); o != outer.end(); ++i, ++o) {
    if (i == inner.end() || *i != *o) return false;
  }
  return true;
}

// Why the sub-folder `team` of `dir` (canonical: `canonical_dir`) is not a usable team, or "".
std::string team_folder_problem(const fs::path& team, const fs::path& canonical_dir,
                                fs::path& canonical_team) {
  std::error_code ec;
  canonical_team = fs::canonical(team, ec);
  if (ec) return fmt::format("cannot be followed ({})", ec.message());
  if (is_within(canonical_dir, canonical_team))
    return "a symlink loop: it leads back to the folder that holds it";
  for (const char* sub : kTeamSubfolders) {
    const fs::path p = team / sub;
    if (!fs::exists(fs::symlink_status(p, ec))) continue;
    const fs::path target = fs::canonical(p, ec);
    if (ec) return fmt::format("{}/ cannot be followed ({})", sub, ec.message());
    if (is_within(canonical_team, target))
      return fmt::format("a symlink loop: {}/ leads back to the team folder", sub);
  }
  return "";
}

bool is_letter_folder(const std::string& name) {
  return name.size() == 1 && name[0] >= 'A' && name[0] <= 'Z';
}

bool is_trial_number(std::string_view s) {
  return !s.empty() && s.size() <= 9 && s[0] != '0' &&
         std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Whether `name` is <team>_<C>_<trial><extension> (in images/, also <team>_<C>_<trial>_raw.png).
bool is_trial_file_name(std::string_view name, const std::string& team, const std::string& character,
                        const std::string& stage, const std::string& extension) {
  const std::string prefix = team + "_" + character + "_";
  if (name.size() <= prefix.size() + extension.size() || name.substr(0, prefix.size()) != prefix ||
      name.substr(name.size() - extension.size()) != extension) {
    return false;
  }
  std::string_view trial = name.substr(prefix.size(), name.size() - prefix.size() - extension.size());
  if (stage == "images" && trial.size() > 4 && trial.substr(trial.size() - 4) == "_raw")
    trial.remove_suffix(4);
  return is_trial_number(trial);
}

}  // namespace

std::string team_name_of(const fs::path& team_dir) {
  fs::path p = fs::absolute(team_dir).lexically_normal();
  if (p.filename().empty()) p = p.parent_path();  // "team/" normalises to "team/"
  return p.filename().string();
}

std::vector<fs::path> list_team_folders(const fs::path& dir, const std::string& stage,
                                        LayoutWarnings warnings) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw SetupError(fmt::format("{}: not a folder", dir.string()));
  if (!stage.empty() && fs::is_directory(dir / stage, ec)) return {dir};
  const fs::path canonical_dir = fs::canonical(dir, ec);
  std::vector<fs::path> candidates;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const bool listed =
        stage.empty() ? entry.path().filename() != "result" : fs::exists(entry.path() / stage, ec);
    // A link that loops or dangles is not a directory; one that would be a team is worth a word.
    if (entry.is_symlink(ec) && !fs::exists(entry.path(), ec) && warnings == LayoutWarnings::kLog) {
      log_warn("{}: left out: a symlink that cannot be followed (a loop, or its target is missing)",
               entry.path().string());
    }
    if (entry.is_directory(ec) && listed) candidates.push_back(entry.path());
  }
  // Real folders first, so that of a folder and a link to it, the link is the one left out.
  std::sort(candidates.begin(), candidates.end(), [&](const fs::path& a, const fs::path& b) {
    const bool la = fs::is_symlink(a, ec), lb = fs::is_symlink(b, ec);
    return la != lb ? lb : a < b;
  });
  std::vector<fs::path> teams;
  std::vector<std::pair<fs::path, fs::path>> seen;  // canonical, as listed
  for (const fs::path& team : candidates) {
    fs::path canonical_team;
    std::string problem = team_folder_problem(team, canonical_dir, canonical_team);
    if (problem.empty()) {
      for (const auto& [c, first] : seen) {
        if (c == canonical_team)
          problem = fmt::format("the same folder as {} (a second name for one team)", first.string());
      }
    }
    if (!problem.empty()) {
      if (warnings == LayoutWarnings::kLog)
        log_warn("{}: left out as a team folder: {}", team.string(), problem);
      continue;
    }
    seen.emplace_back(canonical_team, team);
    teams.push_back(team);
  }
  std::sort(teams.begin(), teams.end());
  return teams;
}

std::vector<fs::path> find_team_folders(const fs::path& dir, const std::string& stage,
                                        LayoutWarnings warnings) {
  auto teams = list_team_folders(dir, stage, warnings);
  if (teams.empty()) {
    throw SetupError(
        fmt::format("{}: no team folder: neither {}/ nor <team>/{}/ inside it (layout: <team>/{}/<C>/...)",
                    dir.string(), (dir / stage).string(), stage, stage));
  }
  return teams;
}

std::vector<TrialFile> list_stage_files(const fs::path& team_dir, const std::string& stage,
                                        const std::string& extension, LayoutWarnings warnings) {
  std::vector<TrialFile> out;
  std::error_code ec;
  const fs::path root = team_dir / stage;
  if (!fs::is_directory(root, ec)) return out;
  const std::string team = team_name_of(team_dir);
  auto leave_out = [&](const fs::path& p, const std::string& why) {
    if (warnings == LayoutWarnings::kLog) log_warn("{}: left out: {}", p.string(), why);
  };
  std::vector<fs::directory_entry> characters;
  for (const auto& e : fs::directory_iterator(root, ec)) characters.push_back(e);
  std::sort(characters.begin(), characters.end());
  for (const auto& character : characters) {
    const std::string c = character.path().filename().string();
    if (!character.is_directory(ec)) {
      if (!is_temporary_file(character.path()))
        leave_out(character.path(), fmt::format("not in a letter folder ({}/<C>/)", stage));
      continue;
    }
    if (!is_letter_folder(c)) {
      leave_out(character.path(), "not a letter folder (one capital letter A-Z)");
      continue;
    }
    std::vector<fs::directory_entry> files;
    for (const auto& f : fs::directory_iterator(character.path(), ec)) files.push_back(f);
    std::sort(files.begin(), files.end());
    for (const auto& file : files) {
      if (is_temporary_file(file.path())) continue;
      const std::string name = file.path().filename().string();
      if (!file.is_regular_file(ec)) {
        leave_out(file.path(), "not a file");
      } else if (!is_trial_file_name(name, team, c, stage, extension)) {
        leave_out(file.path(),
                  fmt::format("not named {}_{}_<trial>{} (trial: a number without leading zeros)", team, c,
                              extension));
      } else {
        out.push_back({team, c, file.path().stem().string(), file.path()});
      }
    }
  }
  auto trial_of = [](std::string_view stem) {  // a colour view sorts with its image
    if (stem.size() > 4 && stem.substr(stem.size() - 4) == "_raw") stem.remove_suffix(4);
    return trial_number_of(std::string(stem));
  };
  std::stable_sort(out.begin(), out.end(), [&](const TrialFile& a, const TrialFile& b) {
    if (a.character != b.character) return a.character < b.character;
    const int ta = trial_of(a.stem);
    const int tb = trial_of(b.stem);
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
  if (last.empty() || last.size() > 9 ||
      !std::all_of(last.begin(), last.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return -1;
  }
  return std::stoi(last);
}

std::string parse_letters(const std::string& spec) {
  std::string out;
  for (size_t i = 0; i < spec.size(); ++i) {
    const char c = static_cast<char>(std::toupper(static_cast<unsigned char>(spec[i])));
    if (c == ',' || c == ' ') continue;
    if (c < 'A' || c > 'Z')
      throw SetupError(fmt::format("--letters: '{}' is not a letter (use e.g. A-Z or A,C,E)", spec[i]));
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
