// `pcglab textgame judge GAME.py... --spec SPEC.py [--metrics compliance,alignment,winnability] --model M
// --out DIR`: the LLM-judged metrics of text games (textgame/judge.h), each game × metric an item of
// the batch (resumable: finished calls come from the response cache), every judgement in
// DIR/judgements/<game>/<metric>.json, the table in DIR/results.{md,csv,json} and on stdout.
// Every exchange with the server is recorded in the run store, so a run killed mid-item (even with
// --no-cache) replays the answered calls; --shard splits the items, `pcglab merge DIR` completes them.
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>

#include "batch/merge.h"
#include "batch_options.h"
#include "command.h"
#include "core/check.h"
#include "core/log.h"
#include "core/table.h"
#include "core/thread_pool.h"
#include "llm/completer_stack.h"
#include "llm_options.h"
#include "textgame/judge.h"

namespace pcglab::cli {
namespace {

namespace fs = std::filesystem;

struct JudgeOptions {
  std::vector<std::string> games;
  std::string spec;
  std::string eval_form;
  std::string metrics = "compliance,alignment,winnability";
  std::string out;
  std::string corpus;
  std::string prompts;
  std::string mode = "official";
  std::string shard;
  std::vector<std::string> paths;  // a merge: where the games are read (as recorded)
  bool separate_votes = false;
  textgame::JudgeSettings settings;
  double timeout = textgame::host_worker_config().limits.call_timeout_s;
  LlmOptions llm;
  SandboxOptions sandbox;
};

std::vector<std::string> split_metrics(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = text.find(',', start);
    std::string part = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!part.empty()) out.push_back(part);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

constexpr const char* kTextgameJudgeRunName = "textgame judge";
constexpr const char* kRecordScope = "textgame-judge";

std::string absolute_or_empty(const std::string& p) {
  return p.empty() ? "" : fs::absolute(p).string();
}

// What a run records for `pcglab merge`: its inputs and settings (the server and the key come from
// the merge's environment, never from the folder).
OrderedJson merge_config(const JudgeOptions& o) {
  const auto opt = [](const auto& v) { return v ? OrderedJson(*v) : OrderedJson(); };
  const textgame::JudgeSettings& s = o.settings;
  return OrderedJson{{"games", o.games},
                     {"inputs", inputs_relative_to(o.out, o.paths.empty() ? o.games : o.paths)},
                     {"spec", absolute_or_empty(o.spec)},
                     {"eval_form", absolute_or_empty(o.eval_form)},
                     {"metrics", o.metrics},
                     {"corpus", absolute_or_empty(o.corpus)},
                     {"prompts", absolute_or_empty(o.prompts)},
                     {"mode", o.mode},
                     {"separate_votes", o.separate_votes},
                     {"votes", s.votes},
                     {"samples", s.alignment_samples},
                     {"sample_seed", s.sample_seed},
                     {"shuffle_seed", s.shuffle_seed},
                     {"env_steps", s.env_steps},
                     {"game_seed", s.game_seed},
                     {"game_timeout", o.timeout},
                     {"model", o.llm.model},
                     {"temperature", opt(o.llm.temperature)},
                     {"max_tokens", opt(o.llm.max_tokens)},
                     {"seed", opt(o.llm.seed)},
                     {"no_cache", o.llm.no_cache},
                     {"cache", absolute_or_empty(o.llm.cache)},
                     {"unsafe_no_sandbox", o.sandbox.unsafe_no_sandbox}};
}

int run_judge(JudgeOptions& o, const GlobalOptions& global) {
  textgame::JudgeRun run;
  for (const std::string& g : o.paths.empty() ? o.games : o.paths) run.games.emplace_back(g);
  run.spec = o.spec;
  run.eval_form = o.eval_form;
  run.corpus = o.corpus;
  run.metrics = split_metrics(o.metrics);
  run.out = o.out;
  run.settings = o.settings;
  run.settings.model = o.llm.model;
  run.settings.temperature = *o.llm.temperature;
  run.settings.max_tokens = o.llm.max_tokens;
  run.settings.seed = o.llm.seed;
  run.settings.regenerate_actions = o.mode == "fresh";
  run.settings.try_n = !o.separate_votes;
  if (!o.prompts.empty()) run.prompts = textgame::JudgePrompts::from_dir(o.prompts);
  run.worker.limits.call_timeout_s = o.timeout;
  run.worker.isolation = o.sandbox.isolation(run.worker);
  run.progress = !global.quiet;
  run.shard = shard_of(o.shard);
  run.merge_config = dump_json(merge_config(o));

  llm::CompleterStackOptions so;
  so.client = o.llm.checked_client_config();
  fs::create_directories(run.out / "logs");
  so.cache = o.llm.cache_file(run.out / "llm-cache.sqlite");
  so.record_scope = kRecordScope;
  // Built when the first item runs, with the batch's run store as its exchange record.
  std::mutex mutex;
  std::optional<llm::CompleterStack> stack;
  const auto completer = [&](const fs::path& store) -> llm::Completer& {
    std::lock_guard lock(mutex);
    if (!stack) {
      so.record = std::make_shared<store::ExchangeLog>(store);
      stack = llm::make_completer_stack(so);
      stack->client->on_retry(
          [](const llm::RetryNotice& retry) { log_info("{}: {}", retry.item, retry.describe()); });
    }
    return stack->completer();
  };

  ThreadPool pool(global.threads);
  const textgame::JudgeReport report = textgame::run_judge(run, completer, pool);
  std::cout << format_table(Table{report.columns, report.rows}, global.output_format());
  return report.failed == 0 ? kExitOk : kExitItemsFailed;
}

Action setup_judge(CLI::App& cmd, const GlobalOptions& global) {
  auto o = std::make_shared<JudgeOptions>();
  cmd.add_option("games", o->games, "The games' Python files (a TextGame class each)")->required();
  cmd.add_option("--spec", o->spec,
                 "The task specification the games were written from (data/test_prompts/test_N.py): "
                 "compliance's questions");
  cmd.add_option(
      "--eval-form", o->eval_form,
      "The official evaluation form (data/test_eval.csv): compliance asks each game the official's one "
      "question, by the experiment and test in its file name (e.g. gpt-4_action_test_3_p_generation.py); "
      "--spec may then be the folder of test_N.py (empty: every question of --spec)");
  cmd.add_option("--metrics", o->metrics, "Comma-separated: compliance, alignment, winnability")
      ->capture_default_str();
  cmd.add_option(
         "-o,--out", o->out,
         "Output folder: judgements/<game>/<metric>.json, results.{md,csv,json}, logs/, llm-cache.sqlite")
      ->required();
  cmd.add_option("--corpus", o->corpus,
                 "A BYTESIZED32-Refactored checkout: its data/library/GameBasic.py is importable as "
                 "data.library.GameBasic (empty: none)")
      ->capture_default_str();
  cmd.add_option("--prompts", o->prompts,
                 "A folder with compliance.txt, alignment.txt and winnability.txt (default: the built-in "
                 "templates)")
      ->check(CLI::ExistingDirectory);
  cmd.add_option("--votes", o->settings.votes, "Compliance: votes per question (majority passes)")
      ->check(number_in(1, 1000))
      ->capture_default_str();
  cmd.add_flag(
      "--separate-votes", o->separate_votes,
      "Compliance: send each vote as its own call (default: one request with n = --votes first, falling back "
      "to a call per vote when the reply has fewer choices)");
  cmd.add_option("--samples", o->settings.alignment_samples, "Alignment: crawled paths judged")
      ->check(number_in(1, 100000))
      ->capture_default_str();
  cmd.add_option("--sample-seed", o->settings.sample_seed,
                 "Alignment: seed of the paths' sampling (the official's sampling is unseeded)")
      ->check(any_number<int64_t>())
      ->capture_default_str();
  cmd.add_option("--shuffle-seed", o->settings.shuffle_seed, "Alignment: seed of the crawl's action shuffle")
      ->check(any_number<int64_t>())
      ->capture_default_str();
  cmd.add_option("--env-steps", o->settings.env_steps,
                 "Winnability: steps the agent may take in the game (turns: twice as many)")
      ->check(number_in(1, 10000))
      ->capture_default_str();
  cmd.add_option("--game-seed", o->settings.game_seed, "Winnability: the game's randomSeed")
      ->check(any_number<int64_t>())
      ->capture_default_str();
  cmd.add_option("--mode", o->mode,
                 "Winnability: official (the actions are generated once, at the start, as the official agent "
                 "does) or fresh (regenerated after every step, as the games' own main() does)")
      ->check(CLI::IsMember({"official", "fresh"}))
      ->capture_default_str();
  cmd.add_option("--game-timeout", o->timeout, "Wall-clock seconds each call into the game may take")
      ->check(number_in(0.01, 86400.0))
      ->capture_default_str();
  o->llm.temperature = 0.0;  // the official forces temperature 0.0 on every judge call
  LlmOptionSpec llm;
  llm.fails = "its item";
  llm.cache = true;
  llm.cache_default = "<out>/llm-cache.sqlite";
  llm.sampling_source = "official";
  add_llm_options(cmd, o->llm, llm);
  add_sandbox_options(cmd, o->sandbox, "the games");
  add_shard_option(cmd, o->shard);
  cmd.footer(
      "Resumable: run the same command again after an interruption (even kill -9); finished items are "
      "not run again and answered LLM calls are replayed from the run's exchange record (with "
      "--no-cache too).");
  return [o, &global] { return run_judge(*o, global); };
}

// `pcglab merge DIR` after `textgame judge --shard`: the recorded settings, unsharded (items a shard
// finished are reused; the others run, the server and key from the environment).
int merge_judge(const fs::path& dir, const Json& c, int) {
  if (c.value("unsafe_no_sandbox", false))
    throw SetupError(fmt::format(
        "{}: the shards ran with --unsafe-no-sandbox, which a run folder cannot ask of a merge; complete it "
        "with the same `pcglab textgame judge ... --out {} --unsafe-no-sandbox` command, unsharded",
        dir.string(), dir.string()));
  JudgeOptions o;
  o.out = dir.string();
  o.games = c.value("games", std::vector<std::string>{});
  o.paths = recorded_inputs(dir, c, o.games);
  o.spec = c.value("spec", "");
  o.eval_form = c.value("eval_form", "");
  o.metrics = c.value("metrics", o.metrics);
  o.corpus = c.value("corpus", "");
  o.prompts = c.value("prompts", "");
  o.mode = c.value("mode", o.mode);
  o.separate_votes = c.value("separate_votes", false);
  o.settings.votes = c.value("votes", o.settings.votes);
  o.settings.alignment_samples = c.value("samples", o.settings.alignment_samples);
  o.settings.sample_seed = c.value("sample_seed", o.settings.sample_seed);
  o.settings.shuffle_seed = c.value("shuffle_seed", o.settings.shuffle_seed);
  o.settings.env_steps = c.value("env_steps", o.settings.env_steps);
  o.settings.game_seed = c.value("game_seed", o.settings.game_seed);
  o.timeout = c.value("game_timeout", o.timeout);
  o.llm.model = c.value("model", "");
  o.llm.temperature = 0.0;
  if (c.contains("temperature") && !c["temperature"].is_null())
    o.llm.temperature = c["temperature"].get<double>();
  if (c.contains("max_tokens") && !c["max_tokens"].is_null()) o.llm.max_tokens = c["max_tokens"].get<int>();
  if (c.contains("seed") && !c["seed"].is_null()) o.llm.seed = c["seed"].get<int64_t>();
  o.llm.no_cache = c.value("no_cache", false);
  o.llm.cache = c.value("cache", "");
  return run_judge(o, merge_global_options());
}

}  // namespace

PCGLAB_REGISTER_MERGER(kTextgameJudgeRunName,
                       "judgements/ and results.{md,csv,json} (items no shard finished are judged)",
                       merge_judge);
PCGLAB_REGISTER_COMMAND("textgame", "judge",
                        "Judge text games with an LLM: specification compliance, physical-reality alignment, "
                        "winnability",
                        setup_judge);

}  // namespace pcglab::cli
