// Shards: a deterministic split of a batch's items over independent processes (`--shard 2/3`),
// so that a large evaluation can run on several machines or as a Slurm job array.
//
// An item belongs to shard i of n when FNV-1a 64 of its key, mod n, is i-1. The split depends only
// on the key, never on the list of items: every stage of one trial (its conversion, its level's
// simulation, its image's classification) uses the same key and so lands in the same shard, and a
// shard never needs to know the other items. Adding or removing items never moves the others.
//
// `--shard auto` reads SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_MIN (0 when unset)
// and SLURM_ARRAY_TASK_COUNT, so `sbatch --array=1-3 pcglab birds eval DIR --shard auto` runs the
// three shards with no change to pcglab; `pcglab merge DIR` completes them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace pcglab::batch {

struct Shard {
  int index = 1, count = 1;  // 1-based: --shard 2/3
  bool all() const { return count == 1; }
  // FNV-1a 64 of the key, mod count, equals index - 1.
  bool owns(std::string_view item_key) const;
  std::string label() const;  // "2/3" ("" when all())
  // A file-name-safe label: "2-of-3" ("" when all()).
  std::string file_label() const;
};

// FNV-1a 64 of `bytes` (also the batch driver's content hash).
uint64_t fnv1a64(std::string_view bytes, uint64_t seed = 14695981039346656037ull);

// "i/n" (1 <= i <= n <= 10000) or "auto": shard SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN + 1 of
// SLURM_ARRAY_TASK_COUNT (SLURM_ARRAY_TASK_MIN defaults to 0 when unset). Throws SetupError naming
// the spec, or the environment variable that is missing or bad.
Shard parse_shard(std::string_view spec);

}  // namespace pcglab::batch
