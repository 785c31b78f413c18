// `pcglab birds classify | eval`: similarity with a letter classifier, and the whole evaluation
// of a run (convert → simulate → classify → diversity → score), resumable.
#include <filesystem>
#include <map>
#include <mutex>

#include "birds/competition_layout.h"
#include "birds/similarity.h"
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
    const auto failed = std::count_if(report.failures.begin(), report.failures.end(),
                                      [&](const birds::EvalFailure& f) { return f.team == e.name; });
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
};

int run_classify(const ClassifyCommandOptions& opt, const GlobalOptions& global) {
  ThreadPool pool(global.threads);
  nn::set_torch_threads(global.threads);
  const auto classifier = birds::open_letter_classifier(opt.model);
  size_t total = 0;
  for (const fs::path& team : find_team_folders(opt.input, "images", LayoutWarnings::kSilent))
    total += list_stage_files(team, "images", ".png", LayoutWarnings::kSilent).size();
  ProgressBar bar("classify", total);
  ClassifyOptions options;
  options.embeddings = opt.embeddings;
  const auto results = classify_competition(opt.input, *classifier, options, pool,
                                            [&](const ImageClassification& r) { bar.advance(r.ok); });
  bar.finish();
  // Per team and character: images and mean similarity (the details are in similarity/*.json).
  std::map<std::pair<std::string, std::string>, std::pair<int, double>> sums;
  bool all_ok = true;
  for (const auto& r : results) {
    if (!r.ok) {
      all_ok = false;
      log_warn("{}/{}/{}: {}", r.team, r.character, r.id, r.error);
      continue;
    }
    auto& s = sums[{r.team, r.character}];
    ++s.first;
    s.second += r.similarity;
  }
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
                 "builtin, a .safetensors from `birds train-letters`, or a Hugging Face ViT folder")
      ->capture_default_str();
  cmd.add_flag("--embeddings", opt->embeddings,
               "Also write each image's CLS embedding (ViT only; the 2025 diversity)");
  cmd.footer("Writes <team>/similarity/<C>.json in the official layout and <team>/logs/classify.json.");
  return [opt, &global] { return run_classify(*opt, global); };
}

struct EvalCommandOptions {
  std::string input;
  std::string model = "builtin";
  std::string policy = "2024";
  int trials = 10;
  std::string converter = "1.4.1";
  bool force = false;
  bool raw = false;
};

int run_eval(const EvalCommandOptions& opt, const GlobalOptions& global) {
  EvalOptions options;
  options.model = opt.model;
  options.scoring.policy = parse_scoring_policy(opt.policy);
  options.scoring.trials = opt.trials;
  options.simulate.write_raw_images = opt.raw;
  options.convert.converter = parse_converter_version(opt.converter);
  options.force = opt.force;
  ThreadPool pool(global.threads);
  nn::set_torch_threads(global.threads);
  std::mutex mutex;
  std::unique_ptr<ProgressBar> bar;
  std::string current;
  const EvalReport report = evaluate_competition(opt.input, options, pool,
                                                 [&](const std::string& stage, size_t done, size_t total) {
                                                   std::lock_guard lock(mutex);
                                                   if (stage != current || !bar) {
                                                     if (bar) bar->finish();
                                                     bar = std::make_unique<ProgressBar>(stage, total);
                                                     current = stage;
                                                   }
                                                   bar->advance(true);
                                                   if (done == total) {
                                                     bar->finish();
                                                     bar.reset();
                                                     current.clear();
                                                   }
                                                 });
  if (bar) bar->finish();
  for (const auto& s : report.stages)
    log_info("{} {}: {}", s.team, s.stage,
             s.skipped ? std::string("finished earlier, skipped")
                       : fmt::format("{} items, {} failed, {:.1f} s", s.items, s.failed, s.seconds));
  for (const auto& f : report.failures)
    log_warn("{} {} {} [{}]: {}", f.team, f.character, f.trial, f.stage, f.error);
  const Table t = eval_ranking_table(report);
  print_table(t, global);
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
                 "Letter classifier: builtin, a .safetensors, or a Hugging Face ViT folder")
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
  cmd.add_flag("--force", opt->force, "Redo every stage even when its inputs did not change");
  cmd.footer(
      "Stages: convert, simulate, classify, diversity, score. Finished stages are skipped (logs/eval.json).\n"
      "Writes the official files per team and <input>/result/ (constants.json, trial_scores.csv, ...).");
  return [opt, &global] { return run_eval(*opt, global); };
}

}  // namespace

PCGLAB_REGISTER_COMMAND("birds", "classify",
                        "Similarity: classify level images (built-in CNN or the official ViT)",
                        setup_classify);
PCGLAB_REGISTER_COMMAND(
    "birds", "eval", "Evaluate a run end to end (convert, simulate, classify, diversity, score), resumable",
    setup_eval);

}  // namespace pcglab::cli
