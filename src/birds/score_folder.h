// `pcglab birds score`'s work as one call: read a competition's results (the official folder
// layout or a trial_scores.csv), the prompts' lengths for the tie-break, score and rank, and write
// the official output files.
#pragma once

#include <filesystem>

#include "birds/scoring.h"

namespace pcglab::birds {

struct ScoreFolderOptions {
  // A competition folder (<team>/stability|similarity|diversity/<C>.json) or a trial_scores.csv.
  std::filesystem::path input;
  // Where the outputs go; empty: <input>/result (a csv: result/ beside it).
  std::filesystem::path out;
  // A folder of <team>.txt prompts: ties go to the shorter prompt, in words (empty: none).
  std::filesystem::path prompts;
  ScoringConfig config;  // prompt_lengths is filled from `prompts`
};

struct ScoredFolder {
  ScoringResult result;
  std::filesystem::path out;  // where the outputs were written
};

// Throws InputError for an input that cannot be read, SetupError for a bad layout.
ScoredFolder score_folder(const ScoreFolderOptions& options);

}  // namespace pcglab::birds
