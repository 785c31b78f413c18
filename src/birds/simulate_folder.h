// `pcglab birds simulate DIR` on a competition folder (<team>/levels/<C>/*.xml): the simulate stage
// on the batch driver, one driver per team folder (team_batches.h), and the per-team, per-character
// summary the command prints. The CLI (apps/pcglab/birds_sim.cc) reads its options, calls
// simulate_folder and prints.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "batch/item_outcome.h"
#include "batch/shard.h"
#include "birds/simulate_pipeline.h"
#include "core/json.h"

namespace pcglab {
class ThreadPool;
}

namespace pcglab::birds {

struct SimulatedFolder {
  std::vector<ItemOutcome> outcomes;  // the shard's levels (all when unsharded), keys team/C/stem
  std::vector<std::string> levels;    // per outcome: its level file relative to the folder
  size_t ran = 0, reused = 0, removed = 0;
};

// Simulates every level of the competition folder `folder` (`shard`'s share), writing
// <team>/stability/<C>.json, <team>/images/<C>/ and <team>/logs/simulate.json. `recorded` is
// the command's settings kept with the run (what `pcglab merge` reads back). SetupError when
// `folder` is a level file rather than a folder.
SimulatedFolder simulate_folder(const std::filesystem::path& folder, const SimulateOptions& options,
                                const batch::Shard& shard, const OrderedJson& recorded, ThreadPool& pool);

// Per team and character: the levels simulated and their mean stability (failed levels left out).
struct CharacterStability {
  std::string team, character;
  int levels = 0;
  double mean_stability = 0;
};
std::vector<CharacterStability> stability_by_character(const std::vector<ItemOutcome>& outcomes);

}  // namespace pcglab::birds
