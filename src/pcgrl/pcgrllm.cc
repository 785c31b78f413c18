#include "pcgrl/pcgrllm.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>

#include "batch/driver.h"
#include "core/check.h"
#include "core/files.h"
#include "core/image.h"
#include "core/thread_pool.h"
#include "nn/torch_runtime.h"
#include "pcgrl/eval_files.h"
#include "pcgrl/level_picture.h"
#include "store/run_store.h"

namespace pcglab::pcgrl {
namespace fs = std::filesystem;

namespace {

// A reward's failure as its step's outcome: the same kind, the text the LLM would be shown
// (capped as every text fed back: a reward's message may be megabytes).
ItemFailure step_error(const RewardError& e, const std::string& during) {
  return ItemFailure(e.kind(), fmt::format("{}: {}", during, cap_fed_back_text(e.describe())));
}

// The files each finished step wrote under its node's folder, kept in the run store (run
// kRefineFilesRun in the driver's store, one item per step keyed as the engine's, output {relative path:
// content}) before the engine records the step, so that a rerun rewrites a file that was deleted or changed
// (a corrupt evaluation.json, a deleted reward.py) from them. The level pictures are drawn again
// from levels.txt; the PPO checkpoint (train/checkpoint.safetensors) is not kept.
class NodeFiles {
 public:
  NodeFiles(store::RunStore& store, fs::path out)
      : store_(store), run_(store.open_run(kRefineFilesRun, "{}")), out_(std::move(out)) {}

  // Writes node_dir/rel atomically and adds it to the step's record.
  void write(int node, const fs::path& rel, const std::string& content) {
    write_file_atomic(node_dir(out_, node) / rel, content);
    pending_[rel.generic_string()] = content;
  }
  // Adds a file written by someone else (train_ppo's log) as it is now.
  void add(const fs::path& rel, int node) {
    pending_[rel.generic_string()] = read_file(node_dir(out_, node) / rel);
  }
  // Stores the step's record (its files so far) and starts the next one.
  void commit(int node, const std::string& step) {
    OrderedJson files = OrderedJson::object();
    for (auto& [rel, content] : pending_) files[rel] = std::move(content);
    pending_.clear();
    store_.finish(run_, key(node, step), ItemStatus::kOk, files.dump(), "{}", "");
  }
  void discard() { pending_.clear(); }

  // Rewrites every recorded file of the step that is missing or differs; returns their paths
  // (with the level pictures of a restored levels.txt).
  std::vector<std::string> restore(int node, const std::string& step) const {
    std::vector<std::string> restored;
    const auto item = store_.item(run_, key(node, step));
    if (!item || item->status != ItemStatus::kOk) return restored;  // a run of an earlier pcglab
    const Json files = Json::parse(item->output, nullptr, false);
    if (!files.is_object()) return restored;
    const fs::path dir = node_dir(out_, node);
    for (const auto& [rel, value] : files.items()) {
      if (!value.is_string()) continue;
      const std::string& content = value.get_ref<const std::string&>();
      if (!same_content(dir / rel, content)) {
        write_file_atomic(dir / rel, content);
        restored.push_back(rel);
      }
      if (rel == "levels.txt")
        for (const std::string& png : restore_pictures(dir, content)) restored.push_back(png);
    }
    return restored;
  }

 private:
  static std::string key(int node, const std::string& step) {
    return fmt::format("node/{:04}/{}", node, step);
  }

  static bool same_content(const fs::path& path, const std::string& content) {
    std::error_code ec;
    if (!fs::is_regular_file(path, ec) || fs::file_size(path, ec) != content.size()) return false;
    try {
      return read_file(path) == content;
    } catch (const InputError&) {
      return false;
    }
  }

  static std::vector<std::string> restore_pictures(const fs::path& dir, const std::string& levels_text) {
    std::vector<std::string> restored;
    const std::vector<Map> levels = parse_levels(levels_text, (dir / "levels.txt").string());
    for (size_t i = 0; i < levels.size(); ++i) {
      const std::string rel = fmt::format("levels/level_{:03}.png", i);
      const std::string png = encode_png(level_picture(levels[i]));
      if (same_content(dir / rel, png)) continue;
      write_file_atomic(dir / rel, png);
      restored.push_back(rel);
    }
    return restored;
  }

