// The built-in letter generator: for each letter, `trials` responses with a drop_block program,
// valid under the official rules, whose levels stand, look like the letter and differ from each
// other in the way the official diversity measures (their classifier probability vectors).
//
// Method: a pool of candidate shapes per letter, each the letter's glyph from one of several
// Debian typefaces (serif, sans, mono; regular, bold, condensed), quantised onto 5–10 rows of the
// 20×16 drop grid at a seeded width and coverage threshold, with seeded stroke variants (thicker
// vertical or horizontal strokes or only the stems that arms hang from, hollow, filled or propped under
// overhangs); each mask is made buildable bottom-up under the drop model (birds/generator_shapes.h:
// a cell is filled only where its block lands exactly there and is supported, a b11 or b13 on a
// filled cell, a b31 on its centre cell or on both ends; with seeded rules, stepped diagonals and
// counterweighted cantilevers), converted by the official converter, simulated by the evaluator and
// classified by the letter classifier. Then the letter's trials are chosen together out of the pool's
// standing, faithful candidates to maximise diversity × mean(stability × similarity)
// (birds/generator_select.h), the official 2024 character score without its field-dependent weight.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "batch/driver.h"
#include "birds/converter.h"
#include "birds/generator_select.h"
#include "birds/generator_shapes.h"
#include "birds/grid_faces.h"
#include "birds/letters/letter_classifier.h"
#include "birds/similarity.h"
#include "core/thread_pool.h"

namespace pcglab::birds {

struct GeneratorOptions {
  uint64_t seed = 1;
  int candidates = 160;  // candidate shapes drawn per letter (duplicates are evaluated once)
  // The chosen set's mean similarity (by the generator's classifier) must reach this.
  double min_similarity = 0.8;
  // ... lowered in steps of similarity_step while the best set's diversity is below this (0: never).
  double min_diversity = 0.35;
  // When no set reaches min_similarity, the floor is this share of the best reachable mean (1: the
  // most readable set, then lowered only as far as the letter's diversity target needs).
  double reachable_share = 0.95;
  double similarity_step = 0.05;  // ... by this much at a time
  // Per letter, a diversity target that replaces min_diversity for that letter (`birds generate
  // --field`: the published field's median diversity for the letter plus a margin).
  std::map<char, double> min_diversity_of_letter;
  double min_diversity_for(char letter) const {
    const auto it = min_diversity_of_letter.find(letter);
    return it == min_diversity_of_letter.end() ? min_diversity : it->second;
  }
  // A candidate read as the letter with a lower probability is not chosen (0: any).
  double min_trial_similarity = 0;
  std::string function = "drop_block";
  // The grid faces added to each letter's candidates (birds/grid_faces.h): none given, the built-in
  // table (grid_faces()); given, these instead (`birds generate --grid-faces FILE`; empty: none).
  std::optional<std::vector<GridFace>> grid_faces;
  const std::vector<GridFace>& faces() const { return grid_faces ? *grid_faces : birds::grid_faces(); }
};

struct GeneratedTrial {
  char letter = 'A';
  int trial = 1;
  std::string response;  // the text written to raw/<C>/<team>_<C>_<trial>.txt
  std::string program;   // the drop calls
  std::string font;      // the typeface the shape came from
  std::string variant;   // the stroke variants applied ("plain", "thick-v+hollow", ...)
  int rows = 0, columns = 0, blocks = 0;
  double stability = 0, similarity = 0;  // of the kept candidate, as the pipeline will measure them
};

// One letter's trials, chosen jointly, and the numbers of the choice.
struct GeneratedLetter {
  char letter = 'A';
  std::vector<GeneratedTrial> trials;  // trial 1..n
  int candidates = 0;                  // distinct candidates built (drawn, deduplicated, converted)
  // Of which simulated: those that keep < 80% of their glyph are not (unless too few others stand),
  // and only the standing ones are classified.
  int simulated = 0;
  int eligible = 0;                      // of which standing and faithful: the pool chosen from
  double diversity = 0;                  // the official diversity of the chosen trials
  double similarity = 0, stability = 0;  // means over the chosen trials
  double objective = 0;                  // diversity × mean(stability × similarity)
  double similarity_floor = 0;           // the mean-similarity floor the chosen set met
  double diversity_target = 0;           // the letter's min_diversity (options.min_diversity_for)
  size_t sets_evaluated = 0;             // sets or swaps the selection scored
};

// Generates one letter's trials (deterministic for a given seed and letter).
GeneratedLetter generate_letter(char letter, int trials, const LetterClassifier& classifier,
                                const GeneratorOptions& options);

// What makes a letter's candidates, for its item hash: `revision` (kGeneratorShapesRevision, raised
// with every change to how glyph masks, stroke variants, the drop plan or the candidate draw make
// candidates) and every cell of the grid faces, so a rerun into the same folder after such a change
// generates the letters again instead of reusing those an older generator chose.
inline constexpr int kGeneratorShapesRevision = 3;  // 3: grid faces; 2: drop-plan rules
std::string shapes_fingerprint(const std::vector<GridFace>& faces, int revision);
std::string generator_shapes_fingerprint();  // of grid_faces() and kGeneratorShapesRevision
// ... of `options.faces()`: generator_shapes_fingerprint() for the built-in table.
std::string generator_shapes_fingerprint(const GeneratorOptions& options);

// The typefaces candidates are drawn from (file names of the Debian font packages install-deps
// installs, in a fixed order, so other fonts installed on a machine change nothing); those not
// found are skipped.
const std::vector<std::string>& generator_typefaces();

struct GenerateRun {
  // The shard's letters (every letter when unsharded), in the order given; a letter reused from an
  // earlier run has its responses read back from their files.
  std::vector<GeneratedLetter> letters;
  std::vector<GeneratedTrial> trials;  // the letters' trials, letters in the order given, then by trial
  batch::StageRun stage;               // the generate stage as the driver ran it (outcomes sorted by key)
};

// The generate stage on the item kernel (batch/driver.h), rooted at the team folder `team_dir`:
// one item per letter (its trials are chosen together), keyed "<team>/<C>", hashed over the
// generator's settings, the classifier, the letter and the trial count, writing
// raw/<C>/<team>_<C>_<t>.txt for every trial; its outcome's metadata holds the letter's numbers. So
// a rerun (after a kill, or with more letters) generates only the letters that are not finished,
// `--shard` splits the letters, and `pcglab merge` completes a sharded run. Unsharded, it also
// writes logs/generate.json (each letter's numbers and its trials', letters in the order given) and
// run.json.
// `driver_options.run_name` and `config` are the command's (for merge); a letter given twice counts
// once. The classifier is opened by the first trial that runs (a rerun that reuses every trial
// loads no model): its identity (spec, model file size and time) is part of each trial's hash.
GenerateRun generate_competition(const std::string& letters, int trials, const std::string& team,
                                 const std::filesystem::path& team_dir, LazyClassifier& classifier,
                                 const GeneratorOptions& options, ThreadPool& pool,
                                 batch::DriverOptions driver_options = {});

// The run name `birds generate` records in its store, for `pcglab merge`.
inline constexpr const char* kGenerateRunName = "birds generate";

}  // namespace pcglab::birds
