// `pcglab birds score`: scores and ranks exactly as the official scoring-and-ranking-script.
#include <cmath>
#include <filesystem>

#include "batch/driver.h"
#include "birds/competition_layout.h"
#include "birds/diversity.h"
#include "birds/score_folder.h"
#include "birds/scoring.h"
#include "birds/team_batches.h"
#include "command.h"
#include "core/log.h"
#include "core/thread_pool.h"

namespace pcglab::cli {
namespace {
namespace fs = std::filesystem;
using namespace pcglab::birds;

struct ScoreOptions {
  std::string input;
  std::string out;
  std::string policy = "2024";
  int trials = 10;
  std::vector<std::string> baselines;
  std::vector<std::string> disqualified;
  std::string prompts;
  bool no_weights = false;
};

int run_score(const ScoreOptions& opt, const GlobalOptions& global) {
  ScoreFolderOptions score;
  score.input = opt.input;
  score.out = opt.out;
  score.prompts = opt.prompts;
  score.config.policy = parse_scoring_policy(opt.policy);
  score.config.trials = opt.trials;
  score.config.baselines = opt.baselines;
  score.config.disqualified = opt.disqualified;
  score.config.disable_weights = opt.no_weights;
  const ScoringResult result = score_folder(score).result;
  Table t;
  t.columns = {"rank", "team", "normalized_prompt_score", "prompt_score"};
  const auto number = [](double v) { return std::isfinite(v) ? Json(v) : Json(); };
  for (const EntryScore& e : result.entries)
    t.add_row({e.rank, e.name, number(e.normalized), number(e.prompt_score)});
  print_table(t, global);
  for (const ItemFailure& error : result.errors) log_error("{}", error.what());
  for (const EntryScore& e : result.entries) {
    if (e.rank == kRankNoValidResults)
      log_error("{}: not ranked (rank {}): no valid results", e.name, e.rank);
  }
  if (!result.errors.empty()) {
    log_error("{} invalid value{} left out (a missing trial counts 0)", result.errors.size(),
              result.errors.size() == 1 ? "" : "s");
    return kExitItemsFailed;
  }
  return kExitOk;
}

Action setup_score(CLI::App& cmd, const GlobalOptions& global) {
  auto opt = std::make_shared<ScoreOptions>();
  cmd.add_option(
         "input", opt->input,
         "Competition folder (<team>/stability|similarity|diversity/<C>.json; 2025: <team>/<model>/...) "
         "or a trial_scores.csv")
      ->required()
      ->check(CLI::ExistingPath);
  cmd.add_option("-o,--out", opt->out, "Output folder (default: <input>/result)");
  cmd.add_option("--policy", opt->policy, "Scoring policy of a competition year")
      ->check(CLI::IsMember({"2023", "2024", "2025"}));
  cmd.add_option("--trials", opt->trials,
                 "Trials per character (the division uses this, not the trials present)")
      ->check(number_in(1, 1000));
  cmd.add_option("--baselines", opt->baselines, "Entries scored but not ranked (rank -1)")->delimiter(',');
  cmd.add_option("--disqualified", opt->disqualified, "Entries not scored (rank -2, scores -1)")
      ->delimiter(',');
  cmd.add_option("--prompts", opt->prompts,
                 "Folder of <team>.txt prompts: ties go to the shorter prompt (in words)");
  cmd.add_flag("--no-weights", opt->no_weights, "All weights 1 (the official DISABLE_WEIGHTS switch)");
  cmd.footer(
      "Writes constants.json, trial_scores.csv, character_scores.csv, prompt_scores_ranks.csv, result.json.\n"
      "Ranks: 1.. places, -1 baseline, -2 disqualified, -3 no valid results. A value that is not a number "
      "in\n"
      "[0, 1] is reported (file, row or entry, column) and left out; then the exit code is 1.");
  return [opt, &global] { return run_score(*opt, global); };
}

struct DiversityOptions {
  std::string input;
  int trials = 10;
  std::string vectors = "softmax";
};

Action setup_diversity(CLI::App& cmd, const GlobalOptions& global) {
  auto opt = std::make_shared<DiversityOptions>();
  cmd.add_option("input", opt->input, "Competition folder with <team>/similarity/<C>.json")
      ->required()
      ->check(CLI::ExistingDirectory);
  cmd.add_option("--trials", opt->trials, "Configured trials n: the sum is divided by n(n+1)/2 - n")
      ->check(number_in(2, 1000));
  cmd.add_option("--vectors", opt->vectors, "softmax (2024) or cls (2025, the ViT's CLS embedding)")
      ->check(CLI::IsMember({"softmax", "cls"}));
  return [opt, &global] {
    ThreadPool pool(global.threads);
    const auto teams = find_team_folders(opt->input, "similarity");
    const auto vectors = opt->vectors == "cls" ? DiversityVectors::kClsEmbedding : DiversityVectors::kSoftmax;
    const batch::StageRun run = run_per_team(teams, pool, {}, [&](batch::Driver& d, const fs::path& team) {
      return diversity_stage(d, {team}, opt->trials, vectors);
    });
    int64_t written = 0;
    for (const ItemOutcome& o : run.outcomes) {
      if (o.ok()) {
        ++written;
      } else {
        const auto [team, character] = parse_diversity_key(o.key);
        log_error("{} {}: {}", team, character, o.message);
      }
    }
    const auto results = run.outcomes;
    Table t;
    t.columns = {"characters_written", "characters_failed"};
    t.add_row({written, static_cast<int64_t>(results.size()) - written});
    print_table(t, global);
    return written == static_cast<int64_t>(results.size()) ? kExitOk : kExitItemsFailed;
  };
}

}  // namespace

PCGLAB_REGISTER_COMMAND("birds", "diversity", "Diversity per character as the official 2024/2025 script",
                        setup_diversity);
PCGLAB_REGISTER_COMMAND("birds", "score", "Scores and ranks as the official scoring script (2023/2024/2025)",
                        setup_score);

}  // namespace pcglab::cli
