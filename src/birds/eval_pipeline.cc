#include "birds/eval_pipeline.h"

#include <fmt/format.h>

#include "batch/driver.h"
#include "birds/competition_layout.h"
#include "birds/diversity.h"
#include "birds/similarity.h"
#include "birds/team_batches.h"
#include "core/check.h"
#include "core/files.h"
#include "core/json.h"

namespace pcglab::birds {
namespace fs = std::filesystem;

std::vector<EvalFailure> recorded_failures(const fs::path& team_dir) {
  std::vector<EvalFailure> out;
  const std::string team = team_name_of(team_dir);
  auto read = [&](const std::string& stage, const fs::path& file, const char* trial_key) {
    if (!fs::exists(file)) return;
    Json j;
    try {
      j = read_json_file(file);
    } catch (const InputError&) {
      return;
    }
    const Json& items = j.is_object() ? j.value("failures", Json::array()) : j;
    if (!items.is_array()) return;
    for (const Json& r : items) {
      if (!r.is_object() || r.value("status", "error") == "ok") continue;
      std::string error = r.value("error", r.value("status", ""));
      const std::string detail = r.value("detail", "");
      if (!detail.empty()) error += " (" + detail + ")";
      out.push_back({team, r.value("character", ""), r.value(trial_key, ""), stage, error});
    }
  };
  read("convert", team_dir / "logs" / "convert.json", "trial");
  read("simulate", team_dir / "logs" / "simulate.json", "level");
  read("classify", team_dir / "logs" / "classify.json", "id");
  read("diversity", team_dir / "logs" / "diversity.json", "trial");  // per character, no trial
  return out;
}

EvalFailure failure_of(const std::string& stage, const ItemOutcome& o) {
  const TrialKey k = parse_trial_key(o.key);
  std::string error = o.message;
  if (stage == "convert" && o.metadata.contains("official_error")) {
    error = o.metadata["official_error"].get<std::string>();
    if (o.metadata.contains("detail")) error += " (" + o.metadata["detail"].get<std::string>() + ")";
  }
  return {k.team, k.character, stage == "classify" ? k.stem + ".png" : k.stem, stage, error};
}

EvalReport evaluate_competition(const fs::path& dir, const EvalOptions& options, ThreadPool& pool) {
  EvalReport report;
  const auto teams = find_team_folders(dir, "raw");
  const bool cls = options.scoring.policy == ScoringPolicy::k2025;
  batch::DriverOptions driver_options;
  driver_options.shard = options.shard;
  driver_options.force = options.force;
  driver_options.progress = options.progress;
  driver_options.run_name = kEvalRunName;
  driver_options.config = options.config;
  LazyClassifier classifier(options.model, options.torch_threads);
  ClassifyOptions co;
  co.embeddings = cls;
  std::vector<batch::StageRun> totals(4);
  for (const fs::path& team : teams) {
    batch::Driver driver(team, pool, driver_options);
    join_stage_runs(totals[0], convert_stage(driver, {team}, options.convert));
    join_stage_runs(totals[1], simulate_stage(driver, {team}, options.simulate, dir));
    join_stage_runs(totals[2], classify_stage(driver, {team}, classifier, co));
    if (options.shard.all()) {
      join_stage_runs(totals[3],
                      diversity_stage(driver, {team}, options.scoring.trials,
                                      cls ? DiversityVectors::kClsEmbedding : DiversityVectors::kSoftmax));
    }
  }
  for (const batch::StageRun& run : totals) {
    if (run.stage.empty()) continue;
    report.stages.push_back({run.stage, run.outcomes.size(), run.ran, run.reused, run.failed, run.removed,
                             run.temporaries, run.seconds});
    if (options.shard.all()) continue;  // the logs say it (read below)
    for (const ItemOutcome& o : run.outcomes)
      if (!o.ok()) report.failures.push_back(failure_of(run.stage, o));
  }
  if (!options.shard.all()) {
    report.complete = false;
    return report;
  }
  for (const fs::path& team : teams) {
    const auto failures = recorded_failures(team);
    report.failures.insert(report.failures.end(), failures.begin(), failures.end());
  }

  // Scores over the teams evaluated (one team alone: scored on its own). The 2025 policy normally
  // reads <team>/<model>/...; eval works on flat team folders (one model).
  const ScoringPolicy layout =
      options.scoring.policy == ScoringPolicy::k2025 ? ScoringPolicy::k2024 : options.scoring.policy;
  std::vector<EntryResults> selected;
  for (const fs::path& team : teams) {
    selected.push_back(read_team_results(team, layout));
    for (const std::string& error : selected.back().errors)
      report.failures.push_back({selected.back().name, "", "", "score", error});
  }
  report.scores = score_competition(selected, options.scoring);
  report.result_dir = dir / "result";
  remove_dead_writers_temporaries(report.result_dir);  // a run killed while it wrote the scores
  write_scoring_outputs(report.scores, report.result_dir);
  return report;
}

}  // namespace pcglab::birds
