// The evaluator's batch over the competition layout: every <team>/levels/<C>/*.xml is simulated,
// its OCR image written to <team>/images/<C>/<name>.png (and, on request, the colour view to
// <name>_raw.png), and each character's results to <team>/stability/<C>.json in the official
// format. The simulate stage runs on the batch driver (batch/driver.h): each level is one item,
// keyed like its trial ("<team>/<C>/<stem>") and hashed over its bytes and the options, so a rerun
// simulates only the levels that changed. The per-character files and <team>/logs/simulate.json
// are rebuilt from every level's stored outcome (its metadata holds what they need), so a resumed
// run writes the same bytes as a fresh one.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "batch/driver.h"
#include "batch/item_outcome.h"
#include "birds/capture.h"
#include "birds/stability.h"
#include "core/json.h"

namespace pcglab::birds {

struct SimulateOptions {
  StabilityConfig stability;
  bool write_images = true;
  bool write_raw_images = false;  // the colour view, as <name>_raw.png
  int png_compression = 1;
};

// The outcome metadata of a simulated level: {"score", "startingObjects", "movingObjects",
// "remainingObjects", "steps", "objects" (object_outcomes_json)}.
OrderedJson stability_metadata(const StabilityResult& result);

// Simulates and captures one level file; images go to `image_dir` (if not empty) as <stem>.png.
// Errors (unreadable, malformed, not simulable, an image that cannot be written) name the file.
ItemOutcome simulate_level_file(const std::filesystem::path& path, const std::filesystem::path& image_dir,
                                const SimulateOptions& options);

// The simulate stage over `teams` (the driver's shard of their levels). Unsharded, it also writes
// <team>/stability/<C>.json (removing those of characters with no level left; tags are the
// levels' paths relative to `folder`, the folder the command was given) and
// <team>/logs/simulate.json.
batch::StageRun simulate_stage(batch::Driver& driver, const std::vector<std::filesystem::path>& teams,
                               const SimulateOptions& options, const std::filesystem::path& folder);

// One level of a character's official stability file.
struct StabilityRaw {
  std::string tag;  // the level's path relative to the folder given
  float score = 0;
  int starting_objects = 0, moving_objects = 0;
};

// The official per-character JSON: {"dataCount", "rate", "raws": [{tag, score, startingObjects,
// movingObjects}]}, with scores as the evaluator stores them and the rate summed in single precision as it
// does. With StabilityMetric::kRemaining, the format of that version: raws are {tag, score}.
std::string stability_json(const std::vector<StabilityRaw>& levels,
                           StabilityMetric metric = StabilityMetric::kMoving);

// Every object's outcome: [{kind, index, type, start: [x, y], end: [x, y, rotation], displacement,
// moved, destroyed, destroyedAt, removed}] (for logs and `birds simulate --objects`).
OrderedJson object_outcomes_json(const StabilityResult& result);

}  // namespace pcglab::birds
