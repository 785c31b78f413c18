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

namespace {

// What a log's status says of the failure's kind; `fallback` where it says only "error".
ErrorKind kind_of_status(const std::string& status, ErrorKind fallback) {
  if (status == "no-code") return ErrorKind::kNoOutput;
  if (status == "conversion-error" || status == "read-error") return ErrorKind::kBadInput;
  if (status == "write-error") return ErrorKind::kIo;
  if (status == "internal-error") return ErrorKind::kInternal;
  return fallback;
}

OrderedJson where(const std::string& stage, const std::string& team, const std::string& character,
                  const std::string& trial) {
  return {{"stage", stage}, {"team", team}, {"character", character}, {"trial", trial}};
}

}  // namespace

std::vector<ItemOutcome> recorded_failures(const fs::path& team_dir) {
  std::vector<ItemOutcome> out;
  const std::string team = team_name_of(team_dir);
  auto read = [&](const std::string& stage, const fs::path& file, const char* trial_field,
                  ErrorKind fallback) {
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
      const std::string status = r.value("status", "");
      std::string error = r.value("error", status);
      const std::string detail = r.value("detail", "");
      if (!detail.empty()) error += " (" + detail + ")";
      const std::string character = r.value("character", ""), trial = r.value(trial_field, "");
      ItemOutcome o =
          ItemOutcome::failure(trial.empty() ? team + "/" + character : trial_key(team, character, trial),
                               kind_of_status(status, fallback), error);
      const OrderedJson at = where(stage, team, character, trial);
      for (auto& [name, value] : at.items()) o.metadata[name] = value;
      out.push_back(std::move(o));
    }
  };
  read("convert", team_dir / "logs" / "convert.json", "trial", ErrorKind::kBadInput);
  read("simulate", team_dir / "logs" / "simulate.json", "level", ErrorKind::kBadInput);
  read("classify", team_dir / "logs" / "classify.json", "id", ErrorKind::kEvaluator);
  read("diversity", team_dir / "logs" / "diversity.json", "trial", ErrorKind::kEvaluator);  // per character
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
      report.failures.push_back(failure_of("score", selected.back().name, ErrorKind::kBadInput, error));
  }
  report.scores = score_competition(selected, options.scoring);
  report.result_dir = dir / "result";
  remove_dead_writers_temporaries(report.result_dir);  // a run killed while it wrote the scores
  write_scoring_outputs(report.scores, report.result_dir);
  return report;
}

}  // namespace pcglab::birds
