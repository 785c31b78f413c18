// Diversity exactly as the 2024 official script (diversity-checking-script/main.py, commit 2abb58d):
// over a character's trials, the sum of scipy's cosine distance 1 - u·v/(|u||v|) over every pair
// i < j of the trials present, divided by n(n+1)/2 - n with n the CONFIGURED trial count (10), so
// missing trials lower it. The vectors are the 26 softmax probabilities sorted by label (2024) or
// the classifier's CLS embedding (2025).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "batch/driver.h"

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

// The trials' vectors of a similarity file in the official layout (`similarities[].raws`, sorted by
// label, or `cls_embedding`), by trial number. Throws InputError naming the file for a malformed one.
std::vector<TrialVector> read_vectors(const std::filesystem::path& file, DiversityVectors kind);

// For every team of `teams`: reads <team>/similarity/<C>.json and writes <team>/diversity/<C>.json
// in the official format. The diversity stage runs on the batch driver (batch/driver.h): each
// character is one item, keyed "<team>/<C>" and hashed over its similarity file and the settings.
// An unreadable or malformed similarity file is that character's error (naming the file; its stale
// diversity file, if any, is removed, so no score uses it), recorded in <team>/logs/diversity.json,
// and the other characters and teams go on. Diversity needs every image of a character: a sharded
// run leaves it to `pcglab merge`, so this stage always runs unsharded.
batch::StageRun diversity_stage(batch::Driver& driver, const std::vector<std::filesystem::path>& teams,
                                int configured_trials, DiversityVectors vectors);

// A diversity item's team and character ("<team>/<C>").
std::pair<std::string, std::string> parse_diversity_key(const std::string& key);

}  // namespace pcglab::birds
