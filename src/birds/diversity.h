// Diversity exactly as the 2024 official script (diversity-checking-script/main.py, commit 2abb58d):
// over a character's trials, the sum of scipy's cosine distance 1 - u·v/(|u||v|) over every pair
// i < j of the trials present, divided by n(n+1)/2 - n with n the CONFIGURED trial count (10), so
// missing trials lower it. The vectors are the 26 softmax probabilities sorted by label (2024) or
// the classifier's CLS embedding (2025).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/thread_pool.h"

namespace pcglab::birds {

struct TrialVector {
  std::string id;  // e.g. "team_A_3"
  std::vector<double> vector;
};

struct PairDistance {
  std::string trial1, trial2;
  double distance = 0;
};

struct DiversityResult {
  double rate = 0;
  std::vector<PairDistance> pairs;
};

// scipy.spatial.distance.cosine; a zero vector (which scipy turns into NaN) gives 0 here.
double cosine_distance(const std::vector<double>& u, const std::vector<double>& v);

DiversityResult diversity_of(const std::vector<TrialVector>& trials, int configured_trials);

enum class DiversityVectors { kSoftmax, kClsEmbedding };

// One character's diversity: ok, or why its similarity file could not be used.
struct CharacterDiversity {
  std::string team, character;
  std::filesystem::path similarity_file;
  bool ok = false;
  std::string error;  // names the file and the cause
};

// For every team under `dir`: reads <team>/similarity/<C>.json and writes <team>/diversity/<C>.json
// in the official format. Each character is one item: an unreadable or malformed similarity file
// is that character's error (its stale diversity file, if any, is removed, so no score uses it),
// recorded in <team>/logs/diversity.json, and the other characters and teams go on. Results are
// sorted by team and character.
std::vector<CharacterDiversity> compute_competition_diversity(const std::filesystem::path& dir,
                                                              int configured_trials, DiversityVectors vectors,
                                                              ThreadPool& pool);

}  // namespace pcglab::birds
