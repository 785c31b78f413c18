#include "batch/shard.h"

#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <gtest/gtest.h>

#include "core/check.h"

namespace pcglab::batch {
namespace {

TEST(Shard, ParsesIndexOfCount) {
  const Shard s = parse_shard("2/3");
  EXPECT_EQ(s.index, 2);
  EXPECT_EQ(s.count, 3);
  EXPECT_FALSE(s.all());
  EXPECT_EQ(s.label(), "2/3");
  EXPECT_EQ(s.file_label(), "2-of-3");
  EXPECT_TRUE(parse_shard("1/1").all());
  EXPECT_EQ(parse_shard("1/1").label(), "");
  EXPECT_EQ(parse_shard("10000/10000").count, 10000);
}

TEST(Shard, RefusesBadSpecsWithTheSpecInTheMessage) {
  for (const char* spec : {"", "3", "0/3", "4/3", "1/0", "a/3", "1/b", "1/10001", "-1/3", "1/3x", "1//3"}) {
    try {
      parse_shard(spec);
      ADD_FAILURE() << "accepted '" << spec << "'";
    } catch (const SetupError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("'") + spec + "'"), std::string::npos) << e.what();
    }
  }
}

TEST(Shard, EveryKeyInExactlyOneShardAndTheSplitIsEven) {
  const int n = 3;
  std::map<int, int> sizes;
  for (int k = 0; k < 3000; ++k) {
    const std::string key = "team/A/team_A_" + std::to_string(k);
    int owners = 0;
    for (int i = 1; i <= n; ++i) {
      if (Shard{i, n}.owns(key)) {
        ++owners;
        ++sizes[i];
      }
    }
    EXPECT_EQ(owners, 1) << key;
    EXPECT_TRUE(Shard{}.owns(key));
  }
  for (const auto& [i, size] : sizes) EXPECT_NEAR(size, 1000, 100) << "shard " << i;
}

TEST(Shard, SplitIsTheMixedFnv1aOfTheKey) {
  // FNV-1a 64 of "a" is af63dc4c8601ec8c; MurmurHash3's fmix64 of that is 82a2a958a9bece5b, mod 3 = 2,
  // so shard 3 of 3 owns it.
  EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(fnv1a64(""), 14695981039346656037ull);
  EXPECT_EQ(mix64(0), 0u);
  EXPECT_EQ(shard_hash("a"), 0x82a2a958a9bece5bull);
  EXPECT_TRUE((Shard{3, 3}.owns("a")));
}

// Every key in exactly one of n shards, and no shard above 1.5 times its share (n / keys).
void expect_even_split(const std::vector<std::string>& keys, int n, const std::string& what) {
  std::vector<int> sizes(static_cast<size_t>(n), 0);
  for (const std::string& key : keys) {
    int owners = 0;
    for (int i = 1; i <= n; ++i)
      if (Shard{i, n}.owns(key)) ++owners, ++sizes[static_cast<size_t>(i - 1)];
    EXPECT_EQ(owners, 1) << what << ": " << key;
  }
  const double share = static_cast<double>(keys.size()) / n;
  for (int i = 1; i <= n; ++i)
    EXPECT_LE(sizes[static_cast<size_t>(i - 1)], 1.5 * share)
        << what << ", shard " << i << "/" << n << " of " << keys.size() << " keys";
}

// The keys of `birds run` (and every birds stage of the same trial): "team/A/team_A_3".
std::vector<std::string> birds_keys(const std::string& team, int trials) {
  std::vector<std::string> keys;
  for (char c = 'A'; c <= 'Z'; ++c)
    for (int t = 1; t <= trials; ++t) keys.push_back(fmt::format("{}/{}/{}_{}_{}", team, c, team, c, t));
  return keys;
}

TEST(Shard, RealKeySetsSplitEvenlyForTwoThreeFourAndEightShards) {
  std::vector<std::string> text_game, poker;  // the future tracks' keys
  for (int task = 0; task < 16; ++task)
    for (int gen = 0; gen < 3; ++gen)
      for (int reflect = 0; reflect < 2; ++reflect)
        text_game.push_back(fmt::format("task-{:02}/gen-{}/reflect-{}", task, gen, reflect));
  for (int game = 0; game < 10; ++game)
    for (int seed = 0; seed < 40; ++seed) poker.push_back(fmt::format("game-{:02}/seed-{}", game, seed));
  for (const int n : {2, 3, 4, 8}) {
    for (const char* team : {"t", "team", "handwritten", "gpt4o"})
      expect_even_split(birds_keys(team, 10), n, std::string("birds run, team ") + team);
    expect_even_split(text_game, n, "16 tasks x 3 x 2");
    expect_even_split(poker, n, "10 games x 40 seeds");
  }
}

TEST(Shard, OneTrialPerLetterIsSplitOverBothShards) {
  // The issue: `birds run --letters A-Z --trials 1 --shard 1/2` got all 26 trials (the letter is in
  // the key twice, so FNV-1a's low bit was the same for every key).
  for (const char* team : {"t", "team", "handwritten", "gpt4o"})
    expect_even_split(birds_keys(team, 1), 2, team);
}

class SlurmEnv : public ::testing::Test {
 protected:
  void TearDown() override {
    for (const char* v : {"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_COUNT"})
      unsetenv(v);
  }
};

TEST_F(SlurmEnv, AutoReadsTheJobArray) {
  setenv("SLURM_ARRAY_TASK_ID", "3", 1);
  setenv("SLURM_ARRAY_TASK_MIN", "1", 1);
  setenv("SLURM_ARRAY_TASK_COUNT", "4", 1);
  Shard s = parse_shard("auto");
  EXPECT_EQ(s.index, 3);
  EXPECT_EQ(s.count, 4);
  setenv("SLURM_ARRAY_TASK_ID", "0", 1);
  unsetenv("SLURM_ARRAY_TASK_MIN");  // --array=0-3: MIN is 0
  s = parse_shard("auto");
  EXPECT_EQ(s.index, 1);
}

TEST_F(SlurmEnv, AutoNamesTheMissingOrBadVariable) {
  setenv("SLURM_ARRAY_TASK_COUNT", "4", 1);
  try {
    parse_shard("auto");
    ADD_FAILURE();
  } catch (const SetupError& e) {
    EXPECT_NE(std::string(e.what()).find("SLURM_ARRAY_TASK_ID"), std::string::npos) << e.what();
  }
  setenv("SLURM_ARRAY_TASK_ID", "x1", 1);
  try {
    parse_shard("auto");
    ADD_FAILURE();
  } catch (const SetupError& e) {
    EXPECT_NE(std::string(e.what()).find("SLURM_ARRAY_TASK_ID='x1'"), std::string::npos) << e.what();
  }
  setenv("SLURM_ARRAY_TASK_ID", "9", 1);
  setenv("SLURM_ARRAY_TASK_MIN", "1", 1);
  EXPECT_THROW(parse_shard("auto"), SetupError);  // shard 9 of 4
}

}  // namespace
}  // namespace pcglab::batch
