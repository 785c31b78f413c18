#include "birds/team_batches.h"

namespace pcglab::birds {

void join_stage_runs(batch::StageRun& total, batch::StageRun part) {
  if (total.stage.empty()) total.stage = part.stage;
  for (auto& o : part.outcomes) total.outcomes.push_back(std::move(o));
  total.item_index.clear();  // indices into each team's own items: meaningless once joined
  total.ran += part.ran;
  total.reused += part.reused;
  total.failed += part.failed;
  total.removed += part.removed;
  total.temporaries += part.temporaries;
  total.seconds += part.seconds;
}

batch::StageRun run_per_team(
    const std::vector<std::filesystem::path>& teams, ThreadPool& pool, const batch::DriverOptions& options,
    const std::function<batch::StageRun(batch::Driver&, const std::filesystem::path&)>& stage) {
  batch::StageRun total;
  for (const auto& team : teams) {
    batch::Driver driver(team, pool, options);
    join_stage_runs(total, stage(driver, team));
  }
  return total;
}

}  // namespace pcglab::birds
