// `pcglab pcgrl refine`: PCGRLLM's reward-refinement loop end to end (pcgrl/pcgrllm.h) on any
// OpenAI-compatible server, resumable after any interruption.
#include <cmath>
#include <filesystem>
#include <limits>

#include "batch/merge.h"
#include "batch_options.h"
#include "command.h"
#include "core/log.h"
#include "llm/completer_stack.h"
#include "llm_options.h"
#include "pcgrl/pcgrllm.h"
#include "sandbox/isolation.h"

namespace pcglab::cli {
namespace {
namespace fs = std::filesystem;

// The default PPO budget per iteration (10 updates of 16 × 128): the whole default loop (6 iterations,
// 5 alignment rounds, 16 environments, feedback on) costs at most ~23 CPU-minutes, so it finishes on
// the 2-core development machine in under 30 minutes, LLM latency apart (docs/pcgrl.md: "The
// refinement loop" has the measurement).
constexpr int64_t kDefaultTrainSteps = 20480;

struct RefineOptions {
  pcgrl::PcgrllmOptions run;
  std::string pe = "cot";
  std::string feedback = "on";
  std::string feedback_input = "text";
  std::string prompts;
  std::string out;
  LlmOptions llm;
  SandboxOptions sandbox;
  std::string shard;
};

Json number_or_null(double v) {
  return std::isfinite(v) ? Json(v) : Json();
}

int run_refine(RefineOptions& o, const GlobalOptions& global) {
  pcgrl::PcgrllmOptions& r = o.run;
  r.strategy = refine::parse_strategy(o.pe);
  r.feedback = o.feedback == "on";
  r.feedback_images = o.feedback_input == "image";
  if (!o.prompts.empty()) r.prompts = fs::path(o.prompts);
  r.out = o.out;
  r.llm.model = o.llm.model;
  r.llm.temperature = *o.llm.temperature;
  r.llm.top_p = *o.llm.top_p;
  r.llm.max_tokens = *o.llm.max_tokens;
  // The loop is one ordered chain (node n refines an earlier node's result): no items to split.
  if (const batch::Shard shard = shard_of(o.shard); !shard.all())
    throw SetupError(fmt::format(
        "--shard {}: pcgrl refine is one sequential loop (each node refines an earlier node's result), so "
        "it has no independent items to split over processes; run each seed or scenario as its own "
        "command with its own --out folder (e.g. one Slurm array task each)",
        o.shard));
  pcgrl::validate_pcgrllm_options(r);
  r.worker.isolation = o.sandbox.isolation(r.worker);

  llm::CompleterStackOptions so;
  so.client = o.llm.checked_client_config();
  fs::create_directories(r.out / "logs");
  so.cache = o.llm.cache_file(r.out / "llm-cache.sqlite");
  so.record = std::make_shared<store::ExchangeLog>(pcgrl::refine_store_path(r.out));
  so.record_scope = pcgrl::kRefineScope;
  const llm::CompleterStack stack = llm::make_completer_stack(so);
  // Every retry wait is shown ("node/0002/generate: rate limited, retry 3/6 in 12 s"): a refinement
  // makes few calls, and a long rate-limit wait must not look like a hang.
  stack.client->on_retry(
      [](const llm::RetryNotice& retry) { log_info("{}: {}", retry.item, retry.describe()); });

  const int64_t per_update = static_cast<int64_t>(r.train.n_envs) * r.train.rollout;
  const int64_t updates = r.train.total_steps / per_update;
  if (r.train.total_steps % per_update != 0)
    log_warn(
        "--train-steps {}: training {} steps, a whole number of updates "
        "of --envs × --rollout = {}",
        r.train.total_steps, updates * per_update, per_update);
  pcgrl::PcgrllmProgress progress;
  progress.log = [](const std::string& line) { log_info("{}", line); };
  // Each step's line names the requests it sent: this run's, and with earlier runs of the step.
  progress.step = [](const refine::StepEvent& e) {
    const std::string earlier =
        e.requests != e.requests_now ? fmt::format(", {} with earlier runs", e.requests) : "";
    if (e.resumed)
      log_info("node {}: {} done earlier (resumed; {} requests sent)", e.iteration, e.step, e.requests);
    else if (e.ok)
      log_info("node {}: {} done; {} requests sent{}", e.iteration, e.step, e.requests_now, earlier);
    else
      log_warn("node {}: {} failed ({} requests sent{}): {}", e.iteration, e.step, e.requests_now, earlier,
               e.error);
  };
  progress.train = [updates](const pcgrl::TrainLogRow& row, int node) {
    const int64_t every = std::max<int64_t>(1, updates / 5);
    if (row.update % every == 0 || row.update == updates)
      log_info(
          "node {}: update {}/{}, {} steps, recent return {:.2f}, {:.0f} "
          "steps/s",
          node, row.update, updates, row.env_steps, row.recent_return, row.steps_per_s);
  };
  const refine::RefineResult result = pcgrl::run_pcgrllm(r, stack.completer(), progress);

  Table t;
  t.columns = {"node",        "parent",          "status",   "accuracy", "solvability",
               "n_solutions", "reach_important", "requests", "error"};
  int failed = 0;
  for (const refine::ThoughtNode& n : result.graph.nodes()) {
    failed += !n.usable();
    const OrderedJson scores = n.metadata.value("scores", OrderedJson::object());
    const auto score = [&](const char* key) {
      return n.usable() && scores.contains(key) ? number_or_null(scores[key].get<double>()) : Json();
    };
    t.add_row({n.id, n.parent, n.usable() ? "ok" : "failed", score("accuracy"), score("solvability"),
               score("n_solutions"), score("reach_important"), n.requests,
               n.error.substr(0, n.error.find('\n'))});
  }
  print_table(t, global);
  log_info("{} requests sent to the LLM server by this run; {} by the nodes' steps over all runs",
           result.requests_now, result.requests);
  if (result.best)
    log_info(
        "best: node {} (accuracy {:.3f}); {} steps run, {} resumed; "
        "`pcglab pcgrl report {}` makes the page",
        *result.best, result.graph.node(*result.best).fitness, result.steps_run, result.steps_resumed,
        r.out.string());
  return failed > 0 ? kExitItemsFailed : kExitOk;
}

Action setup_refine(CLI::App& cmd, const GlobalOptions& global) {
  auto o = std::make_shared<RefineOptions>();
  pcgrl::PcgrllmOptions& r = o->run;
  r.train.total_steps = kDefaultTrainSteps;
  cmd.add_option("--scenario", r.scenario, "Scenario preset: 1 bat, 2 bat+scorpion, 3 bat+scorpion+spider")
      ->check(number_in(1, 3))
      ->capture_default_str();
  cmd.add_option("--pe", o->pe,
                 "Thought strategy: io (one reward), cot (chain), tot (tree), "
                 "got (graph)")
      ->check(CLI::IsMember({"io", "cot", "tot", "got"}))
      ->capture_default_str();
  cmd.add_option("--iterations", r.iterations, "Rewards to make (nodes of the thought graph; io: 1)")
      ->check(number_in(1, 1000))
      ->capture_default_str();
  cmd.add_option("--self-alignment", r.self_alignment,
                 "Self-alignment rounds per reward (official: 5; 0: none)")
      ->check(number_in(0, 100))
      ->capture_default_str();
  cmd.add_option("--feedback", o->feedback, "LLM feedback on each reward's levels")
      ->check(CLI::IsMember({"on", "off"}))
      ->capture_default_str();
  cmd.add_option("--feedback-input", o->feedback_input,
                 "Levels shown to the feedback LLM as numpy text or as PNG "
                 "images (vision models)")
      ->check(CLI::IsMember({"text", "image"}))
      ->capture_default_str();
  cmd.add_option("--breadth", r.breadth, "ToT/GoT: children a node may have")
      ->check(number_in(1, 100))
      ->capture_default_str();
  cmd.add_option("--n-best", r.n_best, "GoT: best other nodes shown as auxiliary context")
      ->check(number_in(0, 100))
      ->capture_default_str();
  // PCGRLLM's official sampling settings are the defaults (every call sends them).
  o->llm.temperature = r.llm.temperature;
  o->llm.top_p = r.llm.top_p;
  o->llm.max_tokens = r.llm.max_tokens;
  LlmOptionSpec llm;
  llm.fails = "its step";
  llm.cache = true;
  llm.cache_default = "<out>/llm-cache.sqlite";
  llm.sampling_source = "official";
  llm.seed = false;  // --seed is the training seed (the LLM's is the trial number, as the official code)
  add_llm_options(cmd, o->llm, llm);
  cmd.add_option("--train-steps", r.train.total_steps,
                 "PPO environment steps per reward (paper: 5e7). The default "
                 "runs the whole default loop "
                 "(6 iterations, 5 alignment rounds, 16 envs) in under 30 "
                 "minutes on a 2-core CPU, LLM "
                 "latency apart")
      ->check(number_in<int64_t>(1, 1000000000000))
      ->capture_default_str();
  cmd.add_option("--envs", r.train.n_envs, "Environments (training, validation and alignment rollouts)")
      ->check(number_in(1, 4096))
      ->capture_default_str();
  cmd.add_option("--rollout", r.train.rollout, "PPO steps per environment per update")
      ->check(number_in(1, 100000))
      ->capture_default_str();
  cmd.add_option("--lr", r.train.ppo.lr, "PPO Adam learning rate")
      ->check(number_in(1e-8, 1.0))
      ->capture_default_str();
  cmd.add_option("--epochs", r.train.ppo.epochs, "PPO epochs per update")
      ->check(number_in(1, 1000))
      ->capture_default_str();
  cmd.add_option(
         "--minibatches", r.train.ppo.minibatches,
         "PPO minibatches per epoch (envs × rollout must split into minibatches of at least 2 samples)")
      ->check(number_in(1, 65536))
      ->capture_default_str();
  cmd.add_option(
         "--train-threads", r.train.torch_threads,
         "libtorch threads of training and level generation (fixed, so results do not depend on the machine)")
      ->check(number_in(1, 1024))
      ->capture_default_str();
  cmd.add_option("--device", r.train.ppo.device,
                 "Where the PPO network, its update and level generation run: cpu, or cuda (needs a build "
                 "against a CUDA libtorch, -DPCGLAB_TORCH_PREFIX: docs/nn.md)")
      ->check(CLI::IsMember({"cpu", "cuda"}))
      ->capture_default_str();
  cmd.add_option_function<std::string>(
         "--first-layers", [&r](const std::string& v) { r.train.ppo.one_hot_gathers = v == "gather"; },
         "The actor's first conv and the critic's first layer on the CPU: gather (sums of weight rows "
         "picked by the one-hot input) or dense; same weights")
      ->check(CLI::IsMember({"gather", "dense"}))
      ->default_str("gather");
  cmd.add_option(
         "--board-scans", r.train.env.max_board_scans,
         "Episode length in board scans of 256 steps (PCGRLLM: 3); levels are the map after the last edit")
      ->check(number_in(1, pcgrl::kMaxBoardScans))
      ->capture_default_str();
  cmd.add_option("--levels", r.levels, "Levels generated per reward to score it (official: 30)")
      ->check(number_in(1, 10000))
      ->capture_default_str();
  cmd.add_option("--seed", r.train.seed, "Seed of training, validation and alignment rollouts")
      ->check(any_number<uint64_t>())
      ->capture_default_str();
  cmd.add_option("--prompts", o->prompts,
                 "Prompt template folder in the official layout (default: the "
                 "built-in templates)")
      ->check(CLI::ExistingDirectory);
  cmd.add_option(
         "--reward-timeout", r.worker.limits.call_timeout_s,
         "Seconds a reward may take for one step of all environments (then it is refused as a timeout)")
      ->check(number_in(0.1, 3600.0))
      ->capture_default_str();
  add_sandbox_options(cmd, o->sandbox, "the generated rewards");
  cmd.add_option("-o,--out", o->out, "Output folder: graph.json, nodes/NNNN/, logs/batch.sqlite")->required();
  add_shard_option(cmd, o->shard);
  cmd.footer(
      "Resumable: run the same command again after an interruption "
      "(even kill -9); finished LLM calls and "
      "steps are never repeated. A rerun with other settings is "
      "refused. `pcglab pcgrl report DIR` makes "
      "an HTML page of the folder.");
  return [o, &global] { return run_refine(*o, global); };
}

}  // namespace

PCGLAB_REGISTER_COMMAND("pcgrl", "refine",
                        "PCGRLLM: LLM-written rewards refined by a thought "
                        "graph (train, levels, accuracy, feedback)",
                        setup_refine);

// A refine folder's store holds one sequential chain, never shards: `pcglab merge` says so (exit 2).
PCGLAB_REGISTER_NOTHING_TO_MERGE(
    pcgrl::kRefineRunName,
    "a refine run is one sequential chain (each node refines an earlier node's "
    "result), never split into shards; to finish an interrupted run, run the same "
    "`pcglab pcgrl refine` command again");

}  // namespace pcglab::cli
