// Scores and ranks exactly as the official ChatGPT4PCG scoring script (scoring-and-ranking-script,
// src/score.ts; NUM_TRIALS 10, 26 characters): per-character weights with the 1/C floor over every
// entry (baselines included), missing trials counted as 0, division by the configured trial count,
// and normalisation. Policies: 2024 (default), 2023 (no diversity term, char = Σ trial / T), 2025
// (the 2024 policy per model, prompt scores summed over models). See docs/birds.md.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/error_kind.h"

namespace pcglab::birds {

enum class ScoringPolicy { k2023, k2024, k2025 };
ScoringPolicy parse_scoring_policy(std::string_view name);  // "2023", "2024", "2025"

// One entry's results for one character (one model).
struct CharacterResults {
  std::map<int, double> stability;  // by trial number (1-based as in the file names)
  std::map<int, double> similarity;
  double diversity = 0;
};

// An entry (team, baseline): per model (one model "" outside 2025), per character.
struct EntryResults {
  std::string name;
  std::map<std::string, std::map<std::string, CharacterResults>> models;
  // Values that could not be read (not a number in [0, 1], a bad trial number, a short row): each
  // names the file, the row or entry and the column. Such a value is left out (a missing trial
  // counts 0, as in the official script); an entry with errors and no valid value is not ranked.
  // Each is an item failure of the entry (kind bad-input).
  std::vector<ItemFailure> errors;
};

struct ScoringConfig {
  ScoringPolicy policy = ScoringPolicy::k2024;
  int trials = 10;
  std::vector<std::string> characters;  // empty: A..Z
  bool disable_weights = false;
  std::vector<std::string> baselines;         // ranked -1
  std::vector<std::string> disqualified;      // ranked -2, scores -1
  std::map<std::string, int> prompt_lengths;  // words per entry, for the tie-break (optional)
};

struct CharacterWeight {
  std::string character;
  double stability = 1, similarity = 1, diversity = 1, weight = 1;
};

struct TrialScore {
  std::string entry, model, character;
  int trial = 0;
  double score = 0, stability = 0, similarity = 0, diversity = 0;
};

struct CharacterScore {
  std::string entry, model, character;
  double score = 0, mean_stability = 0, mean_similarity = 0, diversity = 0;
};

// Ranks that are not places: baselines, disqualified entries, and entries whose every value was
// invalid (their scores are NaN: null in result.json, empty in the CSV files).
inline constexpr int kRankBaseline = -1;
inline constexpr int kRankDisqualified = -2;
inline constexpr int kRankNoValidResults = -3;

struct EntryScore {
  std::string name;
  double prompt_score = 0;
  double normalized = 0;
  int rank = 0;  // 1.., or kRankBaseline, kRankDisqualified, kRankNoValidResults
};

struct ScoringResult {
  double competition_score = 0;  // Σ prompt scores (per model in 2025: summed)
  std::map<std::string, std::vector<CharacterWeight>> weights;  // by model
  std::vector<TrialScore> trials;
  std::vector<CharacterScore> characters;
  std::vector<EntryScore> entries;  // in rank order
  std::vector<ItemFailure> errors;  // every entry's EntryResults::errors
};

ScoringResult score_competition(const std::vector<EntryResults>& entries, const ScoringConfig& config);

// Inputs: the official per-team files (<team>/stability|similarity|diversity/<C>.json; for 2025
// one sub-folder per model: <team>/<model>/stability/...), or a published trial_scores.csv.
std::vector<EntryResults> read_official_results(const std::filesystem::path& dir, ScoringPolicy policy,
                                                const std::vector<std::string>& characters);
// One team folder's files (the same reading, for a caller that already knows its teams).
EntryResults read_team_results(const std::filesystem::path& team, ScoringPolicy policy,
                               const std::vector<std::string>& characters = {});
// Columns are found by name (teamName, character, trial, stabilityScore, similarityScore,
// diversityScore; others are ignored). Throws SetupError for an empty file, a missing column
// (named) or no rows; a bad value is an item error of its entry (EntryResults::errors).
std::vector<EntryResults> read_trial_scores_csv(const std::filesystem::path& csv);

// The official outputs: constants.json, trial_scores.csv, character_scores.csv,
// prompt_scores_ranks.csv and result.json, written atomically into `out`.
void write_scoring_outputs(const ScoringResult& result, const std::filesystem::path& out);

}  // namespace pcglab::birds
