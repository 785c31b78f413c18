#include "batch/shard.h"

#include <charconv>
#include <cstdlib>
#include <optional>

#include <fmt/format.h>

#include "core/check.h"

namespace pcglab::batch {
namespace {

constexpr int kMaxShards = 10000;

std::optional<long> parse_int(std::string_view text) {
  if (text.empty() || text.size() > 9) return std::nullopt;
  long value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

long env_int(const char* name, std::optional<long> fallback) {
  const char* value = std::getenv(name);
  if (value == nullptr) {
    if (fallback) return *fallback;
    throw SetupError(
        fmt::format("--shard auto: {} is not set (auto is meant for a Slurm job array: "
                    "sbatch --array=1-N; elsewhere give --shard i/n)",
                    name));
  }
  const auto parsed = parse_int(value);
  if (!parsed) throw SetupError(fmt::format("--shard auto: {}='{}' is not a whole number", name, value));
  return *parsed;
}

}  // namespace

uint64_t fnv1a64(std::string_view bytes, uint64_t seed) {
  uint64_t h = seed;
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
  return h;
}

uint64_t mix64(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return h;
}

uint64_t shard_hash(std::string_view item_key) {
  return mix64(fnv1a64(item_key));
}

bool Shard::owns(std::string_view item_key) const {
  if (count <= 1) return true;
  return shard_hash(item_key) % static_cast<uint64_t>(count) == static_cast<uint64_t>(index - 1);
}

std::string Shard::label() const {
  return all() ? std::string() : fmt::format("{}/{}", index, count);
}

std::string Shard::file_label() const {
  return all() ? std::string() : fmt::format("{}-of-{}", index, count);
}

Shard parse_shard(std::string_view spec) {
  if (spec == "auto") {
    const long id = env_int("SLURM_ARRAY_TASK_ID", std::nullopt);
    const long count = env_int("SLURM_ARRAY_TASK_COUNT", std::nullopt);
    const long min = env_int("SLURM_ARRAY_TASK_MIN", 0L);
    const long index = id - min + 1;
    if (count < 1 || count > kMaxShards)
      throw SetupError(
          fmt::format("--shard auto: SLURM_ARRAY_TASK_COUNT={} is not in [1, {}]", count, kMaxShards));
    if (index < 1 || index > count)
      throw SetupError(fmt::format(
          "--shard auto: SLURM_ARRAY_TASK_ID={} with SLURM_ARRAY_TASK_MIN={} gives shard {} of {}, outside "
          "[1, {}] (submit the array as --array=1-{} or 0-{})",
          id, min, index, count, count, count, count - 1));
    return {static_cast<int>(index), static_cast<int>(count)};
  }
  const size_t slash = spec.find('/');
  const auto bad = [&](const std::string& why) {
    return SetupError(fmt::format("--shard '{}': {} (give i/n with 1 <= i <= n <= {}, e.g. 2/3, or auto)",
                                  spec, why, kMaxShards));
  };
  if (slash == std::string_view::npos) throw bad("no '/'");
  const auto index = parse_int(spec.substr(0, slash));
  const auto count = parse_int(spec.substr(slash + 1));
  if (!index || !count) throw bad("not two whole numbers");
  if (*count < 1 || *count > kMaxShards) throw bad(fmt::format("n = {} is out of range", *count));
  if (*index < 1 || *index > *count) throw bad(fmt::format("i = {} is not in [1, {}]", *index, *count));
  return {static_cast<int>(*index), static_cast<int>(*count)};
}

}  // namespace pcglab::batch
