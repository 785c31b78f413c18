#include "birds/simulate_folder.h"

#include <map>

#include <fmt/format.h>

#include "batch/driver.h"
#include "birds/competition_layout.h"
#include "birds/team_batches.h"
#include "birds/text_pipeline.h"
#include "core/check.h"
#include "core/thread_pool.h"

namespace pcglab::birds {
namespace fs = std::filesystem;

SimulatedFolder simulate_folder(const fs::path& folder, const SimulateOptions& options,
                                const batch::Shard& shard, const OrderedJson& recorded, ThreadPool& pool) {
  if (list_team_folders(folder, "levels", LayoutWarnings::kSilent).empty() && folder.extension() == ".xml") {
    throw SetupError(
        fmt::format("{}: a folder, not a level file; give level files, or a competition folder "
                    "(<team>/levels/<C>/*.xml)",
                    folder.string()));
  }
  const auto teams = find_team_folders(folder, "levels");
  batch::DriverOptions driver_options;
  driver_options.shard = shard;
  driver_options.run_name = "birds simulate";
  driver_options.config = dump_json(recorded);
  const batch::StageRun run = run_per_team(
      teams, pool, driver_options,
      [&](batch::Driver& d, const fs::path& team) { return simulate_stage(d, {team}, options, folder); });
  std::map<std::string, fs::path> team_dirs;
  for (const fs::path& team : teams) team_dirs[team_name_of(team)] = team;
  SimulatedFolder out;
  out.outcomes = run.outcomes;
  for (const ItemOutcome& o : run.outcomes) {
    const TrialKey k = parse_trial_key(o.key);
    const fs::path level = stage_path(team_dirs.at(k.team), "levels", k.character, k.stem, ".xml");
    out.levels.push_back(fs::relative(level, folder).generic_string());
  }
  out.ran = run.ran;
  out.reused = run.reused;
  out.removed = run.removed;
  return out;
}

std::vector<CharacterStability> stability_by_character(const std::vector<ItemOutcome>& outcomes) {
  std::map<std::pair<std::string, std::string>, std::pair<int, double>> sums;
  for (const ItemOutcome& o : outcomes) {
    const TrialKey k = parse_trial_key(o.key);
    auto& s = sums[{k.team, k.character}];
    if (o.ok()) s.first++, s.second += static_cast<float>(o.metadata["score"].get<double>());
  }
  std::vector<CharacterStability> out;
  for (const auto& [k, v] : sums)
    out.push_back({k.first, k.second, v.first, v.first ? v.second / v.first : 0.0});
  return out;
}

}  // namespace pcglab::birds
