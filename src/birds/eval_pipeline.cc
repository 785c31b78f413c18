#include "birds/eval_pipeline.h"

#include <optional>
#include <set>

#include <fmt/format.h>

#include "batch/driver.h"
#include "birds/competition_layout.h"
#include "birds/diversity.h"
#include "birds/similarity.h"
#include "birds/team_batches.h"
#include "core/check.h"
#include "core/files.h"
#include "core/json.h"
#include "core/log.h"
#include "store/run_store.h"

namespace pcglab::birds {
namespace fs = std::filesystem;

namespace {

OrderedJson where(const std::string& stage, const std::string& team, const std::string& character,
                  const std::string& trial) {
  return {{"stage", stage}, {"team", team}, {"character", character}, {"trial", trial}};
}

// The stages whose failures recorded_failures reads back, in this order.
constexpr const char* kRecordedStages[] = {"convert", "simulate", "classify", "diversity"};

// The two classifiers' agreement over a team's trials, read back from the files as the report
// reads them, to <team>/logs/judge-agreement.json.
void write_agreement(const fs::path& team_dir, EvalReport& report) {
  BirdsRunOptions read;
  read.thumbnail_px = 0;
  read.threads = 1;
  BirdsRun run;
  try {
    run = read_birds_run(team_dir, read);
  } catch (const std::runtime_error& e) {  // SetupError, InputError: a stage file it cannot read
    log_warn("{}: no classifier agreement: {}", team_dir.string(), e.what());
    return;
  }
  for (const BirdsTeam& team : run.teams) {
    write_file_if_changed(team_dir / "logs" / "judge-agreement.json", agreement_json(team));
    if (team.agreement) report.agreements.emplace_back(team.name, *team.agreement);
  }
}

}  // namespace

std::vector<ItemOutcome> recorded_failures(const fs::path& team_dir) {
  std::vector<ItemOutcome> out;
  std::vector<fs::path> stores = batch::Driver::shard_stores(team_dir);  // a shard's, not merged yet
  std::error_code ec;
  if (const fs::path whole = batch::Driver::store_path(team_dir, {});
      fs::is_regular_file(fs::symlink_status(whole, ec)))  // a link is never opened
    stores.insert(stores.begin(), whole);
  std::set<std::pair<std::string, std::string>> seen;  // (stage, key): the unsharded store first
  for (const fs::path& file : stores) {
    store::RunStore store(file);
    for (const char* stage : kRecordedStages) {
      for (const store::StageOutcomeRow& row : store.outcomes(stage)) {
        if (!seen.emplace(stage, row.key).second) continue;
        ItemOutcome o = ItemOutcome::from_json(OrderedJson::parse(row.outcome));
        if (o.ok()) continue;
        o.key = row.key;
        if (std::string(stage) == "diversity") {  // a character's: key team/character
          const auto [t, character] = parse_diversity_key(o.key);
          const OrderedJson at = where(stage, t, character, "");
          for (auto& [name, value] : at.items()) o.metadata[name] = value;
          out.push_back(std::move(o));
        } else {
          out.push_back(failure_of(stage, std::move(o)));
        }
      }
    }
  }
  return out;
}

ItemOutcome failure_of(const std::string& stage, ItemOutcome o) {
  const TrialKey k = parse_trial_key(o.key);
  const OrderedJson at = where(stage, k.team, k.character, stage == "classify" ? k.stem + ".png" : k.stem);
  for (auto& [name, value] : at.items()) o.metadata[name] = value;
  return o;
}

ItemOutcome failure_of(const std::string& stage, const std::string& team, ErrorKind kind,
                       std::string message) {
  return ItemOutcome::failure(team, kind, std::move(message), where(stage, team, "", ""));
}

std::string failure_text(const ItemOutcome& o) {
  if (o.metadata.value("stage", "") != "convert" || !o.metadata.contains("official_error")) return o.message;
  std::string text = o.metadata["official_error"].get<std::string>();
  if (o.metadata.contains("detail")) text += " (" + o.metadata["detail"].get<std::string>() + ")";
  return text;
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
  std::optional<LazyClassifier> judge;
  if (!options.judge.empty()) judge.emplace(options.judge, options.torch_threads);
  std::vector<batch::StageRun> totals(5);
  for (const fs::path& team : teams) {
    batch::Driver driver(team, pool, driver_options);
    join_stage_runs(totals[0], convert_stage(driver, {team}, options.convert));
    join_stage_runs(totals[1], simulate_stage(driver, {team}, options.simulate, dir));
    join_stage_runs(totals[2], classify_stage(driver, {team}, classifier, co));
    if (judge) join_stage_runs(totals[3], classify_stage(driver, {team}, *judge, judge_classify_options()));
    if (options.shard.all()) {
      join_stage_runs(totals[4],
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
    if (judge) write_agreement(team, report);
  }

  // Scores over the teams evaluated (one team alone: scored on its own). The 2025 policy normally
  // reads <team>/<model>/...; eval works on flat team folders (one model).
  const ScoringPolicy layout =
      options.scoring.policy == ScoringPolicy::k2025 ? ScoringPolicy::k2024 : options.scoring.policy;
  std::vector<EntryResults> selected;
  for (const fs::path& team : teams) {
    selected.push_back(read_team_results(team, layout));
    for (const ItemFailure& error : selected.back().errors)
      report.failures.push_back(failure_of("score", selected.back().name, error.kind(), error.what()));
  }
  report.scores = score_competition(selected, options.scoring);
  report.result_dir = dir / "result";
  remove_dead_writers_temporaries(report.result_dir);  // a run killed while it wrote the scores
  write_scoring_outputs(report.scores, report.result_dir);
  return report;
}

}  // namespace pcglab::birds
