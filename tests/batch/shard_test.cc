#include "batch/shard.h"

#include <cstdlib>
#include <map>
#include <string>

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

TEST(Shard, SplitIsFnv1aOfTheKey) {
  // FNV-1a 64 of "a" is af63dc4c8601ec8c; mod 3 = 1, so shard 2 of 3 owns it.
  EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(fnv1a64(""), 14695981039346656037ull);
  EXPECT_TRUE((Shard{static_cast<int>(0xaf63dc4c8601ec8cull % 3) + 1, 3}.owns("a")));
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
