// PCGRLLM's dungeon3 environment (bic4907/pcgrl-llm, envs/probs/dungeon3.py with the narrow
// representation), in C++: 16×16 maps, the recorded initial distribution, player and door in
// opposite inset corners with static 3×3 areas, a row-major scan of 3 passes (768 steps), 6 build
// actions and the 31×31×10 egocentric observation. See docs/pcgrl.md for the recorded quirks and
// the switches that fix them.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/rng.h"
#include "pcgrl/reward.h"
#include "pcgrl/tiles.h"

namespace pcglab {
class ThreadPool;
}

namespace pcglab::pcgrl {

inline constexpr int kMaxBoardScans = 100;  // the longest episode pcglab takes: 100 scans, 25600 steps

struct EnvConfig {
  int max_board_scans = 3;  // 1 .. kMaxBoardScans
  // The reward each step returns: 0 (dungeon3's own reward is always 0; LLM rewards come later) or
  // pcgrl-jax's built-in dungeon reward, computed when the map changed.
  bool builtin_reward = true;
  // The recorded quirks, reproduced by default (false); true fixes each.
  bool fix_observation_offset = false;    // the observation after step k shows the cell just edited
  bool skip_static_cells = false;         // the scan visits the 18 static cells, whose edits are discarded
  bool show_static_in_first_obs = false;  // the first observation after reset has no static cells
};

// One environment. Deterministic given its seed.
class DungeonEnv {
 public:
  explicit DungeonEnv(const EnvConfig& config = {});

  void reset(uint64_t seed);
  // Applies action (0..5) at the current scan cell; returns true when the episode ended (the
  // environment has then already reset itself, as PCGRL's auto-reset does).
  bool step(int action);
  float last_reward() const { return last_reward_; }

  // The compact observation: 31×31 bytes, each the tile id (0..8) plus 16 when the static-mask
  // channel is 1. expand_observation() turns it into the 31×31×10 float tensor.
  void observe(uint8_t* out) const;

  const Map& map() const { return map_; }
  const Map& static_mask() const { return static_; }
  int step_index() const { return step_idx_; }
  int max_steps() const { return kCells * config_.max_board_scans; }
  int position() const { return pos_; }  // cell of the observation's centre
  int next_edit_cell() const;            // cell the next step edits
  uint64_t episodes() const { return episodes_; }
  const Map& last_episode_map() const { return last_map_; }  // the map just before the last auto-reset

 private:
  void build_scan_order();
  void rebuild_padded();

  static constexpr int kPadded = kMapSize + 2 * kObsPad;  // 46: the map with 15 cells of BORDER around

  EnvConfig config_;
  Map map_{};
  Map static_{};
  std::vector<uint16_t> scan_;  // cells in scan order
  int step_idx_ = 0;
  int pos_ = 0;
  bool first_obs_ = true;
  uint64_t episodes_ = 0;
  float last_reward_ = 0;
  DungeonStats stats_{};
  Rng rng_{0};
  Map last_map_{};
  // The observation source: tile | 16·static for every padded cell, kept in step with map_, so an
  // observation is 31 row copies.
  std::array<uint8_t, kPadded * kPadded> padded_{};
};

// Draws dungeon3's initial map: tiles i.i.d. with weights EMPTY .58, WALL .5, KEY .02, each enemy
// .01 (normalised by their sum 1.13), then player and door in opposite inset corners with their 3×3
// areas emptied and marked static.
void generate_initial_map(Rng& rng, Map& map, Map& static_mask);

// The 31×31×10 float one-hot observation (channel-last, as the official code) from the compact form.
void expand_observation(const uint8_t* compact, float* out);

// This machine's physical memory in bytes (0 when unknown).
uint64_t physical_memory_bytes();
// Throws SetupError("<what> needs N GiB, more than this machine's M GiB") when `bytes` exceed
// the physical memory.
void check_fits_in_memory(uint64_t bytes, const std::string& what);

// N environments stepped together; seeds are seed + env_id; the observations of all environments
// live in one contiguous buffer (compact form, 961 bytes each).
class BatchedDungeon {
 public:
  // Throws SetupError when n_envs < 1 or the environments would not fit in this machine's memory.
  BatchedDungeon(int n_envs, uint64_t seed, const EnvConfig& config = {});
  // Bytes that n environments hold (their state and observations).
  static uint64_t memory_bytes(int64_t n_envs);
  int size() const { return static_cast<int>(envs_.size()); }
  // Steps environments [first, last) with actions[i], writes their done flags and observations.
  // Environments are independent, so any split over threads gives the same result.
  void step(const int* actions, uint8_t* dones, float* rewards = nullptr, int first = 0, int last = -1);
  // Steps all environments on `pool`'s threads, in chunks of 64 (the same result as step()).
  void step(ThreadPool& pool, const int* actions, uint8_t* dones, float* rewards = nullptr);
  void observe_all(int first = 0, int last = -1);
  const uint8_t* observations() const { return obs_.data(); }
  DungeonEnv& env(int i) { return envs_[i]; }

 private:
  std::vector<DungeonEnv> envs_;
  std::vector<uint8_t> obs_;
};

inline constexpr int kCompactObsBytes = kObsSize * kObsSize;

}  // namespace pcglab::pcgrl
