// PCGRLLM's fitness: path-based accuracy of generated levels against a scenario's enemy set
// (pcgrllm/evaluation/solution.py, envs/solution.py, envs/pathfinding.py).
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "pcgrl/dungeon.h"

namespace pcglab::pcgrl {

// A path of cells from source to target, both included, or empty when unreachable.
using Path = std::vector<int>;

// BFS over 4-neighbours on `passable` tiles (a 9-entry mask by tile id). The path is rebuilt from
// the target by stepping to the neighbour one step closer to the source, ties in the official
// order: up, left, right, down.
Path shortest_path(const Map& map, int source, int target, const std::array<bool, kTileTypes>& passable);

// The scenario's important enemies as [BAT, SCORPION, SPIDER]: "bat" -> {1,0,0},
// "bat,scorpion" -> {1,1,0}. Throws SetupError for unknown names.
std::array<bool, 3> parse_scenario(std::string_view enemies);

struct LevelEvaluation {
  int solutions = 0;                 // keys with a valid player->key->door solution (at most 30)
  std::array<int, 3> encountered{};  // distinct enemies of each type met along solutions
  bool playable = false;             // player can reach the door (the official "playability")
  int path_length = 0;               // player->door BFS steps, 0 when unreachable ("path_length")
  bool solvable = false;             // some key gives a solution ("solvability")
  double accuracy = 0;               // (#types where scenario == encountered) / 3, 0 without solutions
};

// As the official evaluation (eval_level_jax / get_solution_jit), caps included: only the first 30
// keys in row-major order are tried and block a path, and only the last 144 cells of each path leg
// (the official path buffer) are checked for other keys and enemies. A level without a player or a
// door has no solution (the official code would index cell (15,15) instead; docs/pcgrl.md).
LevelEvaluation evaluate_level(const Map& map, const std::array<bool, 3>& scenario);

// Mean accuracy over levels (PCGRLLM's EvaluationResult.total).
double mean_accuracy(const std::vector<Map>& levels, const std::array<bool, 3>& scenario);

// Level files: 16 rows of 16 tiles, as digits 0-8 (optionally separated by spaces or commas, numpy's
// printed arrays included) or as characters (# wall, . empty, @ player, b bat, s scorpion,
// p spider, k key, D door). Several levels in one file are separated by blank lines or
// "Level Id k:" headers. Throws InputError naming the file and line.
std::vector<Map> parse_levels(std::string_view text, const std::string& source);
std::string format_level(const Map& map);  // the digit form

}  // namespace pcglab::pcgrl
