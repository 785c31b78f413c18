// The official competition folder layout, shared by every Science Birds stage and command:
//   <team>/raw/<C>/<team>_<C>_<trial>.txt           LLM responses
//   <team>/intermediate/<C>/<team>_<C>_<trial>.txt  extracted code (code-extraction-script)
//   <team>/levels/<C>/<team>_<C>_<trial>.xml         levels (text-to-xml-converter-script)
//   <team>/images/<C>/<team>_<C>_<trial>.png         level images (and <...>_raw.png colour views)
// This file is the one place that lists it. The rules every command applies:
// - Teams: a folder is a team folder when it has the stage's sub-folder (raw/, levels/, ...);
//   otherwise each such sub-folder of it is a team. A sub-folder that is a symlink loop (it, or
//   one of its stage folders, leads back to itself or the folder given), a second name for a team
//   already listed, or a link that cannot be followed, is left out with a warning.
// - Trials: in <stage>/<C>/, C one capital letter A-Z, only files named <team>_<C>_<trial><ext>
//   (team = the team folder's name, trial = a number without leading zeros) are trials; every
//   other file, and every folder that is not a letter, is left out with one warning each.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace pcglab::birds {

struct TrialFile {
  std::string team;
  std::string character;  // the folder name under raw/, e.g. "A"
  std::string stem;       // file name without extension, e.g. "team_A_3"
  std::filesystem::path path;
};

// Whether the listing functions log a warning for each entry they leave out. Commands list a
// folder once with kLog (the stage itself) and may count with kSilent beforehand.
enum class LayoutWarnings { kLog, kSilent };

// A team's name: its folder's name ("." and a trailing '/' resolved).
std::string team_name_of(const std::filesystem::path& team_dir);

// Team folders under `dir` (or `dir` itself), sorted by name; empty when none. An empty `stage`:
// every sub-folder except result/ (the official scoring script's teams).
std::vector<std::filesystem::path> list_team_folders(const std::filesystem::path& dir,
                                                     const std::string& stage,
                                                     LayoutWarnings warnings = LayoutWarnings::kLog);

// list_team_folders, but throws SetupError (naming the folder and the layout) when there is none.
std::vector<std::filesystem::path> find_team_folders(const std::filesystem::path& dir,
                                                     const std::string& stage = "raw",
                                                     LayoutWarnings warnings = LayoutWarnings::kLog);

// Every trial file of `stage` (raw, intermediate, levels, images) of a team, sorted by character
// then trial number. In images/, <stem>_raw.png colour views are listed too.
std::vector<TrialFile> list_stage_files(const std::filesystem::path& team_dir, const std::string& stage,
                                        const std::string& extension,
                                        LayoutWarnings warnings = LayoutWarnings::kLog);

// <team>/<stage>/<C>/<stem><extension>
std::filesystem::path stage_path(const std::filesystem::path& team_dir, const std::string& stage,
                                 const std::string& character, const std::string& stem,
                                 const std::string& extension);

// A letters option ("A-Z", "ABC", "a-e,x") → the capital letters in order. Throws SetupError.
std::string parse_letters(const std::string& spec);

// The trial number of a file name: its last '_'-separated part before the extension, or -1.
int trial_number_of(const std::string& stem);

}  // namespace pcglab::birds
