// Shards: a deterministic split of a batch's items over independent processes (`--shard 2/3`),
// so that a large evaluation can run on several machines or as a Slurm job array.
//
// An item belongs to shard i of n when shard_hash(key) (FNV-1a 64 of the key through MurmurHash3's
// 64-bit finaliser), mod n, is i-1. FNV-1a alone is no good modulo a small n: its low bits are
// those of the last bytes (the low bit is the parity of the bytes' low bits), so keys that differ
// in a letter written twice ("t/A/t_A_1") all fell into one shard; the finaliser mixes every bit
// of the hash into the low ones. The split depends only
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
  // shard_hash(item_key) mod count equals index - 1.
  bool owns(std::string_view item_key) const;
  std::string label() const;  // "2/3" ("" when all())
  // A file-name-safe label: "2-of-3" ("" when all()).
  std::string file_label() const;
};

// FNV-1a 64 of `bytes` (also the batch driver's content hash).
uint64_t fnv1a64(std::string_view bytes, uint64_t seed = 14695981039346656037ull);

// MurmurHash3's 64-bit finaliser (fmix64): a bijection whose every output bit depends on every
// input bit.
uint64_t mix64(uint64_t h);

// The hash that splits items over shards: mix64(fnv1a64(key)).
uint64_t shard_hash(std::string_view item_key);

// "i/n" (1 <= i <= n <= 10000) or "auto": shard SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN + 1 of
// SLURM_ARRAY_TASK_COUNT (SLURM_ARRAY_TASK_MIN defaults to 0 when unset). Throws SetupError naming
// the spec, or the environment variable that is missing or bad.
Shard parse_shard(std::string_view spec);

}  // namespace pcglab::batch