  store::RunStore& store_;
  int64_t run_;
  fs::path out_;
  std::map<std::string, std::string> pending_;
};

// The loop's state and its four steps.
class Loop {
 public:
  Loop(const PcgrllmOptions& o, llm::Completer& completer, const PcgrllmProgress& progress,
       store::RunStore& store)
      : o_(o),
        completer_(completer),
        progress_(progress),
        prompts_(o.prompts ? PromptSet::load(*o.prompts) : PromptSet::builtin()),
        scenario_(scenario_preset(o.scenario)),
        files_(store, o.out) {
    generation_.breadth = o.breadth;
    env_ = o.train.env;
  }

  refine::RefineSteps steps() {
    refine::RefineSteps s;
    s.generate = [this](const refine::GenerateRequest& r) { return generate(r); };
    // PCGRLLM's self-alignment: its rounds revise the reward before training ("align/1", ...).
    for (int round = 1; round <= o_.self_alignment; ++round)
      s.revisions.push_back({fmt::format("align/{}", round), [this, round](const std::string& code, int it) {
                               return align(code, it, round);
                             }});
    s.evaluate = [this](const std::string& code, int it) { return evaluate(code, it); };
    if (o_.feedback)
      s.feedback = [this](const std::string& code, const refine::Evaluation& e, int it) {
        return feedback(code, e, it);
      };
    s.requests = [this] { return requests_.exchange(0); };
    return s;
  }

  // A step read back from the run store: its files rewritten where missing or changed.
  void restore(int it, const std::string& step) const {
    const std::vector<std::string> restored = files_.restore(it, step);
    if (!restored.empty())
      log(fmt::format("node {}: {} restored from the run store (missing or changed): {}", it, step,
                      fmt::join(restored, ", ")));
  }

  // graph.json: the finished nodes, then the node being made (with the step it is at).
  void write_graph(const refine::ThoughtGraph& finished, const refine::ThoughtNode* current, int current_id,
                   const std::string& status) const {
    OrderedJson nodes = finished.to_json();
    for (auto& n : nodes) {
      n["status"] = n.contains("error") ? "failed" : "done";
      add_context(n);
    }
    if (current != nullptr) {
      OrderedJson n{{"id", current_id},
                    {"parent", current->parent},
                    {"fitness", current->fitness},
                    {"artifact", current->artifact},
                    {"feedback", current->feedback},
                    {"children", OrderedJson::array()},
                    {"requests", current->requests}};
      if (!current->error.empty()) {
        n["error"] = current->error;
        n["error_kind"] = error_kind_name(current->error_kind);
      }
      n["metadata"] = current->metadata;
      n["status"] = status;
      add_context(n);
      nodes.push_back(std::move(n));
    }
    const std::optional<int> best = finished.best();
    int64_t requests = 0;  // the nodes' (over all runs)
    for (const auto& n : nodes) requests += n["requests"].get<int64_t>();
    OrderedJson graph{{"strategy", refine::strategy_name(o_.strategy)},
                      {"iterations", o_.iterations},
                      {"scenario", o_.scenario},
                      {"best", best ? OrderedJson(*best) : OrderedJson()},
                      {"requests", requests},
                      {"nodes", std::move(nodes)}};
    write_file_atomic(o_.out / "graph.json", graph.dump(2) + "\n");
  }

 private:
  void log(const std::string& line) const {
    if (progress_.log) progress_.log(line);
  }

  StepCalls calls(int it, const std::string& step) const {
    StepCalls c;
    c.item = fmt::format("node/{:04}/{}", it, step);
    c.log = [this, it](const std::string& line) { log(fmt::format("node {}: {}", it, line)); };
    c.on_attempt = [this](bool sent) {
      if (sent) requests_.fetch_add(1);
    };
    return c;
  }

  void add_context(OrderedJson& n) const {
    const fs::path file = node_dir(o_.out, n["id"].get<int>()) / "context.json";
    if (!fs::exists(file)) return;
    const Json context = read_json_file(file);
    if (context.contains("auxiliary")) n["auxiliary"] = OrderedJson::parse(context["auxiliary"].dump());
  }

  // The node's reward programs, one worker for the node (RewardSandbox: each program loaded once,
  // a fresh one for the next node).
  RewardSandbox& node_rewards(int it) const {
    if (rewards_ == nullptr || rewards_node_ != it) {
      rewards_.reset();
      rewards_ = std::make_unique<RewardSandbox>(o_.worker);
      rewards_node_ = it;
    }
    return *rewards_;
  }

  SandboxReward& load_reward(const std::string& code, int it) const {
    try {
      return node_rewards(it).program(code);
    } catch (const RewardError& e) {
      throw step_error(e, "the reward does not load");
    }
  }

