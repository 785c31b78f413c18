// The built-in letter generator: for each letter and trial, a response with a drop_block program,
// valid under the official rules, whose level stands and looks like the letter, varied by seed.
//
// Method: the letter's glyph from a Debian typeface (chosen per candidate by the seed) is
// quantised onto a few rows of the 20×16 drop grid; the mask is made buildable bottom-up under the
// drop model (a cell is filled only where its block lands exactly there and is supported: a b11 or
// b13 on a filled cell, a b31 on its centre cell or on both ends); the program is converted by the
// official converter, simulated by the evaluator and classified by the letter classifier, and the
// best of N candidates (stable first, then the target letter's probability) is kept.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "batch/driver.h"
#include "birds/converter.h"
#include "birds/letters/letter_classifier.h"
#include "birds/similarity.h"
#include "core/thread_pool.h"

namespace pcglab::birds {

struct GeneratorOptions {
  uint64_t seed = 1;
  int candidates = 32;  // programs tried per trial
  std::string function = "drop_block";
};

struct GeneratedTrial {
  char letter = 'A';
  int trial = 1;
  std::string response;  // the text written to raw/<C>/<team>_<C>_<trial>.txt
  std::string program;   // the drop calls
  std::string font;      // the typeface the shape came from
  int rows = 0, columns = 0, blocks = 0;
  double stability = 0, similarity = 0;  // of the kept candidate, as the pipeline will measure them
};

// A buildable mask → drop program. `mask[r][c]` with r = 0 the bottom row; the shape is centred on
// the 20-column grid. Cells that cannot be built are left out (returned in `dropped`).
std::vector<std::pair<DropBlock, int>> plan_drops(const std::vector<std::vector<bool>>& mask,
                                                  int* dropped = nullptr);

// Fills the empty cells under overhanging cells (down to the structure), except one-cell gaps a
// b31 can bridge: a variant that trades the glyph's exact shape for buildability.
std::vector<std::vector<bool>> fill_under_overhangs(std::vector<std::vector<bool>> mask);

// Generates one trial (deterministic for a given seed, letter and trial).
GeneratedTrial generate_trial(char letter, int trial, const LetterClassifier& classifier,
                              const GeneratorOptions& options);

struct GenerateRun {
  // The shard's trials (every trial when unsharded), letters in the order given, then by trial; a
  // trial reused from an earlier run has its response read back from its file.
  std::vector<GeneratedTrial> trials;
  batch::StageRun stage;  // the generate stage as the driver ran it (outcomes sorted by key)
};

// The generate stage on the item kernel (batch/driver.h), rooted at the team folder `team_dir`:
// one item per letter × trial, keyed like every birds stage ("<team>/<C>/<team>_<C>_<t>"), hashed
// over the generator's settings, the classifier and the trial, writing
// raw/<C>/<team>_<C>_<t>.txt; its outcome's metadata holds the trial's numbers. So a rerun (after a
// kill, or with more letters) generates only the trials that are not finished, `--shard` splits
// the trials, and `pcglab merge` completes a sharded run. Unsharded, it also writes
// logs/generate.json (each trial's numbers, letters in the order given) and run.json.
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
