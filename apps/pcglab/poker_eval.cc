// `pcglab poker eval --model M --test FILE.jsonl --out DIR`: IGE's black-box evaluation
// (poker/eval.h): a simulated user reveals each test game to the model under test, then the code
// metrics over fixed seeds and the interaction-quality judge; DIR/result.{md,csv,json} (the
// official result table), DIR/games.{md,csv,json} (per game), DIR/run.json (settings and seeds).
// Each test game is an item of the batch (resumable after kill -9 without repeating an answered
// request; --shard; `pcglab merge DIR`). --dialogues scores recorded conversations instead.
#include <cstdlib>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>

#include "batch/merge.h"
#include "batch_options.h"
#include "command.h"
#include "core/check.h"
#include "core/log.h"
#include "core/thread_pool.h"
#include "llm/completer_stack.h"
#include "llm_options.h"
#include "poker/eval.h"

namespace pcglab::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kPokerEvalRunName = "poker eval";

struct PokerEvalOptions {
  std::string test;
  std::string out;
  std::string dialogues;
  std::string user_model, user_base_url;
  std::string judge_model, judge_base_url;
  bool no_judge = false;
  int judge_runs = 5;
  int max_turns = 20;
  std::string seeds = "1-40";
  std::optional<int64_t> seed_from;
  double timeout = 10;
  int memory = 1024;
  std::string shard;
  std::vector<std::string> paths;  // a merge: where test and dialogues are read (as recorded)
  LlmOptions llm;
  SandboxOptions sandbox;
};

std::string absolute_or_empty(const std::string& p) {
  return p.empty() ? "" : fs::absolute(p).string();
}

OrderedJson merge_config(const PokerEvalOptions& o) {
  const auto opt = [](const auto& v) { return v ? OrderedJson(*v) : OrderedJson(); };
  std::vector<std::string> files = {o.test};
  if (!o.dialogues.empty()) files.push_back(o.dialogues);
  return OrderedJson{{"test", o.test},
                     {"dialogues", o.dialogues},
                     {"inputs", inputs_relative_to(o.out, o.paths.empty() ? files : o.paths)},
                     {"model", o.llm.model},
                     {"user_model", o.user_model},
                     {"judge_model", o.judge_model},
                     {"no_judge", o.no_judge},
                     {"judge_runs", o.judge_runs},
                     {"max_turns", o.max_turns},
                     {"seeds", o.seeds},
                     {"seed_from", opt(o.seed_from)},
                     {"game_timeout", o.timeout},
                     {"memory", o.memory},
                     {"temperature", opt(o.llm.temperature)},
                     {"top_p", opt(o.llm.top_p)},
                     {"max_tokens", opt(o.llm.max_tokens)},
                     {"seed", opt(o.llm.seed)},
                     {"no_cache", o.llm.no_cache},
                     {"cache", absolute_or_empty(o.llm.cache)},
                     {"unsafe_no_sandbox", o.sandbox.unsafe_no_sandbox}};
}

llm::ChatRequest base_request(const PokerEvalOptions& o, const std::string& model) {
  llm::ChatRequest r;
  r.model = model;
  r.temperature = o.llm.temperature;
  r.top_p = o.llm.top_p;
  r.max_tokens = o.llm.max_tokens;
  r.seed = o.llm.seed;
  return r;
}

// The client of a role: the main one with the role's base URL, and its key from
// PCGLAB_POKER_EVAL_<ROLE>_API_KEY when set (else OPENAI_API_KEY's).
llm::ClientConfig role_client(const PokerEvalOptions& o, const std::string& base_url, const char* key_env) {
  LlmOptions role = o.llm;
  if (!base_url.empty()) role.base_url = base_url;
  llm::ClientConfig config = role.client_config();
  if (const char* key = std::getenv(key_env); key && *key) config.api_key = key;
  llm::validate_client_config(config);
  return config;
}

