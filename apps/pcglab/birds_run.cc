// `pcglab birds run`: a prompt against an OpenAI-compatible model for every letter and trial,
// resumable, then optionally the whole evaluation.
#include <cmath>
#include <cstdlib>
#include <limits>
#include <mutex>

#include "batch/merge.h"
#include "batch_options.h"
#include "birds/competition_layout.h"
#include "birds/run_pipeline.h"
#include "birds_eval.h"
#include "command.h"
#include "core/log.h"
#include "core/progress.h"
#include "llm_options.h"
#include "nn/torch_runtime.h"

namespace pcglab::cli {
namespace {
namespace fs = std::filesystem;

struct RunCommandOptions {
  birds::RunOptions run;
  LlmOptions llm;
  std::string letters = "A-Z";
  bool eval = false;
  std::string eval_model = "builtin";
  std::string eval_policy = "2024";
  std::string shard;
};

// Runs the trials of `r` and prints them (or, with `eval`, evaluates the team); the exit code.
int run_and_report(const birds::RunOptions& r, bool eval, const RunCommandOptions& o,
                   const GlobalOptions& global) {
  const std::string shard = r.shard.all() ? "" : " (shard " + r.shard.label() + ")";
  ProgressBar bar("trials" + shard, r.letters.size() * static_cast<size_t>(r.trials) / r.shard.count);
  std::mutex mutex;
  birds::RunProgress progress;
  progress.trial_done = [&](const birds::RunTrial& t) {
    bar.advance(t.ok());
    if (!t.ok()) {
      std::lock_guard lock(mutex);
      log_warn("{} trial {} [{}]: {}", t.letter, t.trial, error_kind_name(t.outcome.kind), t.outcome.message);
    }
  };
  progress.counter = [&](const std::string& name, int64_t delta) { bar.add(name, delta); };
  // A rate-limit wait is shown (the bar counts the other retries).
  progress.retry = [](const llm::RetryNotice& retry) {
    if (retry.rate_limited) log_info("{}: {}", retry.item, retry.describe());
  };
  const birds::RunSummary summary = birds::run_prompt(r, progress);
  bar.finish();
  log_info("{}{}: {} ok, {} failed, {} finished earlier; {} requests sent, {} tokens; responses in {}",
           r.team, shard, summary.ok, summary.failed, summary.resumed, summary.requests, summary.tokens,
           (summary.team_dir / "raw").string());
  if (!r.shard.all())
    log_info("once every shard is done, `pcglab merge {}` completes the run (run.json{})",
             summary.team_dir.string(), eval ? ", scores" : "");
  Table t;
  t.columns = {"letter", "trial",        "status",    "requests",   "attempts",
               "cached", "total_tokens", "latency_s", "error_kind", "error"};
  for (const auto& x : summary.trials)
    t.add_row({std::string(1, x.letter), x.trial, x.status_label(), x.requests, x.attempts, x.cached,
               x.usage.total_tokens, x.latency_s, x.ok() ? std::string() : error_kind_name(x.outcome.kind),
               x.outcome.message});
  // One table on stdout (so --format json/csv stays one document): the trials, or with --eval the
  // ranking (failed trials are logged above either way; every trial is in logs/run.sqlite).
  if (!eval) print_table(t, global);
  int code = summary.failed > 0 ? kExitItemsFailed : kExitOk;
  if (eval) {
    ThreadPool pool(global.threads);
    nn::set_torch_threads(global.threads);
    birds::EvalOptions eval_options;
    eval_options.model = o.eval_model;
    eval_options.scoring.policy = birds::parse_scoring_policy(o.eval_policy);
    eval_options.scoring.trials = r.trials;
    eval_options.shard = r.shard;
    // What `pcglab merge` needs to complete a sharded evaluation (as `birds eval` records it).
    eval_options.config = dump_json(OrderedJson{{"model", o.eval_model},
                                                {"policy", o.eval_policy},
                                                {"trials", r.trials},
                                                {"converter", "1.4.1"},
                                                {"raw", false}});
    const auto report = birds::evaluate_competition(summary.team_dir, eval_options, pool);
    for (const auto& f : report.failures)
      log_warn("{} {} [{}]: {}", f.metadata.value("character", ""), f.metadata.value("trial", ""),
               f.metadata.value("stage", ""), birds::failure_text(f));
    if (report.complete) print_table(eval_ranking_table(report), global);
    if (!report.failures.empty()) code = kExitItemsFailed;
  }
  return code;
}

int run_birds_run(RunCommandOptions& o, const GlobalOptions& global) {
  birds::RunOptions& r = o.run;
  r.letters = birds::parse_letters(o.letters);
  r.model = o.llm.model;
  r.client = o.llm.client_config();  // run_prompt validates it (a merge's too)
  r.temperature = o.llm.temperature;
  r.top_p = o.llm.top_p;
  r.seed = o.llm.seed;
  r.max_tokens = o.llm.max_tokens;
  r.concurrency = o.llm.concurrency;
  r.requests_per_minute = o.llm.requests_per_minute;
  r.tokens_per_minute = o.llm.tokens_per_minute;
  r.cache = o.llm.cache_file(r.out / "llm-cache.sqlite");
  r.shard = shard_of(o.shard);
  return run_and_report(r, o.eval, o, global);
}

// `pcglab merge TEAM_DIR` after `birds run --shard`: the recorded settings, run unsharded (every
// trial a shard finished is reused; any other is requested, the key read from OPENAI_API_KEY).
int merge_birds_run(const fs::path& dir, const Json& settings, int) {
  RunCommandOptions o;
  o.run = birds::run_options_from_settings(dir, settings);
  return run_and_report(o.run, false, o, merge_global_options());
}

Action setup_birds_run(CLI::App& cmd, const GlobalOptions& global) {
  auto o = std::make_shared<RunCommandOptions>();
  cmd.add_option("--prompt", o->run.prompt,
                 "Prompt: a text file with <OBJECT>, or a conversation (.json/.yaml)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd.add_option("--team", o->run.team, "Team name (folder and file names)")->required();
  LlmOptionSpec llm;
  llm.fails = "its trial";
  llm.cache = true;
  llm.cache_default = "<out>/llm-cache.sqlite";
  llm.rate_limits = true;
  llm.concurrency_help = "Trials in progress at once (= requests in flight at most)";
  add_llm_options(cmd, o->llm, llm);
  cmd.add_option("--letters", o->letters, "Letters, e.g. A-Z or A,C,E")->capture_default_str();
  cmd.add_option("--trials", o->run.trials, "Trials per letter")
      ->check(number_in(1, 1000))
      ->capture_default_str();
  cmd.add_option("-o,--out", o->run.out, "Output folder: <out>/<team>/raw/<C>/<team>_<C>_<trial>.txt")
      ->capture_default_str();
  cmd.add_option("--eval-model", o->eval_model,
                 "With --eval: the letter classifier (builtin, a .safetensors, a ViT folder)")
      ->capture_default_str();
  cmd.add_option("--eval-policy", o->eval_policy, "With --eval: the scoring policy")
      ->check(CLI::IsMember({"2023", "2024", "2025"}))
      ->capture_default_str();
  add_shard_option(cmd, o->shard);
  cmd.add_flag("--eval", o->eval,
               "Then evaluate the team (birds eval: convert, simulate, classify, diversity, score)");
  cmd.footer(
      "Resumable: run the same command again after an interruption; finished trials are never requested "
      "again.");
  return [o, &global] { return run_birds_run(*o, global); };
}

}  // namespace

PCGLAB_REGISTER_MERGER(birds::kRunName, "run.json (trials no shard finished are requested)", merge_birds_run);
PCGLAB_REGISTER_COMMAND("birds", "run",
                        "Run a prompt on an OpenAI-compatible model for every letter and trial (resumable)",
                        setup_birds_run);

}  // namespace pcglab::cli
