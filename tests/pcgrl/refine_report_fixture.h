// A hand-made `pcgrl refine` folder for the report's tests: node 1 (the root, two alignment
// rounds, two levels, feedback), node 2 (refines 1, GoT context 1, a changed reward), node 3
// (refines 2, failed in evaluation); training logs of nodes 1 and 3.
#pragma once

#include <filesystem>
#include <string>

#include <fmt/format.h>

#include "core/files.h"
#include "core/image.h"
#include "core/json.h"
#include "pcgrl/level_picture.h"
#include "pcgrl/test_levels.h"

namespace pcglab::pcgrl::report_fixture {

inline void write_refine_folder(const std::filesystem::path& dir) {
  const std::string code1 =
      "def compute_reward(prev_array, unused3, curr_array, unused4) -> float:\n    reward = 0.0\n    return "
      "0.0\n";
  const std::string code2 =
      "def compute_reward(prev_array, unused3, curr_array, unused4) -> float:\n    reward = 0.0\n"
      "    return 0.5 * jnp.sum(curr_array == 4)\n";
  const std::string code3 =
      "def compute_reward(prev_array, unused3, curr_array, unused4) -> float:\n    return 1 / 0\n";
  const OrderedJson scores1{
      {"accuracy", 0.1}, {"solvability", 0.2}, {"n_solutions", 0.3}, {"reach_important", 0.0}};
  const OrderedJson scores2{
      {"accuracy", 0.25}, {"solvability", 0.5}, {"n_solutions", 1.5}, {"reach_important", 0.5}};
  OrderedJson nodes = OrderedJson::array();
  nodes.push_back({{"id", 1},
                   {"parent", 0},
                   {"fitness", 0.1},
                   {"artifact", code1},
                   {"feedback", "Too few <bats> near the key."},
                   {"children", {2}},
                   {"metadata", {{"scores", scores1}}},
                   {"status", "done"}});
  nodes.push_back({{"id", 2},
                   {"parent", 1},
                   {"fitness", 0.25},
                   {"artifact", code2},
                   {"feedback", ""},
                   {"children", {3}},
                   {"metadata", {{"scores", scores2}}},
                   {"status", "done"},
                   {"auxiliary", {1}}});
  nodes.push_back({{"id", 3},
                   {"parent", 2},
                   {"fitness", 0.0},
                   {"artifact", code3},
                   {"feedback", ""},
                   {"children", OrderedJson::array()},
                   {"error", "training: ZeroDivisionError: division by zero"},
                   {"metadata", OrderedJson::object()},
                   {"status", "failed"}});
  write_file_atomic(
      dir / "graph.json",
      OrderedJson{{"strategy", "got"}, {"iterations", 3}, {"scenario", 2}, {"best", 2}, {"nodes", nodes}}
          .dump(2));
  write_file_atomic(dir / "settings.json",
                    OrderedJson{{"scenario", 2}, {"pe", "got"}, {"prompts_hash", "abc"}}.dump());
  const std::filesystem::path n1 = dir / "nodes/0001";
  // Node 1's generated code before self-alignment changed its return line.
  write_file_atomic(n1 / "reward.py", code1.substr(0, code1.find("    return")) + "    return 1.0\n");
  write_file_atomic(
      n1 / "generation.json",
      OrderedJson{{"trials", 1}, {"fixes", 1}, {"errors", {"SyntaxError: invalid syntax"}}}.dump());
  for (int round = 1; round <= 2; ++round)
    write_file_atomic(n1 / "alignment" / fmt::format("round_{}_stats.json", round),
                      OrderedJson{{"round", round},
                                  {"n_envs", 4},
                                  {"steps", 768},
                                  {"mean", -0.0125 * round},
                                  {"std", 0.5},
                                  {"zero_percent", 93.5}}
                          .dump());
  const Map level = pcgrl::test_levels::level(
      {"################", "#@.....b.......#", "#..............#", "#......k.......#", "#..............#",
       "#..............#", "#..............#", "#..............#", "#..............#", "#..............#",
       "#..............#", "#..............#", "#..............#", "#..............#", "#.............D#",
       "################"});
  // Node 1's training log (ppo_trainer.h's columns): returns over four updates, none finished in
  // the first; node 3 stopped after one update.
  const std::string header =
      "update,env_steps,episodes,mean_return,recent_return,policy_loss,value_loss,entropy,approx_kl,"
      "steps_per_s\n";
  write_file_atomic(n1 / "train/train_log.csv", header +
                                                    "1,768,0,,,0.1,0.2,1.7,0.01,1000.0\n"
                                                    "2,1536,4,-2.5,-2.5,0.1,0.2,1.7,0.01,1000.0\n"
                                                    "3,2304,4,1.5,-0.5,0.1,0.2,1.7,0.01,1000.0\n"
                                                    "4,3072,4,4.5,1.25,0.1,0.2,1.7,0.01,1000.0\n");
  write_file_atomic(dir / "nodes/0003/train/train_log.csv",
                    header + "1,768,2,0.5,0.5,0.1,0.2,1.7,0.01,1000.0\n");
  write_png(n1 / "levels/level_000.png", level_picture(level));
  write_png(n1 / "levels/level_001.png", level_picture(level, 4));
}

}  // namespace pcglab::pcgrl::report_fixture
