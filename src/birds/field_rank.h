// A team scored against a published field: the team folders (official per-team files, as
// `birds eval` writes them) together with a competition's published trial_scores.csv, scored as
// the official scoring-and-ranking-script scores one competition (P = every entry, the weights
// from all of them; birds/scoring.h), and each team's letters compared with the field's.
//
// What is approximated when the field is the 2024 publication (docs/birds.md "Against the
// field"): the field's similarity came from the official ViT, the teams' from whatever classifier
// `birds eval` used; zergy (disqualified) is absent from the published trial scores, so it is not
// in P, as in the published result.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "birds/scoring.h"

namespace pcglab::birds {

// Which classifier's readings the teams are scored with.
enum class TeamClassifier {
  kSelection,  // similarity/ and diversity/: the official-score input (the classifier birds eval used)
  // similarity-judge/ (birds eval --judge): each trial's similarity and the letter's diversity (the
  // official formula over the judge's 26-way vectors) from the independent judge, the honest reading
  // of a generator that selected its trials by the other classifier.
  kJudge,
};

struct FieldRankOptions {
  std::filesystem::path field;               // the published trial_scores.csv
  std::vector<std::filesystem::path> teams;  // team folders (<team>/stability|similarity|diversity)
  ScoringConfig config;                      // policy, trials, baselines, disqualified
  TeamClassifier classifier = TeamClassifier::kSelection;
};

// One of the teams' letters against the field's entries for that letter.
struct LetterVsField {
  std::string team, character;
  double stability = 0, similarity = 0, diversity = 0, character_score = 0;
  double field_median_diversity = 0;  // median over the field's entries (the csv's) for this letter
  bool above_median = false;          // diversity > field_median_diversity
  int rank = 0;                       // 1 + entries (field and teams) with a higher character score
  int entries = 0;                    // entries ranked for this letter
};

struct FieldRank {
  ScoringResult result;                // every entry, field and teams, scored together
  std::vector<std::string> teams;      // the teams' names (their folders' names)
  std::vector<LetterVsField> letters;  // teams in the order given, then A..Z
};

// Throws SetupError for a field that cannot be read, a team folder that is not one, a team whose
// name is already an entry of the field, or (kJudge) a team folder without similarity-judge/. A
// judge file that cannot be read is an error of that team (its letter counts no similarity).
FieldRank rank_against_field(const FieldRankOptions& options);

// Each letter's median diversity over a published field's entries (its trial_scores.csv),
// `disqualified` entries left out; the goal a team's letter must beat. Throws SetupError for a file
// that cannot be read.
std::map<std::string, double> field_median_diversity(const std::filesystem::path& field,
                                                     const std::vector<std::string>& disqualified = {});

// Whether the team folder has the judge's files (similarity-judge/, written by birds eval --judge).
bool has_judge_similarity(const std::filesystem::path& team);

// The median of `values` (the mean of the two middle ones for an even count; 0 when empty).
double median(std::vector<double> values);

}  // namespace pcglab::birds