  // The official validation of a new code: a 100-step random rollout over the training
  // environments. RewardError goes back to the LLM; SetupError (no sandbox) stops the run.
  void validate(const std::string& code, int it) const {
    SandboxReward& reward = node_rewards(it).program(code);
    validate_reward(reward.as_batch_reward(), env_, o_.train.n_envs, o_.train.seed);
  }

  std::function<void(const std::string&)> validator(int it) const {
    return [this, it](const std::string& code) { validate(code, it); };
  }

  std::string generate(const refine::GenerateRequest& r) {
    OrderedJson context{{"parent", r.parent != nullptr ? r.parent->id : 0},
                        {"auxiliary", OrderedJson::array()}};
    for (const refine::ThoughtNode* a : r.auxiliary)
      context["auxiliary"].push_back({{"id", a->id}, {"fitness", a->fitness}});
    files_.discard();
    files_.write(r.iteration, "context.json", context.dump(2) + "\n");
    log(r.parent != nullptr ? fmt::format("node {}/{}: generating a reward (refining node {})", r.iteration,
                                          r.iterations, r.parent->id)
                            : fmt::format("node {}/{}: generating a reward", r.iteration, r.iterations));
    const GenerationResult g = generate_reward(completer_, o_.llm, prompts_, scenario_, r, generation_,
                                               validator(r.iteration), calls(r.iteration, "generate"));
    files_.write(r.iteration, "reward.py", g.code + "\n");
    files_.write(r.iteration, "generation.json",
                 OrderedJson{{"trials", g.trials}, {"fixes", g.fixes}, {"errors", g.errors}}.dump(2) + "\n");
    files_.commit(r.iteration, "generate");
    log(fmt::format("node {}: valid reward after {} trial(s), {} fix(es)", r.iteration, g.trials, g.fixes));
    return g.code;
  }

  std::string align(const std::string& code, int it, int round) {
    const std::string step = fmt::format("align/{}", round);
    files_.discard();
    RolloutRewards stats;
    {
      SandboxReward& reward = load_reward(code, it);
      try {
        stats =
            random_rollout(reward.as_batch_reward(), env_, o_.train.n_envs, kAlignmentSteps, o_.train.seed,
                           /*constant_actions=*/true);
      } catch (const RewardError& e) {
        throw step_error(e, fmt::format("alignment round {}: the rollout", round));
      }
    }
    const std::string line = stats.stats_line();
    files_.write(it, fmt::format("alignment/round_{}_stats.json", round),
                 OrderedJson{{"round", round},
                             {"n_envs", stats.n_envs},
                             {"steps", stats.steps},
                             {"mean", stats.mean},
                             {"std", stats.std},
                             {"zero_percent", stats.zero_percent},
                             {"stats_line", line}}
                         .dump(2) +
                     "\n");
    log(fmt::format("node {}: alignment {}/{}: {}", it, round, o_.self_alignment, line));
    const GenerationResult g = align_reward(completer_, o_.llm, prompts_, scenario_, code, line, generation_,
                                            validator(it), calls(it, step));
    files_.write(it, fmt::format("alignment/round_{}.py", round), g.code + "\n");
    files_.commit(it, step);
    return g.code;
  }

