// The official competition folder layout, shared by every Science Birds stage:
//   <team>/raw/<C>/<team>_<C>_<trial>.txt           LLM responses
//   <team>/intermediate/<C>/<team>_<C>_<trial>.txt  extracted code (code-extraction-script)
//   <team>/levels/<C>/<team>_<C>_<trial>.xml         levels (text-to-xml-converter-script)
// A folder is a team folder when it has a raw/ (or levels/) sub-folder; otherwise each such
// sub-folder of it is a team.
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

// Team folders under `dir` (or `dir` itself), sorted by name. Throws SetupError when none.
std::vector<std::filesystem::path> find_team_folders(const std::filesystem::path& dir, const std::string& stage = "raw");

// Every file of `stage` (raw, intermediate, levels) of a team, sorted by character then name.
std::vector<TrialFile> list_stage_files(const std::filesystem::path& team_dir, const std::string& stage,
                                        const std::string& extension);

// <team>/<stage>/<C>/<stem><extension>
std::filesystem::path stage_path(const std::filesystem::path& team_dir, const std::string& stage,
                                 const std::string& character, const std::string& stem, const std::string& extension);

// A letters option ("A-Z", "ABC", "a-e,x") → the capital letters in order. Throws SetupError.
std::string parse_letters(const std::string& spec);

// The trial number of a file name: its last '_'-separated part before the extension, or -1.
int trial_number_of(const std::string& stem);

}  // namespace pcglab::birds