int run_eval(PokerEvalOptions& o, const GlobalOptions& global) {
  poker::EvalRun run;
  run.test = o.paths.empty() ? o.test : o.paths[0];
  if (!o.dialogues.empty()) run.dialogues = o.paths.empty() ? o.dialogues : o.paths.at(1);
  run.out = o.out;
  if (o.user_model.empty()) o.user_model = o.llm.model;
  if (o.judge_model.empty()) o.judge_model = o.llm.model;
  run.interaction.assistant = base_request(o, o.llm.model);
  run.interaction.user = base_request(o, o.user_model);
  run.interaction.max_turns = o.max_turns;
  run.judge = base_request(o, o.judge_model);
  run.no_judge = o.no_judge;
  run.judge_runs = o.judge_runs;
  if (o.seed_from) {
    run.seeds = poker::sampled_eval_seeds(*o.seed_from);
    run.seeds_text = fmt::format("random.sample(range(10000), 40) after random.seed({})", *o.seed_from);
  } else {
    run.seeds = as_setup_input([&] { return poker::parse_seeds(o.seeds); });
    run.seeds_text = o.seeds;
  }
  run.engine.worker.limits.call_timeout_s = o.timeout;
  run.engine.worker.limits.memory_mb = o.memory;
  run.engine.worker.isolation = o.sandbox.isolation(run.engine.worker);
  run.model_name = o.llm.model;
  run.progress = !global.quiet;
  run.shard = shard_of(o.shard);
  run.merge_config = dump_json(merge_config(o));

  // The servers are checked before anything runs, when the run calls them at all.
  const bool interact = o.dialogues.empty();
  std::optional<llm::ClientConfig> clients[3];
  if (interact) {
    clients[0] = o.llm.checked_client_config();
    clients[1] = role_client(o, o.user_base_url, "PCGLAB_POKER_EVAL_USER_API_KEY");
  }
  if (!o.no_judge) clients[2] = role_client(o, o.judge_base_url, "PCGLAB_POKER_EVAL_JUDGE_API_KEY");
  fs::create_directories(run.out / "logs");
  const std::optional<fs::path> cache = o.llm.cache_file(run.out / "llm-cache.sqlite");

  // Built when the first item needs them, with the batch's run store as their exchange record.
  std::mutex mutex;
  std::shared_ptr<store::ExchangeLog> record;
  std::optional<llm::CompleterStack> stacks[3];
  const char* scopes[3] = {"poker-eval-assistant", "poker-eval-user", "poker-eval-judge"};
  const auto completers = [&](poker::EvalRole role, const fs::path& store) -> llm::Completer& {
    std::lock_guard lock(mutex);
    const int r = static_cast<int>(role);
    PCGLAB_CHECK(clients[r].has_value()) << "no client for the role";
    if (!stacks[r]) {
      if (!record) record = std::make_shared<store::ExchangeLog>(store);
      llm::CompleterStackOptions so;
      so.client = *clients[r];
      so.cache = cache;
      so.record = record;
      so.record_scope = scopes[r];
      stacks[r] = llm::make_completer_stack(so);
      stacks[r]->client->on_retry(
          [](const llm::RetryNotice& retry) { log_info("{}: {}", retry.item, retry.describe()); });
    }
    return stacks[r]->completer();
  };

  ThreadPool pool(global.threads);
  const poker::EvalReport report = poker::run_eval(run, completers, pool);
  std::cout << poker::format_result_table({report.row}, global.output_format());
  if (report.judge_errors > 0)
    log_warn("{} judge replies could not be read (recorded in {}/judge/)", report.judge_errors, o.out);
  return report.failed == 0 ? kExitOk : kExitItemsFailed;
}

