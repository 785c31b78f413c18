// PCGRLLM end to end (issue 16): the refinement engine (refine/engine.h) driven by the dungeon
// track's steps, writing every node's files under one output folder. The steps are items of the
// batch driver (batch/driver.h, an ordered chain rooted at the output folder).
//
//   generate  generate_reward (reward_llm.h): the LLM writes a reward; each candidate is validated
//             in the sandbox (SandboxReward + validate_reward: a 100-step random rollout over the
//             training environments), rejected ones go back to the LLM with their error.
//   align/r   self-alignment round r (the engine's revisions, named by this track): a 768-step random rollout
//   with constant actions (the
//             official loop never advances its RNG key), its reward statistics, align_reward.
//   evaluate  PPO on the reward (TrainConfig.reward = the SandboxReward), 30 levels sampled from the
//             checkpoint (eval seed 0, as the official rollout.py), evaluate_level on each: fitness
//             = mean accuracy; metadata["scores"] = accuracy, solvability, n_solutions,
//             reach_important (level_scores below).
//   feedback  level_feedback on the 30 levels (as numpy text, or PNG pictures for a vision model).
//
// The folder (the driver's store keeps the engine's steps and every LLM exchange, so a killed run
// resumes without repeating a finished LLM call or training):
//   DIR/logs/batch.sqlite      the driver's store: the steps (stage "pcgrl refine", table
//                              outcomes), their node files and the exchange log (LLM calls);
//                              DIR/logs/batch.lock keeps a second process out
//   DIR/llm-cache.sqlite       the response cache (pcglab pcgrl refine, unless --no-cache)
//   DIR/settings.json          the settings (a rerun with other settings is refused)
//   DIR/graph.json             the thought graph, rewritten after every step; each node's LLM
//                              requests (over all runs of its steps) and their sum, "requests"
//   DIR/nodes/NNNN/            context.json (parent, GoT's auxiliary nodes), reward.py (generated),
//                              alignment/round_R.py and round_R_stats.json, reward_final.py, train/
//                              (train_log.csv, checkpoint.safetensors), levels.txt, levels/*.png,
//                              evaluation.json, feedback.txt
// Each step's files (but the checkpoint) are kept in the run store too (run kRefineFilesRun), so a
// rerun rewrites a node file that was deleted or changed from them (the pictures are drawn again
// from levels.txt) as it reads the finished step back; the checkpoint is not restored.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"
#include "llm/completer.h"
#include "pcgrl/accuracy.h"
#include "pcgrl/ppo_trainer.h"
#include "pcgrl/reward_llm.h"
#include "refine/engine.h"
#include "sandbox/config.h"

namespace pcglab::pcgrl {

// The facts of a set of levels the loop scores, each a mean over the levels:
//   accuracy        PCGRLLM's fitness (accuracy.h)
//   solvability     share of levels with a player->key->door solution
//   n_solutions     solutions per level (keys that give one, at most 30)
//   reach_important share of the scenario's important enemy types met along a solution (a level
//                   without a solution counts 0): the official "Reachable Important Tiles", read
//                   as reach_imp_perc = |important ∩ encountered| / |important|.
struct LevelScores {
  double accuracy = 0, solvability = 0, n_solutions = 0, reach_important = 0;
  OrderedJson to_json() const;
};
LevelScores level_scores(const std::vector<LevelEvaluation>& evaluations,
                         const std::array<bool, 3>& scenario);

struct PcgrllmOptions {
  int scenario = 2;  // 1, 2, 3 (scenario_preset)
  refine::ThoughtStrategy strategy = refine::ThoughtStrategy::kCot;
  int iterations = 6;
  int self_alignment = 5;  // rounds per node (0: none)
  bool feedback = true;
  bool feedback_images = false;  // --feedback-input image
  int breadth = 2;               // ToT/GoT
  int n_best = 2;                // GoT's auxiliary nodes
  LlmSettings llm;
  TrainConfig train;  // n_envs, total_steps, rollout, seed; reward set per node
  int levels = 30;    // levels per node (official n_samples)
  uint64_t eval_seed = 0;
  std::optional<std::filesystem::path> prompts;  // nullopt: the built-in templates
  sandbox::WorkerConfig worker = default_reward_worker_config();
  std::filesystem::path out;
};

// Throws SetupError naming the option when the options cannot run (before anything starts).
void validate_pcgrllm_options(const PcgrllmOptions& options);

// The settings recorded with the run (a rerun with other ones is refused): everything that changes
// a result, none of the LLM transport options (URL, timeouts) or the isolation.
OrderedJson pcgrllm_settings(const PcgrllmOptions& options);

inline constexpr const char* kRefineRunName = "pcgrl refine";
inline constexpr const char* kRefineScope = "pcgrl-refine";                 // the exchange log's scope
inline constexpr const char* kRefineFilesRun = "pcgrl refine files";        // the steps' node files
std::filesystem::path refine_store_path(const std::filesystem::path& out);  // DIR/logs/batch.sqlite
std::filesystem::path node_dir(const std::filesystem::path& out, int id);   // DIR/nodes/NNNN

struct PcgrllmProgress {
  std::function<void(const std::string& line)> log;             // progress lines
  std::function<void(const refine::StepEvent&)> step;           // after each step
  std::function<void(const TrainLogRow& row, int node)> train;  // each PPO update
  bool bar = true;  // the driver's progress line over the steps (drawn only on a terminal)
};

// Runs (or resumes) the loop in options.out with `completer` (a stack whose record layer writes
// to refine_store_path(out) with scope kRefineScope, so that a resumed run replays finished calls).
// Throws SetupError for bad options, a sandbox that cannot run, or a rerun with other settings.
refine::RefineResult run_pcgrllm(const PcgrllmOptions& options, llm::Completer& completer,
                                 const PcgrllmProgress& progress = {});

}  // namespace pcglab::pcgrl
