// `pcglab poker synth --model M --out DIR`: IGE's data-synthesis pipeline (seed games from pcglab's
// phase variants, segment pairs, mutation rounds, segment-level and whole-game dialogues, the export
// to train.jsonl and train_complete.jsonl), every stage on the batch driver (poker/synth.h).
#include <iostream>
#include <memory>

#include "batch/merge.h"
#include "batch_options.h"
#include "command.h"
#include "core/check.h"
#include "core/files.h"
#include "core/json.h"
#include "llm_options.h"
#include "poker/synth.h"

namespace pcglab::cli {
namespace {

constexpr const char* kPokerSynthRunName = "poker synth";

struct SynthCliOptions {
  LlmOptions llm;
  SandboxOptions sandbox;
  std::string out;
  int64_t seed = 0;
  int seed_games = 20;
  int rounds = 5;
  int complete = 100;
  int segment_dialogues = 0;
  std::string game_seeds = "1-40";
  double timeout = 10;
  int memory = 1024;
  std::string variants;
  std::string shard;
  bool force = false;
};

OrderedJson synth_config(const SynthCliOptions& o) {
  const auto opt = [](const auto& v) { return v ? OrderedJson(*v) : OrderedJson(); };
  return OrderedJson{{"model", o.llm.model},
                     {"temperature", opt(o.llm.temperature)},
                     {"top_p", opt(o.llm.top_p)},
                     {"max_tokens", opt(o.llm.max_tokens)},
                     {"seed", o.seed},
                     {"seed_games", o.seed_games},
                     {"rounds", o.rounds},
                     {"complete", o.complete},
                     {"segment_dialogues", o.segment_dialogues},
                     {"game_seeds", o.game_seeds},
                     {"variants", o.variants.empty() ? "" : std::filesystem::absolute(o.variants).string()},
                     {"timeout", o.timeout},
                     {"memory", o.memory},
                     {"concurrency", o.llm.concurrency},
                     {"no_cache", o.llm.no_cache},
                     {"cache", o.llm.cache.empty() ? "" : std::filesystem::absolute(o.llm.cache).string()},
                     {"unsafe_no_sandbox", o.sandbox.unsafe_no_sandbox}};
}

int run_synth(const SynthCliOptions& o, const GlobalOptions& global) {
  poker::SynthOptions s;
  s.out = o.out;
  s.seed = o.seed;
  s.seed_games = o.seed_games;
  s.rounds = o.rounds;
  s.complete = o.complete;
  s.segment_dialogues = o.segment_dialogues;
  if (!o.variants.empty())
    s.variants = as_setup_input([&] { return poker::parse_variants(read_file(o.variants), o.variants); });
  try {
    s.game_seeds = poker::parse_seeds(o.game_seeds);
  } catch (const InputError&) {
    throw SetupError(
        fmt::format("--game-seeds '{}': not a list of seeds (write e.g. 1-40 or 1,5,9-12)", o.game_seeds));
  }
  s.run.worker.limits.call_timeout_s = o.timeout;
  s.run.worker.limits.memory_mb = o.memory;
  s.run.worker.isolation = o.sandbox.isolation(s.run.worker);
  s.request.model = o.llm.model;
  s.request.temperature = o.llm.temperature;
  s.request.top_p = o.llm.top_p;
  s.request.max_tokens = o.llm.max_tokens;
  s.stack.client = o.llm.checked_client_config();
  s.stack.limits = llm::RateLimits{o.llm.concurrency, o.llm.requests_per_minute, o.llm.tokens_per_minute};
  s.stack.cache = o.llm.cache_file(std::filesystem::path(o.out) / "llm-cache.sqlite");
  s.driver.shard = shard_of(o.shard);
  s.driver.force = o.force;
  s.driver.run_name = kPokerSynthRunName;
  s.driver.config = dump_json(synth_config(o));
  s.concurrency = o.llm.concurrency;
  const poker::SynthRun run = poker::run_synthesis(s);
  if (global.output_format() == OutputFormat::kJson || global.output_format() == OutputFormat::kJsonl)
    std::cout << run.summary.dump(global.output_format() == OutputFormat::kJson ? 1 : -1) << "\n";
  else
    std::cout << run.summary.dump(1) << "\n";
  return run.failed == 0 ? kExitOk : kExitItemsFailed;
}

Action setup_synth(CLI::App& cmd, const GlobalOptions& global) {
  auto o = std::make_shared<SynthCliOptions>();
  LlmOptionSpec llm;
  llm.fails = "its item";
  llm.cache = true;
  llm.cache_default = "<out>/llm-cache.sqlite";
  llm.rate_limits = true;
  llm.concurrency_help = "Items in progress at once (= requests in flight at most)";
  llm.seed = false;
  add_llm_options(cmd, o->llm, llm);
  cmd.add_option(
         "-o,--out", o->out,
         "Output folder: games/, segments/, mutations/, dialogues/, train.jsonl, train_complete.jsonl, "
         "summary.json, logs/")
      ->required();
  cmd.add_option("--seed", o->seed,
                 "Seed of the games' configs, variants and samples (CPython's random per item)")
      ->check(number_in<int64_t>(0, int64_t{1} << 62))
      ->capture_default_str();
  cmd.add_option("--seed-games", o->seed_games, "Seed games drawn (kept only if they execute)")
      ->check(number_in(0, 10000))
      ->capture_default_str();
  cmd.add_option("--rounds", o->rounds, "Mutation rounds (one mutation per kept seed game per round)")
      ->check(number_in(0, 100))
      ->capture_default_str();
  cmd.add_option("--complete", o->complete,
                 "Whole games drawn for whole-game dialogues (kept only if they execute)")
      ->check(number_in(0, 100000))
      ->capture_default_str();
  cmd.add_option("--segment-dialogues", o->segment_dialogues,
                 "Segment-level dialogues per seed game, sampled from its segments (0: one per segment)")
      ->check(number_in(0, 10000))
      ->capture_default_str();
  cmd.add_option("--game-seeds", o->game_seeds,
                 "Seeds every game must execute on, and a whole-game dialogue match on: 1-40, 7, 1,5,9-12")
      ->capture_default_str();
  cmd.add_option("--game-timeout", o->timeout, "Wall-clock seconds a game's seeds may take in the sandbox")
      ->check(number_in(0.01, 86400.0))
      ->capture_default_str();
  cmd.add_option("--memory", o->memory, "Memory limit of the sandbox worker, MB")
      ->check(number_in(64, 1 << 20))
      ->capture_default_str();
  cmd.add_option(
         "--variants", o->variants,
         "Phase variants and preset flows to draw games from (JSON, as src/poker/data/variants/phases.json); "
         "default: pcglab's own")
      ->check(CLI::ExistingFile);
  add_sandbox_options(cmd, o->sandbox, "the games");
  cmd.add_flag("--force", o->force, "Run every item again (finished LLM calls are still replayed)");
  add_shard_option(cmd, o->shard);
  cmd.footer(
      "Each stage's items are items of the batch driver: run the same command again after an interruption "
      "(even kill -9); finished items are reused and finished LLM calls are never repeated. Prints "
      "summary.json.");
  return [o, &global] { return run_synth(*o, global); };
}

// `pcglab merge DIR` after `poker synth --shard`: the recorded settings, unsharded (items a shard
// finished are reused; the export needs every item).
int merge_synth(const std::filesystem::path& dir, const Json& c, int) {
  if (c.value("unsafe_no_sandbox", false))
    throw SetupError(
        fmt::format("{}: the shards ran with --unsafe-no-sandbox, which a run folder cannot ask of a merge; "
                    "complete it with "
                    "the same `pcglab poker synth ... --out {} --unsafe-no-sandbox` command, unsharded",
                    dir.string(), dir.string()));
  SynthCliOptions o;
  o.llm.model = c.value("model", "");
  if (c.contains("temperature") && !c["temperature"].is_null())
    o.llm.temperature = c["temperature"].get<double>();
  if (c.contains("top_p") && !c["top_p"].is_null()) o.llm.top_p = c["top_p"].get<double>();
  if (c.contains("max_tokens") && !c["max_tokens"].is_null()) o.llm.max_tokens = c["max_tokens"].get<int>();
  o.seed = c.value("seed", int64_t{0});
  o.seed_games = c.value("seed_games", 20);
  o.rounds = c.value("rounds", 5);
  o.complete = c.value("complete", 100);
  o.segment_dialogues = c.value("segment_dialogues", 0);
  o.game_seeds = c.value("game_seeds", "1-40");
  o.variants = c.value("variants", "");
  o.timeout = c.value("timeout", 10.0);
  o.memory = c.value("memory", 1024);
  o.llm.concurrency = c.value("concurrency", 8);
  o.llm.no_cache = c.value("no_cache", false);
  o.llm.cache = c.value("cache", "");
  o.out = dir.string();
  return run_synth(o, merge_global_options());
}

}  // namespace

PCGLAB_REGISTER_MERGER(kPokerSynthRunName,
                       "train.jsonl, train_complete.jsonl and summary.json (items no shard finished are run)",
                       merge_synth);
PCGLAB_REGISTER_COMMAND(
    "poker", "synth",
    "IGE data synthesis: seed games, segment pairs, mutation rounds, segment and whole-game "
    "dialogues, exported as chat fine-tuning JSONL",
    setup_synth);

}  // namespace pcglab::cli
