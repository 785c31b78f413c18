// A Science Birds (ChatGPT4PCG) run as the report sees it, read from the competition folder layout
// that every pipeline stage writes. The report reads files only (the stages' official formats are
// the contract), so it needs no code from src/birds:
//   <team>/run.json                          prompt, model, trials, letters (birds run / generate)
//   <team>/raw/<C>/<team>_<C>_<t>.txt        responses
//   <team>/logs/convert.json                 per trial: ok | no-code | conversion-error (birds convert)
//   <team>/levels/<C>/<stem>.xml             levels
//   <team>/logs/simulate.json                per level: ok | error (birds simulate)
//   <team>/stability/<C>.json                official evaluator format
//   <team>/images/<C>/<stem>.png             the classifier's image
//   <team>/similarity/<C>.json               official similarity format (birds classify)
//   <team>/logs/classify.json                classifier name, unreadable images (birds classify)
//   <team>/similarity-judge/<C>.json         the independent judge's similarity, same format
//   <team>/logs/judge.json                   the judge's name (birds eval --judge)
//   <team>/diversity/<C>.json                official diversity format (birds diversity)
//   <competition>/result/*.csv|json          birds score
// Every stage but raw/ may be missing: its values are then absent (std::nullopt), never zero.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "batch/item_outcome.h"

namespace pcglab::birds {

// Why a trial produced no (or no scored) level is a failed ItemOutcome (batch/item_outcome.h), as
// every birds stage makes it: key "<team>/<C>/<stem>", the kind, the message the stage recorded
// (official message and detail), and metadata {"stage" ("run", "convert", "simulate", "classify"),
// "team", "character", "trial" (the stem, e.g. "team_A_3"), "number" (the trial number, -1 when
// unknown), "failure" (what the report calls it: "no response", "no code", "conversion error",
// "simulation error", "classification error")}.
struct BirdsTrial {
  std::string stem;
  int trial = -1;
  bool has_response = false;
  std::string failure;  // empty, or the kind of its first failure
  std::optional<double> stability;
  std::optional<double> similarity;
  std::optional<double> score;  // trial score from birds score
  std::string predicted;        // the classifier's most likely letter (empty when unknown)
  double predicted_probability = 0;
  std::vector<double> probabilities;  // A..Z from similarity/<C>.json (empty when unknown)
  // The independent judge (similarity-judge/<C>.json), when it classified this trial.
  std::optional<double> judge_similarity;
  std::string judge_predicted;
  double judge_predicted_probability = 0;
  std::vector<double> judge_probabilities;  // A..Z
  std::string thumbnail_png;                // downscaled classifier image (empty when there is no image)
};

struct BirdsLetter {
  std::string letter;
  std::vector<BirdsTrial> trials;  // by trial number
  std::optional<double> diversity;
  std::optional<double> score;            // character score from birds score
  std::optional<double> mean_stability;   // over the trials that have one
  std::optional<double> mean_similarity;  // over the trials that have one
  std::optional<double> mean_judge_similarity;
  std::optional<double> judge_agreement;  // share of trials whose most likely letters agree
};

// How far the classifier the similarity was selected by and the independent judge agree, over the
// trials both classified.
struct ClassifierAgreement {
  std::string classifier, judge;                          // their names (logs/classify.json, logs/judge.json)
  int images = 0;                                         // trials both classified
  double mean_similarity = 0, mean_judge_similarity = 0;  // over those trials
  double argmax_agreement = 0;                            // share whose most likely letters are the same
  double probability_correlation = 0;  // Pearson r of the 26 probabilities, pooled over the trials
  double similarity_correlation = 0;   // Pearson r of the trials' similarities
};

// Whether a stage's output exists for a team, in pipeline order.
struct BirdsStage {
  std::string name;     // "convert", "simulate", "images", "similarity", "diversity", "scores"
  std::string command;  // the command that produces it
  bool present = false;
};

struct BirdsTeam {
  std::string name;
  std::filesystem::path dir;
  bool has_run_info = false;
  std::string model;        // from run.json
  std::string prompt;       // from run.json (text, or the JSON of a structured prompt)
  int expected_trials = 0;  // from run.json; 0 when unknown
  std::vector<std::pair<std::string, std::string>> run_details;  // other scalar run.json fields
  std::vector<BirdsStage> stages;
  std::vector<BirdsLetter> letters;   // sorted
  std::vector<ItemOutcome> failures;  // in pipeline order per trial, sorted by letter and trial
  std::optional<double> prompt_score, normalized_score;
  std::optional<int> rank;
  std::optional<double> mean_stability, mean_similarity, mean_diversity;
  std::optional<double> mean_judge_similarity;   // over the trials the judge classified
  std::optional<ClassifierAgreement> agreement;  // when similarity-judge/ has a letter both classified
  int trials_total = 0;                          // trials seen in any stage or expected by run.json
  int trials_failed = 0;                         // trials with a failure
};

struct BirdsRun {
  std::filesystem::path dir;
  std::filesystem::path scores_dir;  // empty when no scores were found
  std::vector<BirdsTeam> teams;
};

struct BirdsRunOptions {
  std::string team;              // only this team (empty: every team under the folder)
  std::filesystem::path scores;  // result folder of birds score (empty: <dir>/result, then <team>/../result)
  int thumbnail_px = 112;        // longest side in pixels (shown at 112 CSS px); 0: no images
  int threads = 0;               // image decoding; 0: one per core
};

// Reads a team folder or a folder of team folders (a team folder has a raw/ sub-folder).
// Throws SetupError for a missing folder, no team, an unknown --team, or an unreadable file.
BirdsRun read_birds_run(const std::filesystem::path& dir, const BirdsRunOptions& options);

// The agreement of the two classifiers over a team's trials; nullopt when no trial has both.
std::optional<ClassifierAgreement> classifier_agreement(const BirdsTeam& team);

// The agreement as JSON (flat numbers, for scripts: `birds eval --judge` writes it to
// <team>/logs/judge-agreement.json), with per letter the two means and the argmax agreement.
std::string agreement_json(const BirdsTeam& team);

}  // namespace pcglab::birds