  refine::Evaluation evaluate(const std::string& code, int it) {
    const fs::path dir = node_dir(o_.out, it);
    files_.discard();
    files_.write(it, "reward_final.py", code + "\n");
    SandboxReward& reward = load_reward(code, it);
    TrainConfig config = o_.train;
    config.reward = reward.as_batch_reward();
    log(fmt::format("node {}: training {} environment steps", it, config.total_steps));
    const TrainResult trained = train_ppo(config, dir / "train", [&](const TrainLogRow& row) {
      if (progress_.train) progress_.train(row, it);
    });
    if (!trained
             .ok())  // the reward failed (its kind: timeout, exception, NaN...) or the losses were not finite
      throw ItemFailure(trained.error_kind != ErrorKind::kNone ? trained.error_kind : ErrorKind::kBadInput,
                        cap_fed_back_text("training: " + trained.error));

    nn::set_torch_threads(config.torch_threads);  // so the sampled levels do not depend on the machine
    const PpoAgent agent = PpoAgent::load(trained.checkpoint, config.ppo.device);
    const GeneratedLevels gen =
        generate_levels(agent, checkpoint_env_config(trained.checkpoint), o_.levels, o_.eval_seed, false);
    std::string all;
    OrderedJson per_level = OrderedJson::array();
    std::vector<LevelEvaluation> evaluations;
    for (size_t i = 0; i < gen.levels.size(); ++i) {
      const Map& map = gen.levels[i];
      all += fmt::format("Level Id {}:\n{}\n", i, format_level(map));
      write_png(dir / "levels" / fmt::format("level_{:03}.png", i), level_picture(map));
      const LevelEvaluation e = evaluate_level(map, scenario_.important);
      evaluations.push_back(e);
      OrderedJson row = {{"level", i}};
      row.update(level_evaluation_json(e));
      per_level.push_back(std::move(row));
    }
    files_.write(it, "levels.txt", all);
    files_.add("train/train_log.csv", it);
    const LevelScores scores = level_scores(evaluations, scenario_.important);
    const TrainLogRow& last = trained.log.back();
    const auto finite = [](double v) { return std::isfinite(v) ? OrderedJson(v) : OrderedJson(); };
    OrderedJson train{{"env_steps", last.env_steps},
                      {"updates", last.update},
                      {"recent_return", finite(last.recent_return)},
                      {"steps_per_s", last.steps_per_s}};
    files_.write(it, "evaluation.json",
                 OrderedJson{{"fitness", scores.accuracy},
                             {"scores", scores.to_json()},
                             {"train", train},
                             {"eval_seed", o_.eval_seed},
                             {"levels", per_level}}
                         .dump(2) +
                     "\n");
    files_.commit(it, "evaluate");
    log(
        fmt::format("node {}: accuracy {:.3f} (solvability {:.3f}, solutions "
                    "{:.2f}, important reached {:.3f})",
                    it, scores.accuracy, scores.solvability, scores.n_solutions, scores.reach_important));
    refine::Evaluation ev;
    ev.fitness = scores.accuracy;
    ev.metadata = {{"scores", scores.to_json()}, {"train", train}};
    return ev;
  }

  std::string feedback(const std::string& code, const refine::Evaluation&, int it) {
    const fs::path dir = node_dir(o_.out, it);
    const std::vector<Map> levels =
        parse_levels(read_file(dir / "levels.txt"), (dir / "levels.txt").string());
    std::vector<std::string> images;
    if (o_.feedback_images)
      for (const Map& map : levels) images.push_back(encode_png(level_picture(map)));
    log(fmt::format("node {}: feedback on {} levels ({})", it, levels.size(),
                    o_.feedback_images ? "images" : "text"));
    std::string text =
        level_feedback(completer_, o_.llm, prompts_, scenario_, code, levels, images, calls(it, "feedback"));
    files_.discard();
    files_.write(it, "feedback.txt", text + "\n");
    files_.commit(it, "feedback");
    return text;
  }

