#include "pcgrl/dungeon.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>
#include <unistd.h>

#include "core/check.h"
#include "core/rng.h"
#include "core/thread_pool.h"

namespace pcglab::pcgrl {
namespace {

// tile_probs by tile id; PLAYER and DOOR 0. jax.random.choice normalises by the cumulative sum.
constexpr double kTileWeights[kTileTypes] = {0, 0.58, 0.5, 0, 0.01, 0.01, 0.01, 0.02, 0};

uint8_t draw_tile(Rng& rng) {
  double total = 0;
  for (double w : kTileWeights) total += w;
  const double u = rng.uniform() * total;
  double acc = 0;
  for (int t = 0; t < kTileTypes; ++t) {
    acc += kTileWeights[t];
    if (u < acc && kTileWeights[t] > 0) return static_cast<uint8_t>(t);
  }
  return kEmpty;
}

void place_corner(Map& map, Map& static_mask, int row, int col, Tile tile) {
  for (int dr = -1; dr <= 1; ++dr) {
    for (int dc = -1; dc <= 1; ++dc) {
      const int cell = (row + dr) * kMapSize + (col + dc);
      map[cell] = kEmpty;
      static_mask[cell] = 1;
    }
  }
  map[row * kMapSize + col] = tile;
}

}  // namespace

void generate_initial_map(Rng& rng, Map& map, Map& static_mask) {
  for (auto& c : map) c = draw_tile(rng);
  static_mask.fill(0);
  static constexpr int kCorners[4][2] = {
      {1, 1}, {1, kMapSize - 2}, {kMapSize - 2, kMapSize - 2}, {kMapSize - 2, 1}};
  const int player = static_cast<int>(rng.below(4));
  const int door = (player + 2) % 4;
  place_corner(map, static_mask, kCorners[player][0], kCorners[player][1], kPlayer);
  place_corner(map, static_mask, kCorners[door][0], kCorners[door][1], kDoor);
}

DungeonEnv::DungeonEnv(const EnvConfig& config) : config_(config) {
  PCGLAB_CHECK(config.max_board_scans > 0);
}

void DungeonEnv::build_scan_order() {
  scan_.clear();
  for (int cell = 0; cell < kCells; ++cell) {
    if (config_.skip_static_cells && static_[cell] != 0) continue;
    scan_.push_back(static_cast<uint16_t>(cell));
  }
}

void DungeonEnv::rebuild_padded() {
  padded_.fill(kBorder | 16);
  for (int cell = 0; cell < kCells; ++cell) {
    padded_[(cell / kMapSize + kObsPad) * kPadded + cell % kMapSize + kObsPad] =
        static_cast<uint8_t>(map_[cell] | (static_[cell] != 0 ? 16 : 0));
  }
}

void DungeonEnv::reset(uint64_t seed) {
  rng_ = Rng(seed);
  generate_initial_map(rng_, map_, static_);
  build_scan_order();
  rebuild_padded();
  if (config_.builtin_reward) stats_ = dungeon_stats(map_);
  step_idx_ = 0;
  pos_ = scan_[0];
  first_obs_ = true;
}

int DungeonEnv::next_edit_cell() const {
  return scan_[static_cast<size_t>(step_idx_) % scan_.size()];
}

bool DungeonEnv::step(int action) {
  PCGLAB_CHECK(action >= 0 && action < kActions) << "action " << action;
  const int cell = next_edit_cell();
  last_reward_ = 0;
  if (static_[cell] == 0 && map_[cell] != kBuilds[action]) {  // edits on static cells are discarded
    map_[cell] = kBuilds[action];
    padded_[(cell / kMapSize + kObsPad) * kPadded + cell % kMapSize + kObsPad] = kBuilds[action];
    if (config_.builtin_reward) {
      const DungeonStats now = dungeon_stats(map_);
      last_reward_ = static_cast<float>(dungeon_reward(stats_, now));
      stats_ = now;
    }
  }
  pos_ = config_.fix_observation_offset ? scan_[static_cast<size_t>(step_idx_ + 1) % scan_.size()] : cell;
  first_obs_ = false;
  const bool done = step_idx_ >= max_steps() - 1;
  ++step_idx_;
  if (done) {
    last_map_ = map_;
    ++episodes_;
    reset(rng_());  // the next episode's seed comes from this environment's own stream
  }
  return done;
}

void DungeonEnv::observe(uint8_t* out) const {
  // The window centred on pos_ is rows prow..prow+30, cols pcol..pcol+30 of the padded map.
  const int prow = pos_ / kMapSize;
  const int pcol = pos_ % kMapSize;
  for (int r = 0; r < kObsSize; ++r) {
    std::memcpy(out + r * kObsSize, &padded_[(prow + r) * kPadded + pcol], kObsSize);
  }
  if (first_obs_ && !config_.show_static_in_first_obs) {
    // Quirk: the first observation after reset does not show the static cells inside the map.
    for (int r = 0; r < kObsSize; ++r) {
      const int row = prow + r - kObsPad;
      if (row < 0 || row >= kMapSize) continue;
      for (int c = 0; c < kObsSize; ++c) {
        const int col = pcol + c - kObsPad;
        if (col >= 0 && col < kMapSize) out[r * kObsSize + c] &= 15;
      }
    }
  }
}

void expand_observation(const uint8_t* compact, float* out) {
  std::fill(out, out + kObsSize * kObsSize * kObsChannels, 0.0f);
  for (int i = 0; i < kObsSize * kObsSize; ++i) {
    out[i * kObsChannels + (compact[i] & 15)] = 1.0f;
    out[i * kObsChannels + kTileTypes] = (compact[i] & 16) != 0 ? 1.0f : 0.0f;
  }
}

uint64_t physical_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : 0;
}

