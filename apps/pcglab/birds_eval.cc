// `pcglab birds classify | eval`: similarity with a letter classifier, and the whole evaluation
// of a run (convert → simulate → classify → diversity → score), resumable.
#include <filesystem>
#include <map>
#include <mutex>

#include "batch/driver.h"
#include "batch/merge.h"
#include "batch_options.h"
#include "birds/competition_layout.h"
#include "birds/similarity.h"
#include "birds/team_batches.h"
#include "birds_eval.h"
#include "command.h"
#include "core/log.h"
#include "core/progress.h"
#include "nn/torch_runtime.h"

namespace pcglab::cli {

Table eval_ranking_table(const birds::EvalReport& report) {
  Table t;
  t.columns = {"rank", "team", "normalized_prompt_score", "prompt_score", "failed_trials"};
  for (const auto& e : report.scores.entries) {
    const auto failed =
        std::count_if(report.failures.begin(), report.failures.end(),
                      [&](const ItemOutcome& f) { return f.metadata.value("team", "") == e.name; });
    t.add_row({e.rank, e.name, e.normalized, e.prompt_score, static_cast<int64_t>(failed)});
  }
  return t;
}

namespace {
namespace fs = std::filesystem;
using namespace pcglab::birds;

struct ClassifyCommandOptions {
  std::string input;
  std::string model = "builtin";
  bool embeddings = false;
  std::string shard;
};

int classify_folder(const ClassifyCommandOptions& opt, const GlobalOptions& global) {
  ThreadPool pool(global.threads);
  nn::set_torch_threads(global.threads);
  LazyClassifier classifier(opt.model);
  classifier.get();  // a bad --model is a setup error before any work
  const batch::Shard shard = shard_of(opt.shard);
  const auto teams = find_team_folders(opt.input, "images");
  batch::DriverOptions driver_options;
  driver_options.shard = shard;
  driver_options.run_name = "birds classify";
  driver_options.config = dump_json(OrderedJson{{"model", opt.model}, {"embeddings", opt.embeddings}});
  ClassifyOptions options;
  options.embeddings = opt.embeddings;
  if (options.embeddings && classifier.get().embedding_size() == 0)
    throw SetupError(
        fmt::format("classifier {} has no CLS embedding: the 2025 diversity needs the ViT (--model FOLDER)",
                    classifier.get().name()));
  const batch::StageRun run = run_per_team(
      teams, pool, driver_options,
      [&](batch::Driver& d, const fs::path& team) { return classify_stage(d, {team}, classifier, options); });
  // Per team and character: images and mean similarity (the details are in similarity/*.json).
  std::map<std::pair<std::string, std::string>, std::pair<int, double>> sums;
  bool all_ok = true;
  for (const ItemOutcome& o : run.outcomes) {
    const TrialKey k = parse_trial_key(o.key);
    if (!o.ok()) {
      all_ok = false;
      log_warn("{}/{}/{}.png: {}", k.team, k.character, k.stem, o.message);
      continue;
    }
    auto& s = sums[{k.team, k.character}];
    ++s.first;
    s.second += o.metadata["similarity"].get<double>();
  }
  log_info("classify{}: {} images, {} classified, {} reused, {} removed",
           shard.all() ? "" : " " + shard.label(), run.outcomes.size(), run.ran, run.reused, run.removed);
  Table t;
  t.columns = {"team", "character", "images", "similarity_rate"};
  for (const auto& [key, s] : sums) t.add_row({key.first, key.second, s.first, s.second / s.first});
  print_table(t, global);
  return all_ok ? kExitOk : kExitItemsFailed;
}

Action setup_classify(CLI::App& cmd, const GlobalOptions& global) {
  auto opt = std::make_shared<ClassifyCommandOptions>();
  cmd.add_option("input", opt->input, "Competition or team folder with <team>/images/<C>/*.png")
      ->required()
      ->check(CLI::ExistingDirectory);
  cmd.add_option("--model", opt->model,
                 "builtin, judge (the independent judge), a .safetensors from `birds train-letters`, or a "
                 "Hugging Face ViT folder")
      ->capture_default_str();
  cmd.add_flag("--embeddings", opt->embeddings,
               "Also write each image's CLS embedding (ViT only; the 2025 diversity)");
  add_shard_option(cmd, opt->shard);
  cmd.footer(
      "Writes <team>/similarity/<C>.json in the official layout and <team>/logs/classify.json.\n"
      "A rerun classifies only the images that changed (logs/batch.sqlite).");
  return [opt, &global] { return classify_folder(*opt, global); };
}

int merge_classify(const fs::path& dir, const Json& config, int) {
  ClassifyCommandOptions opt;
  opt.input = dir.string();
  opt.model = config.value("model", opt.model);
  opt.embeddings = config.value("embeddings", false);
  return classify_folder(opt, merge_global_options());
}

struct EvalCommandOptions {
  std::string input;
  std::string model = "builtin";
  std::string judge;
  std::string policy = "2024";
  int trials = 10;
  std::string converter = "1.4.1";
  bool force = false;
  bool raw = false;
  std::string shard;
};

OrderedJson eval_config(const EvalCommandOptions& o) {
  OrderedJson j = {{"model", o.model},
                   {"policy", o.policy},
                   {"trials", o.trials},
                   {"converter", o.converter},
                   {"raw", o.raw}};
  if (!o.judge.empty()) j["judge"] = o.judge;  // absent without one: the settings of earlier runs
  return j;
}

int eval_folder(const EvalCommandOptions& opt, const GlobalOptions& global) {
  EvalOptions options;
  options.model = opt.model;
  options.judge = opt.judge;
  options.scoring.policy = parse_scoring_policy(opt.policy);
  options.scoring.trials = opt.trials;
  options.simulate.write_raw_images = opt.raw;
  options.convert.converter = parse_converter_version(opt.converter);
  options.force = opt.force;
  options.shard = shard_of(opt.shard);
  options.config = dump_json(eval_config(opt));
  options.torch_threads = global.threads;  // set only if a model is opened
  ThreadPool pool(global.threads);
  const EvalReport report = evaluate_competition(opt.input, options, pool);
  const std::string shard = options.shard.all() ? "" : " " + options.shard.label();
  for (const auto& s : report.stages)
    log_info("{}{}: {} items: {} ran, {} reused, {} failed{}{} ({:.1f} s)", s.stage, shard, s.items, s.ran,
             s.reused, s.failed, s.removed ? fmt::format(", {} gone (files removed)", s.removed) : "",
             s.temporaries ? fmt::format(", {} unfinished writes removed", s.temporaries) : "", s.seconds);
  for (const auto& f : report.failures)
    log_warn("{} {} {} [{}]: {}", f.metadata.value("team", ""), f.metadata.value("character", ""),
             f.metadata.value("trial", ""), f.metadata.value("stage", ""), failure_text(f));
  if (!report.complete) {
    log_info("shard{} done; once every shard is done, `pcglab merge {}` writes the scores", shard, opt.input);
    return report.failures.empty() ? kExitOk : kExitItemsFailed;
  }
  const Table t = eval_ranking_table(report);
  print_table(t, global);
  for (const auto& [team, a] : report.agreements)
    log_info(
        "{}: similarity {:.3f} by the independent judge ({}), {:.3f} by the selection classifier ({}); "
        "same most likely letter for {:.1f}% of {} images, probability correlation {:.3f} "
        "(logs/judge-agreement.json)",
        team, a.mean_judge_similarity, a.judge, a.mean_similarity, a.classifier, 100 * a.argmax_agreement,
        a.images, a.probability_correlation);
  log_info("scores in {}", report.result_dir.string());
  return report.failures.empty() ? kExitOk : kExitItemsFailed;
}

Action setup_eval(CLI::App& cmd, const GlobalOptions& global) {
  auto opt = std::make_shared<EvalCommandOptions>();
  cmd.add_option("input", opt->input,
                 "Competition folder of teams, or one team folder (<team>/raw/<C>/*.txt)")
      ->required()
      ->check(CLI::ExistingDirectory);
  cmd.add_option("--model", opt->model,
                 "Letter classifier: builtin, judge, a .safetensors, or a Hugging Face ViT folder")
      ->capture_default_str();
  cmd.add_option("--judge", opt->judge,
                 "A second classifier (judge: the independent judge) that classifies every image again into "
                 "<team>/similarity-judge/ with its agreement; the scores never read it")
      ->capture_default_str();
  cmd.add_option("--policy", opt->policy, "Scoring policy (2025: CLS-embedding diversity, needs the ViT)")
      ->check(CLI::IsMember({"2023", "2024", "2025"}))
      ->capture_default_str();
  cmd.add_option("--trials", opt->trials,
                 "Configured trials per character (scoring and diversity divide by it)")
      ->check(number_in(2, 1000))
      ->capture_default_str();
  cmd.add_option("--converter", opt->converter, "Converter version: 1.4.1 or 2023-initial")
      ->capture_default_str();
  cmd.add_flag("--raw", opt->raw, "Also write the colour views (<name>_raw.png)");
  cmd.add_flag("--force", opt->force, "Redo every item even when its inputs did not change");
  add_shard_option(cmd, opt->shard);
  cmd.footer(
      "Stages: convert, simulate, classify, [judge,] diversity, score. Each trial is an item: a rerun redoes "
      "only "
      "the\n"
      "trials whose inputs changed (logs/batch.sqlite) and removes the files of responses that are gone.\n"
      "Writes the official files per team and <input>/result/ (constants.json, trial_scores.csv, ...).");
  return [opt, &global] { return eval_folder(*opt, global); };
}

int merge_eval(const fs::path& dir, const Json& config, int) {
  EvalCommandOptions opt;
  opt.input = dir.string();
  opt.model = config.value("model", opt.model);
  opt.judge = config.value("judge", opt.judge);
  opt.policy = config.value("policy", opt.policy);
  opt.trials = config.value("trials", opt.trials);
  opt.converter = config.value("converter", opt.converter);
  opt.raw = config.value("raw", false);
  return eval_folder(opt, merge_global_options());
}

}  // namespace

PCGLAB_REGISTER_MERGER("birds classify", "similarity/<C>.json and logs/classify.json", merge_classify);
PCGLAB_REGISTER_MERGER(kEvalRunName, "diversity, the per-character files, logs and scores (result/)",
                       merge_eval);
PCGLAB_REGISTER_COMMAND("birds", "classify",
                        "Similarity: classify level images (built-in CNN or the official ViT)",
                        setup_classify);
PCGLAB_REGISTER_COMMAND(
    "birds", "eval", "Evaluate a run end to end (convert, simulate, classify, diversity, score), resumable",
    setup_eval);

}  // namespace pcglab::cli