  const PcgrllmOptions& o_;
  llm::Completer& completer_;
  const PcgrllmProgress& progress_;
  PromptSet prompts_;
  const Scenario& scenario_;
  GenerationSettings generation_;
  EnvConfig env_;
  NodeFiles files_;
  mutable std::atomic<int> requests_{0};  // requests the step running sent so far (RefineSteps::requests)
  mutable std::unique_ptr<RewardSandbox> rewards_;  // the node rewards_node_'s reward programs
  mutable int rewards_node_ = 0;
};

}  // namespace

OrderedJson LevelScores::to_json() const {
  return {{"accuracy", accuracy},
          {"solvability", solvability},
          {"n_solutions", n_solutions},
          {"reach_important", reach_important}};
}

LevelScores level_scores(const std::vector<LevelEvaluation>& evaluations,
                         const std::array<bool, 3>& scenario) {
  LevelScores s;
  if (evaluations.empty()) return s;
  const int important = static_cast<int>(std::count(scenario.begin(), scenario.end(), true));
  for (const LevelEvaluation& e : evaluations) {
    s.accuracy += e.accuracy;
    s.solvability += e.solvable ? 1 : 0;
    s.n_solutions += e.solutions;
    if (e.solutions > 0 && important > 0) {
      int reached = 0;
      for (int t = 0; t < 3; ++t) reached += scenario[t] && e.encountered[t] > 0;
      s.reach_important += static_cast<double>(reached) / important;
    }
  }
  const double n = static_cast<double>(evaluations.size());
  s.accuracy /= n;
  s.solvability /= n;
  s.n_solutions /= n;
  s.reach_important /= n;
  return s;
}

fs::path refine_store_path(const fs::path& out) {
  return batch::Driver::store_path(out, batch::Shard{});
}
fs::path node_dir(const fs::path& out, int id) {
  return out / "nodes" / fmt::format("{:04}", id);
}

void validate_pcgrllm_options(const PcgrllmOptions& o) {
  scenario_preset(o.scenario);  // SetupError for another id
  if (o.iterations < 1) throw SetupError(fmt::format("--iterations {}: at least 1", o.iterations));
  if (o.strategy == refine::ThoughtStrategy::kIo && o.iterations > 1)
    throw SetupError(
        fmt::format("--pe io makes one reward without refinement (the official "
                    "loop forces total_iterations < 2): "
                    "give --iterations 1, or --pe cot, tot or got to refine "
                    "over {} iterations",
                    o.iterations));
  if (o.self_alignment < 0) throw SetupError("--self-alignment: at least 0");
  if (o.breadth < 1) throw SetupError("--breadth: at least 1");
  if (o.levels < 1) throw SetupError("--levels: at least 1");
  if (o.llm.model.empty()) throw SetupError("--model: give the model name the server knows");
  if (o.out.empty()) throw SetupError("--out: give the output folder");
  const int64_t per_update = static_cast<int64_t>(o.train.n_envs) * o.train.rollout;
  if (o.train.total_steps < per_update)
    throw SetupError(fmt::format("--train-steps {}: at least one PPO update, --envs × --rollout = {}",
                                 o.train.total_steps, per_update));
  validate_train_config(o.train);
  // A device this build or machine cannot use is refused before any LLM call, not at the first
  // training (PpoAgent::create throws SetupError naming the cause).
  if (o.train.ppo.device != "cpu") (void)PpoAgent::create(o.train.ppo);
}

OrderedJson pcgrllm_settings(const PcgrllmOptions& o) {
  const PromptSet prompts = o.prompts ? PromptSet::load(*o.prompts) : PromptSet::builtin();
  batch::ContentHash hash;
  for (const std::string& name : prompt_file_names()) hash.add(name).add(prompts.file(name));
  const int64_t per_update = static_cast<int64_t>(o.train.n_envs) * o.train.rollout;
  return {{"scenario", o.scenario},
          {"pe", refine::strategy_name(o.strategy)},
          {"iterations", o.iterations},
          {"self_alignment", o.self_alignment},
          {"feedback", o.feedback},
          {"feedback_input", o.feedback_images ? "image" : "text"},
          {"breadth", o.breadth},
          {"n_best", o.n_best},
          {"model", o.llm.model},
          {"temperature", o.llm.temperature},
          {"top_p", o.llm.top_p},
          {"max_tokens", o.llm.max_tokens},
          {"prompts", prompts.origin()},
          {"prompts_hash", hash.hex()},
          {"train_steps", o.train.total_steps / per_update * per_update},
          {"envs", o.train.n_envs},
          {"rollout", o.train.rollout},
          {"seed", o.train.seed},
          {"lr", o.train.ppo.lr},
          {"epochs", o.train.ppo.epochs},
          {"minibatches", o.train.ppo.minibatches},
          {"train_threads", o.train.torch_threads},
          {"device", o.train.ppo.device},
          {"first_layers", o.train.ppo.one_hot_gathers ? "gather" : "dense"},
          {"board_scans", o.train.env.max_board_scans},
          {"levels", o.levels},
          {"eval_seed", o.eval_seed}};
}

refine::RefineResult run_pcgrllm(const PcgrllmOptions& options, llm::Completer& completer,
                                 const PcgrllmProgress& progress) {
  validate_pcgrllm_options(options);
  fs::create_directories(options.out / "logs");
  // The item kernel: the driver takes the folder's lock and holds the one store (steps, node files,
  // and the exchange log the completer stack's record layer writes to the same file).
  ThreadPool pool(1);  // the steps run in order on this thread; the driver needs a pool
  batch::DriverOptions driver_options;
  driver_options.progress = progress.bar;
  batch::Driver driver(options.out, pool, driver_options);
  store::RunStore& store = *driver.store();
  const OrderedJson settings = pcgrllm_settings(options);
  refine::RefineConfig config;
  config.strategy = options.strategy;
  config.iterations = options.iterations;
  config.breadth = options.breadth;
  config.n_best = options.n_best;
  config.feedback = options.feedback;
  refine::RefinementEngine engine(driver, kRefineRunName, config,
                                  settings);  // refuses other settings
  write_file_atomic(options.out / "settings.json", settings.dump(2) + "\n");

  Loop loop(options, completer, progress, store);
  refine::RefineResult result = engine.run(loop.steps(), [&](const refine::StepEvent& e) {
    if (e.resumed) loop.restore(e.iteration, e.step);
    loop.write_graph(*e.graph, e.node, e.iteration, (e.ok ? "after " : "failed at ") + e.step);
    if (progress.step) progress.step(e);
  });
  loop.write_graph(result.graph, nullptr, 0, "");
  return result;
}

}  // namespace pcglab::pcgrl
