// `pcglab pcgrl train` and `pcgrl generate` end to end, and their errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/files.h"
#include "nn/safetensors.h"
#include "pcgrl/accuracy.h"
#include "pcgrl/ppo.h"
#include "testing/testing.h"

namespace pcglab {
namespace {
namespace fs = std::filesystem;

TEST(PpoCli, TrainGenerateAndTheirErrors) {
  testing::TempDir dir;
  const auto train = testing::run_pcglab({"pcgrl", "train", "--reward", "builtin", "--steps", "64", "--envs",
                                          "4", "--rollout", "16", "--epochs", "1", "-o",
                                          (dir / "run").string(), "--format", "json"});
  ASSERT_EQ(train.exit_code, 0) << train.err;
  EXPECT_TRUE(fs::exists(dir / "run/checkpoint.safetensors"));
  EXPECT_NE(read_file(dir / "run/train_log.csv").find("update,env_steps,episodes,mean_return"),
            std::string::npos);
  const auto gen =
      testing::run_pcglab({"pcgrl", "generate", "--checkpoint", (dir / "run/checkpoint.safetensors").string(),
                           "--levels", "2", "--scenario", "bat", "--format", "csv"});
  ASSERT_EQ(gen.exit_code, 0) << gen.err;
  const auto levels = pcgrl::parse_levels(read_file(dir / "run/levels/levels.txt"), "levels.txt");
  EXPECT_EQ(levels.size(), 2u);
  EXPECT_TRUE(fs::exists(dir / "run/levels/level_001.png"));
  EXPECT_NE(gen.out.find("accuracy"), std::string::npos);
  EXPECT_EQ(testing::run_pcglab({"pcgrl", "train", "--reward", "llm", "-o", (dir / "x").string()}).exit_code,
            2);
  EXPECT_EQ(testing::run_pcglab({"pcgrl", "generate", "--checkpoint", (dir / "none.safetensors").string()})
                .exit_code,
            2);
  write_file_atomic(dir / "bad.safetensors", "garbage");
  const auto bad =
      testing::run_pcglab({"pcgrl", "generate", "--checkpoint", (dir / "bad.safetensors").string()});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("bad.safetensors"), std::string::npos) << bad.err;
}

// `--envs 1 --rollout 4` (minibatches of one sample) trained to an all-NaN checkpoint with exit 0;
// impossible settings are now refused before training, and generate refuses non-finite weights.
TEST(PpoCli, ImpossibleSettingsAndNonFiniteCheckpointsAreRefused) {
  testing::TempDir dir;
  const auto one = testing::run_pcglab(
      {"pcgrl", "train", "--envs", "1", "--rollout", "4", "--steps", "64", "-o", (dir / "run").string()});
  EXPECT_EQ(one.exit_code, 2);
  EXPECT_NE(one.err.find("minibatches of 1 sample"), std::string::npos) << one.err;
  EXPECT_FALSE(fs::exists(dir / "run/checkpoint.safetensors"));
  const auto few = testing::run_pcglab({"pcgrl", "train", "--steps", "10", "-o", (dir / "run").string()});
  EXPECT_EQ(few.exit_code, 2);
  EXPECT_NE(few.err.find("--steps 10 is less than one update"), std::string::npos) << few.err;
  const auto uneven =
      testing::run_pcglab({"bench", "pcgrl-ppo", "--envs", "3", "--rollout", "5", "--minibatches", "4"});
  EXPECT_EQ(uneven.exit_code, 2);
  EXPECT_NE(uneven.err.find("does not split into 4 equal minibatches"), std::string::npos) << uneven.err;

  nn::write_safetensors(dir / "nan.safetensors", {{"actor.w", {{2}, {1, std::nanf("")}}}});
  const auto gen =
      testing::run_pcglab({"pcgrl", "generate", "--checkpoint", (dir / "nan.safetensors").string()});
  EXPECT_EQ(gen.exit_code, 2);
  EXPECT_NE(gen.err.find("weight tensor 'actor.w' has NaN or infinite values"), std::string::npos) << gen.err;
  EXPECT_FALSE(fs::exists(dir / "levels"));
}

// A checkpoint of another observation size, weights of that shape included, loaded and
// `generate --levels 10000` died of SIGSEGV (`--levels 100` read out of bounds silently); actions=7
// was an "internal error"; a huge max_board_scans ran on. Each exits 2 naming the file and the
// field, and writes no level.
TEST(PpoCli, GenerateRefusesACheckpointTheDungeonCannotTakeNamingFileAndField) {
  testing::TempDir dir;
  auto expect_refused = [&](const fs::path& file, const std::string& field, const char* levels = "100") {
    const auto r = testing::run_pcglab({"pcgrl", "generate", "--checkpoint", file.string(), "--levels",
                                        levels, "-o", (dir / "levels").string()});
    EXPECT_EQ(r.exit_code, 2) << field << ": " << r.err;
    EXPECT_NE(r.err.find(file.string() + ": "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("'" + field + "' is"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir / "levels")) << field;
  };
  pcgrl::PpoConfig wide;
  wide.obs_size = 63;
  pcgrl::PpoAgent::create(wide).save(dir / "obs63.safetensors");
  expect_refused(dir / "obs63.safetensors", "obs_size");
  pcgrl::PpoConfig seven;
  seven.actions = 7;
  pcgrl::PpoAgent::create(seven).save(dir / "actions7.safetensors");
  expect_refused(dir / "actions7.safetensors", "actions");
  const fs::path good = dir / "good.safetensors";
  pcgrl::PpoAgent::create({}).save(good);
  const nn::SafetensorsFile file = nn::read_safetensors(good);
  auto meta = file.metadata;
  meta["max_board_scans"] = "101";  // more than kMaxBoardScans (a billion once ran on and on)
  nn::write_safetensors(dir / "scans.safetensors", file.tensors, meta);
  expect_refused(dir / "scans.safetensors", "max_board_scans", "1");
}

// `pcgrl train --envs 4096 --rollout 100000` died of bad_alloc after 9.5 s: the memory is computed
// up front and refused with both numbers, exit 2, nothing written.
TEST(PpoCli, TrainRefusesSettingsThatDoNotFitInMemoryUpFront) {
  testing::TempDir dir;
  const auto r = testing::run_pcglab({"pcgrl", "train", "--envs", "4096", "--rollout", "100000", "--steps",
                                      "1000000000000", "-o", (dir / "run").string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("training with --envs 4096 × --rollout 100000"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("GiB, more than this machine's"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "run"));
}

// `--device cuda` where libtorch has no CUDA (Debian's) or no device is visible: exit 2 naming the
// cause, before any training; a checkpoint trained with the dense first layers is generated from
// with the (default) gathers: the same parameters.
TEST(PpoCli, DeviceAndFirstLayers) {
  testing::TempDir dir;
  const auto cuda = testing::run_pcglab({"pcgrl", "train", "--steps", "64", "--envs", "4", "--rollout", "16",
                                         "--epochs", "1", "--device", "cuda", "-o", (dir / "gpu").string()});
  if (cuda.exit_code != 0) {
    EXPECT_EQ(cuda.exit_code, 2);
    EXPECT_NE(cuda.err.find("PPO agent on device 'cuda': "), std::string::npos) << cuda.err;
    EXPECT_TRUE(cuda.err.find("has no CUDA") != std::string::npos ||
                cuda.err.find("no CUDA device is visible") != std::string::npos)
        << cuda.err;
    EXPECT_FALSE(fs::exists(dir / "gpu/checkpoint.safetensors"));
  }
  EXPECT_EQ(testing::run_pcglab({"pcgrl", "train", "--device", "tpu", "-o", (dir / "x").string()}).exit_code,
            2);
  const auto dense =
      testing::run_pcglab({"pcgrl", "train", "--steps", "64", "--envs", "4", "--rollout", "16", "--epochs",
                           "1", "--first-layers", "dense", "-o", (dir / "dense").string()});
  ASSERT_EQ(dense.exit_code, 0) << dense.err;
  const auto gen = testing::run_pcglab({"pcgrl", "generate", "--checkpoint",
                                        (dir / "dense/checkpoint.safetensors").string(), "--levels", "1"});
  EXPECT_EQ(gen.exit_code, 0) << gen.err;
  EXPECT_TRUE(fs::exists(dir / "dense/levels/level_000.txt"));
}

// The benchmark reports which share of an update's time the PPO update took (the rest is the
// rollout): the number that said, on a GPU, that the rollout is the gap (docs/PERFORMANCE.md).
// `--cudnn-benchmark` changes nothing on the CPU: the same losses.
TEST(PpoCli, BenchReportsTheUpdatesShareOfTheTime) {
  std::vector<nlohmann::json> rows;
  for (const bool cudnn : {false, true}) {
    std::vector<std::string> args = {"bench",    "pcgrl-ppo", "--envs",    "2", "--rollout", "8",
                                     "--epochs", "1",         "--updates", "2", "--format",  "json"};
    if (cudnn) args.push_back("--cudnn-benchmark");
    const auto r = testing::run_pcglab(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto table = nlohmann::json::parse(r.out);
    ASSERT_EQ(table.size(), 1u) << r.out;
    rows.push_back(table[0]);
  }
  const double share = rows[0].at("median_update_share").get<double>();
  EXPECT_GT(share, 0.0) << rows[0];
  EXPECT_LT(share, 1.0) << rows[0];
  for (const char* loss : {"last_policy_loss", "last_value_loss", "last_entropy"})
    EXPECT_EQ(rows[0].at(loss), rows[1].at(loss)) << loss;
}

// The speed options reach the agent and the bench names them; one it cannot use is bad setup.
TEST(PpoCli, BenchNamesTheSpeedOptionsItRuns) {
  auto run = [](std::vector<std::string> extra) {
    std::vector<std::string> args = {"bench",          "pcgrl-ppo", "--envs",    "2", "--rollout", "8",
                                     "--epochs",       "1",         "--updates", "1", "--format",  "json",
                                     "--first-layers", "dense"};
    args.insert(args.end(), extra.begin(), extra.end());
    return testing::run_pcglab(args);
  };
  const auto plain = run({});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(nlohmann::json::parse(plain.out)[0].at("options"), "none");
  const auto fast =
      run({"--update-graph", "--input-channels", "16", "--channels-last", "--cudnn-benchmark-limit", "0"});
  ASSERT_EQ(fast.exit_code, 0) << fast.err;
  const auto row = nlohmann::json::parse(fast.out)[0];
  EXPECT_EQ(row.at("options"), "update_graph+input_channels=16+channels_last+cudnn_benchmark_limit=0");
  EXPECT_NEAR(row.at("last_entropy").get<double>(),
              nlohmann::json::parse(plain.out)[0].at("last_entropy").get<double>(), 1e-4);
  const auto narrow = run({"--input-channels", "4"});
  EXPECT_EQ(narrow.exit_code, 2);
  EXPECT_THAT(narrow.err, ::testing::HasSubstr("input channels 4 are fewer than the network's 10"));
  const auto bf16 = run({"--bf16"});
  EXPECT_EQ(bf16.exit_code, 2);
  EXPECT_THAT(bf16.err, ::testing::HasSubstr("bf16 autocast is a CUDA option"));
}

}  // namespace
}  // namespace pcglab
