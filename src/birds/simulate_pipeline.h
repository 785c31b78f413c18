// The evaluator's batch over the competition layout: every <team>/levels/<C>/*.xml is simulated,
// its OCR image written to <team>/images/<C>/<name>.png (and, on request, the colour view to
// <name>_raw.png), and each character's results to <team>/stability/<C>.json in the official
// format. Failures (unreadable levels) are recorded per level in <team>/logs/simulate.json.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "birds/capture.h"
#include "birds/stability.h"
#include "core/json.h"
#include "core/thread_pool.h"

namespace pcglab::birds {

struct SimulateOptions {
  StabilityConfig stability;
  bool write_images = true;
  bool write_raw_images = false;  // the colour view, as <name>_raw.png
  int png_compression = 1;
};

struct LevelSimulation {
  std::string team;
  std::string character;
  std::string stem;
  std::string tag;  // the level's path relative to the folder given
  bool ok = false;
  std::string error;
  StabilityResult result;
};

// Simulates and captures one level file; images go to `image_dir` (if not empty) as <stem>.png.
LevelSimulation simulate_level_file(const std::filesystem::path& path, const std::filesystem::path& image_dir,
                                    const SimulateOptions& options);

// Every team under `dir`; writes the stability JSON, images and logs. `on_done` runs per level.
std::vector<LevelSimulation> simulate_competition(
    const std::filesystem::path& dir, const SimulateOptions& options, ThreadPool& pool,
    const std::function<void(const LevelSimulation&)>& on_done = {});

// The official per-character JSON: {"dataCount", "rate", "raws": [{tag, score, startingObjects,
// movingObjects}]}, with scores as the evaluator stores them and the rate summed in single precision as it
// does. With StabilityMetric::kRemaining, the format of that version: raws are {tag, score}.
std::string stability_json(const std::vector<const LevelSimulation*>& levels,
                           StabilityMetric metric = StabilityMetric::kMoving);

// Every object's outcome: [{kind, index, type, start: [x, y], end: [x, y, rotation], displacement,
// moved, destroyed, destroyedAt, removed}] (for logs and `birds simulate --objects`).
OrderedJson object_outcomes_json(const StabilityResult& result);

}  // namespace pcglab::birds
