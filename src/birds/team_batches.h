// Birds' batches run per team: each team folder is the root of its own batch (its store, lock and
// shard stores under <team>/logs/, beside `birds run`'s run store), and a competition folder is
// its teams. Keeping the state inside the team keeps the competition folder in the official layout
// (the official scoring script takes every sub-folder for a team) and lets a team folder be moved
// or copied with what it has done.
#pragma once

#include <filesystem>
#include <functional>
#include <vector>

#include "batch/driver.h"
#include "core/thread_pool.h"

namespace pcglab::birds {

// Runs `stage` on each team with a driver rooted at the team folder; the teams' runs joined (their
// outcomes in team order, counts summed; item_index left empty).
batch::StageRun run_per_team(
    const std::vector<std::filesystem::path>& teams, ThreadPool& pool, const batch::DriverOptions& options,
    const std::function<batch::StageRun(batch::Driver&, const std::filesystem::path&)>& stage);

// Adds `part` (one team's run of a stage) to `total`.
void join_stage_runs(batch::StageRun& total, batch::StageRun part);

}  // namespace pcglab::birds