void check_fits_in_memory(uint64_t bytes, const std::string& what) {
  const uint64_t memory = physical_memory_bytes();
  if (memory != 0 && bytes > memory) {
    throw SetupError(fmt::format("{} needs {:.1f} GiB, more than this machine's {:.1f} GiB of memory", what,
                                 static_cast<double>(bytes) / (1 << 30),
                                 static_cast<double>(memory) / (1 << 30)));
  }
}

uint64_t BatchedDungeon::memory_bytes(int64_t n_envs) {
  const uint64_t per_env =
      sizeof(DungeonEnv) + kCells * 4 * sizeof(uint16_t) + kCompactObsBytes;  // state, scan, obs
  return static_cast<uint64_t>(std::max<int64_t>(n_envs, 0)) * per_env;
}

namespace {
int checked_env_count(int n_envs) {
  if (n_envs < 1) throw SetupError(fmt::format("{} environments: at least 1 is needed", n_envs));
  check_fits_in_memory(BatchedDungeon::memory_bytes(n_envs), fmt::format("{} environments", n_envs));
  return n_envs;
}
}  // namespace

BatchedDungeon::BatchedDungeon(int n_envs, uint64_t seed, const EnvConfig& config)
    : envs_(static_cast<size_t>(checked_env_count(n_envs)), DungeonEnv(config)),
      obs_(static_cast<size_t>(n_envs) * kCompactObsBytes) {
  for (int i = 0; i < n_envs; ++i) envs_[i].reset(seed + static_cast<uint64_t>(i));
  observe_all();
}

void BatchedDungeon::step(const int* actions, uint8_t* dones, float* rewards, int first, int last) {
  if (last < 0) last = size();
  for (int i = first; i < last; ++i) {
    dones[i] = envs_[i].step(actions[i]) ? 1 : 0;
    if (rewards != nullptr) rewards[i] = envs_[i].last_reward();
    envs_[i].observe(&obs_[static_cast<size_t>(i) * kCompactObsBytes]);
  }
}

void BatchedDungeon::step(ThreadPool& pool, const int* actions, uint8_t* dones, float* rewards) {
  constexpr int kChunk = 64;
  const int n = size(), chunks = (n + kChunk - 1) / kChunk;
  if (chunks < 2 || pool.size() < 2) return step(actions, dones, rewards);
  pool.parallel_for(static_cast<size_t>(chunks), [&](size_t c) {
    const int first = static_cast<int>(c) * kChunk;
    step(actions, dones, rewards, first, std::min(n, first + kChunk));
  });
}

void BatchedDungeon::observe_all(int first, int last) {
  if (last < 0) last = size();
  for (int i = first; i < last; ++i) envs_[i].observe(&obs_[static_cast<size_t>(i) * kCompactObsBytes]);
}

}  // namespace pcglab::pcgrl