Action setup_poker_eval(CLI::App& cmd, const GlobalOptions& global) {
  auto o = std::make_shared<PokerEvalOptions>();
  cmd.add_option("--test", o->test,
                 "The test set: one JSON object per line, {\"script\": YAML text, \"code\": the ground-truth "
                 "methods} (the official data/test.jsonl format)")
      ->required();
  cmd.add_option(
         "-o,--out", o->out,
         "Output folder: result.{md,csv,json}, games.{md,csv,json}, run.json, sessions/, scores/, judge/, "
         "logs/, llm-cache.sqlite")
      ->required();
  cmd.add_option(
      "--dialogues", o->dialogues,
      "Score recorded dialogues instead of running the interaction: one JSON object per line, "
      "{\"messages\": [{\"role\", \"content\"}, ...]} in chat format, line N for the test set's game N "
      "(--model then only names the result's row)");
  cmd.add_option("--user-model", o->user_model, "The simulated user's model (empty: --model)");
  cmd.add_option("--user-base-url", o->user_base_url,
                 "The simulated user's server (empty: --base-url's); its key from "
                 "PCGLAB_POKER_EVAL_USER_API_KEY, else OPENAI_API_KEY");
  cmd.add_option("--judge-model", o->judge_model, "The interaction-quality judge's model (empty: --model)");
  cmd.add_option(
      "--judge-base-url", o->judge_base_url,
      "The judge's server (empty: --base-url's); its key from PCGLAB_POKER_EVAL_JUDGE_API_KEY, else "
      "OPENAI_API_KEY");
  cmd.add_flag("--no-judge", o->no_judge, "Skip the interaction-quality judge (the aspects are left empty)");
  cmd.add_option("--judge-runs", o->judge_runs, "Judge replies per dialogue (the aspects are their mean)")
      ->check(number_in(1, 100))
      ->capture_default_str();
  cmd.add_option("--max-turns", o->max_turns, "Assistant turns per dialogue at most")
      ->check(number_in(1, 1000))
      ->capture_default_str();
  CLI::Option* seeds =
      cmd.add_option("--seeds", o->seeds, "The seeds every game is played on, in order: 1-40, 7, or 1,5,9-12")
          ->capture_default_str();
  cmd.add_option(
         "--seed-from", o->seed_from,
         "Instead of --seeds: 40 distinct seeds drawn as the official random.sample(range(10000), 40), "
         "after random.seed(N) (the official draw is unseeded)")
      ->check(any_number<int64_t>())
      ->excludes(seeds);
  cmd.add_option("--game-timeout", o->timeout, "Wall-clock seconds a game's call in the sandbox may take")
      ->check(number_in(0.01, 86400.0))
      ->capture_default_str();
  cmd.add_option("--memory", o->memory, "Memory limit of the sandbox worker, MB")
      ->check(number_in(64, 1 << 20))
      ->capture_default_str();
  LlmOptionSpec llm;
  llm.fails = "its item";
  llm.cache = true;
  llm.cache_default = "<out>/llm-cache.sqlite";
  add_llm_options(cmd, o->llm, llm);
  add_sandbox_options(cmd, o->sandbox, "the games");
  add_shard_option(cmd, o->shard);
  cmd.footer(
      "Resumable: run the same command again after an interruption (even kill -9); finished items are not "
      "run again and answered LLM calls are replayed from the run's exchange record (with --no-cache too).");
  return [o, &global] { return run_eval(*o, global); };
}

int merge_eval(const fs::path& dir, const Json& c, int) {
  if (c.value("unsafe_no_sandbox", false))
    throw SetupError(fmt::format(
        "{}: the shards ran with --unsafe-no-sandbox, which a run folder cannot ask of a merge; complete it "
        "with the same `pcglab poker eval ... --out {} --unsafe-no-sandbox` command, unsharded",
        dir.string(), dir.string()));
  PokerEvalOptions o;
  o.out = dir.string();
  o.test = c.value("test", "");
  o.dialogues = c.value("dialogues", "");
  std::vector<std::string> files = {o.test};
  if (!o.dialogues.empty()) files.push_back(o.dialogues);
  o.paths = recorded_inputs(dir, c, files);
  o.llm.model = c.value("model", "");
  o.user_model = c.value("user_model", "");
  o.judge_model = c.value("judge_model", "");
  o.no_judge = c.value("no_judge", false);
  o.judge_runs = c.value("judge_runs", o.judge_runs);
  o.max_turns = c.value("max_turns", o.max_turns);
  o.seeds = c.value("seeds", o.seeds);
  if (c.contains("seed_from") && !c["seed_from"].is_null()) o.seed_from = c["seed_from"].get<int64_t>();
  o.timeout = c.value("game_timeout", o.timeout);
  o.memory = c.value("memory", o.memory);
  if (c.contains("temperature") && !c["temperature"].is_null())
    o.llm.temperature = c["temperature"].get<double>();
  if (c.contains("top_p") && !c["top_p"].is_null()) o.llm.top_p = c["top_p"].get<double>();
  if (c.contains("max_tokens") && !c["max_tokens"].is_null()) o.llm.max_tokens = c["max_tokens"].get<int>();
  if (c.contains("seed") && !c["seed"].is_null()) o.llm.seed = c["seed"].get<int64_t>();
  o.llm.no_cache = c.value("no_cache", false);
  o.llm.cache = c.value("cache", "");
  return run_eval(o, merge_global_options());
}

}  // namespace

PCGLAB_REGISTER_MERGER(kPokerEvalRunName,
                       "result.{md,csv,json} and games.{md,csv,json} (items no shard finished are run)",
                       merge_eval);
PCGLAB_REGISTER_COMMAND(
    "poker", "eval",
    "Evaluate a model on IGE's test games: a simulated user, the code metrics over fixed seeds, "
    "the interaction-quality judge",
    setup_poker_eval);

}  // namespace pcglab::cli
