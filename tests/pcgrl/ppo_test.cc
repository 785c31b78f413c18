// PPO pieces: GAE by hand, the agent's outputs, checkpoints, determinism, the CLI.
#include "pcgrl/ppo.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/check.h"
#include "core/files.h"
#include "core/rng.h"
#include "nn/safetensors.h"
#include "nn/torch_runtime.h"
#include "pcgrl/accuracy.h"
#include "pcgrl/ppo_trainer.h"
#include "testing/testing.h"

namespace pcglab {
namespace {
namespace fs = std::filesystem;

TEST(Gae, HandComputedCaseWithAnEpisodeEnd) {
  // One environment, 3 steps; the episode ends after step 1.
  std::vector<float> adv, ret;
  pcgrl::compute_gae({1, 0, 2}, {0.5f, 0.4f, 0.3f}, {0, 1, 0}, {0.2f}, 1, 0.9, 0.8, adv, ret);
  // t=2: δ = 2 + 0.9·0.2 − 0.3 = 1.88; t=1 (done): δ = −0.4, no bootstrap; t=0: δ = 1 + 0.9·0.4 − 0.5 = 0.86,
  // A = 0.86 + 0.9·0.8·(−0.4) = 0.572.
  EXPECT_NEAR(adv[2], 1.88, 1e-6);
  EXPECT_NEAR(adv[1], -0.4, 1e-6);
  EXPECT_NEAR(adv[0], 0.572, 1e-6);
  EXPECT_NEAR(ret[0], 1.072, 1e-6);
  EXPECT_NEAR(ret[1], 0.0, 1e-6);
  // Two environments interleaved time-major give each one's own result.
  std::vector<float> adv2, ret2;
  pcgrl::compute_gae({1, 5, 0, 5, 2, 5}, {0.5f, 0, 0.4f, 0, 0.3f, 0}, {0, 0, 1, 0, 0, 0}, {0.2f, 0}, 2, 0.9,
                     0.8, adv2, ret2);
  EXPECT_NEAR(adv2[0], 0.572, 1e-6);
  EXPECT_NEAR(adv2[4], 1.88, 1e-6);
  EXPECT_THROW(pcgrl::compute_gae({1, 2, 3}, {0, 0, 0}, {0, 0, 0}, {0, 0}, 2, 0.9, 0.9, adv, ret),
               CheckError);
}

TEST(PpoMinibatches, EachEpochIsAPermutationSplitIntoEqualParts) {
  const int64_t n = 12;
  const int epochs = 3, minibatches = 4;
  const auto order = pcgrl::minibatch_order(n, epochs, 5);
  ASSERT_EQ(order.size(), static_cast<size_t>(n * epochs));
  const int64_t mb = n / minibatches;
  for (int e = 0; e < epochs; ++e) {
    std::vector<int> seen(n, 0);
    for (int m = 0; m < minibatches; ++m)
      for (int64_t j = 0; j < mb; ++j)
        ++seen[order[e * n + m * mb + j]];  // every sample in exactly one minibatch
    EXPECT_EQ(seen, std::vector<int>(n, 1)) << "epoch " << e;
  }
  // Epochs are shuffled independently; the same seed gives the same order, another seed another.
  EXPECT_FALSE(std::equal(order.begin(), order.begin() + n, order.begin() + n));
  EXPECT_EQ(order, pcgrl::minibatch_order(n, epochs, 5));
  EXPECT_NE(order, pcgrl::minibatch_order(n, epochs, 6));
  EXPECT_TRUE(pcgrl::minibatch_order(0, 2, 1).empty());
}

std::vector<uint8_t> observations(int n, uint64_t seed) {
  pcgrl::BatchedDungeon envs(n, seed);
  envs.observe_all();
  return {envs.observations(), envs.observations() + static_cast<size_t>(n) * pcgrl::kCompactObsBytes};
}

TEST(PpoAgent, StartsNearUniformAndRoundTripsThroughACheckpoint) {
  nn::set_torch_threads(1);
  pcgrl::PpoConfig config;
  config.seed = 3;
  const pcgrl::PpoAgent agent = pcgrl::PpoAgent::create(config);
  const auto obs = observations(4, 1);
  std::vector<float> probs, values;
  agent.evaluate(obs.data(), 4, probs, values);
  ASSERT_EQ(probs.size(), 24u);
  for (int i = 0; i < 4; ++i) {
    double sum = 0;
    for (int a = 0; a < 6; ++a) {
      sum += probs[i * 6 + a];
      EXPECT_NEAR(probs[i * 6 + a], 1.0 / 6, 0.02);  // policy head initialised orthogonal × 0.01
    }
    EXPECT_NEAR(sum, 1.0, 1e-5);
  }
  testing::TempDir dir;
  agent.save(dir / "a.safetensors", {{"note", "test"}});
  const pcgrl::PpoAgent loaded = pcgrl::PpoAgent::load(dir / "a.safetensors");
  std::vector<float> p2, v2;
  loaded.evaluate(obs.data(), 4, p2, v2);
  EXPECT_EQ(probs, p2);
  EXPECT_EQ(values, v2);
  // 1.11 M parameters as recorded for ConvForward.
  int64_t params = 0;
  for (const auto& [name, t] : nn::read_safetensors(dir / "a.safetensors").tensors) params += t.numel();
  EXPECT_NEAR(static_cast<double>(params), 1.11e6, 0.01e6);
  nn::write_safetensors(dir / "other.safetensors", {{"w", {{1}, {1}}}});
  EXPECT_THROW(pcgrl::PpoAgent::load(dir / "other.safetensors"), SetupError);
}

// Random compact observations: tile ids 0..8, a static bit on one cell in eight.
std::vector<uint8_t> random_observations(int n, uint64_t seed) {
  Rng rng(seed);
  std::vector<uint8_t> obs(static_cast<size_t>(n) * pcgrl::kCompactObsBytes);
  for (auto& b : obs) b = static_cast<uint8_t>(rng.below(9) + (rng.below(8) == 0 ? 16 : 0));
  return obs;
}

pcgrl::PpoConfig first_layers(bool gathers, uint64_t seed) {
  pcgrl::PpoConfig c;
  c.seed = seed;
  c.one_hot_gathers = gathers;
  return c;
}

// The gathers (sums of weight rows picked by the one-hot input) compute what the dense conv and
// matmul on the one-hot floats compute, with the same weights, on random and on dungeon maps.
TEST(PpoAgent, GatherAndDenseFirstLayersGiveTheSameOutputs) {
  nn::set_torch_threads(2);
  auto obs = random_observations(6, 5);
  const auto dungeon = observations(2, 7);
  obs.insert(obs.end(), dungeon.begin(), dungeon.end());
  const pcgrl::PpoAgent gather = pcgrl::PpoAgent::create(first_layers(true, 9));
  const pcgrl::PpoAgent dense = pcgrl::PpoAgent::create(first_layers(false, 9));
  std::vector<float> pg, vg, pd, vd;
  gather.evaluate(obs.data(), 8, pg, vg);
  dense.evaluate(obs.data(), 8, pd, vd);
  ASSERT_EQ(pg.size(), pd.size());
  for (size_t i = 0; i < pg.size(); ++i) EXPECT_NEAR(pg[i], pd[i], 1e-6) << i;
  for (size_t i = 0; i < vg.size(); ++i) EXPECT_NEAR(vg[i], vd[i], 1e-4 * (1 + std::abs(vd[i]))) << i;
  // The values differ between observations (the static channel and the tiles reach the critic).
  EXPECT_GT(std::abs(vd[0] - vd[1]), 1e-3);
  // A tile id the network has no channel for is refused by both.
  obs[100] = 9;
  EXPECT_THROW(gather.evaluate(obs.data(), 8, pg, vg), SetupError);
  EXPECT_THROW(dense.evaluate(obs.data(), 8, pd, vd), SetupError);
}

// ... and the same gradients: with Adam's eps 1 and lr 1, the first step moves each weight by
// −g / (|g| + 1), a function of its gradient g alone (no clipping), so equal moves mean equal
// gradients, for every tensor (the first layers' included).
TEST(PpoAgent, GatherAndDenseFirstLayersGiveTheSameGradients) {
  nn::set_torch_threads(2);
  const int n = 8;
  pcgrl::PpoBatch batch;
  batch.observations = random_observations(n, 11);
  Rng rng(12);
  std::vector<float> probs, values;
  testing::TempDir dir;
  std::map<std::string, nn::Tensor> moves[2];
  pcgrl::PpoLosses losses[2];
  for (int g = 0; g < 2; ++g) {
    pcgrl::PpoConfig c = first_layers(g == 0, 13);
    c.lr = 1;
    c.adam_eps = 1;
    c.max_grad_norm = 1e9;
    c.epochs = 1;
    c.minibatches = 1;
    pcgrl::PpoAgent agent = pcgrl::PpoAgent::create(c);
    if (g == 0) {
      agent.evaluate(batch.observations.data(), n, probs, values);
      for (int i = 0; i < n; ++i) {
        batch.actions.push_back(static_cast<int32_t>(rng.below(6)));
        batch.log_probs.push_back(std::log(probs[i * 6 + batch.actions.back()]));
        batch.values.push_back(values[i]);
        batch.advantages.push_back(static_cast<float>(rng.uniform() * 2 - 1));
        batch.returns.push_back(static_cast<float>(rng.uniform() * 4 - 2));
      }
    }
    agent.save(dir / "before.safetensors");
    losses[g] = agent.update(batch, 1);
    agent.save(dir / "after.safetensors");
    const auto before = nn::read_safetensors(dir / "before.safetensors");
    for (auto [name, t] : nn::read_safetensors(dir / "after.safetensors").tensors) {
      for (size_t i = 0; i < t.values.size(); ++i) t.values[i] -= before.tensors.at(name).values[i];
      moves[g][name] = t;
    }
  }
  EXPECT_NEAR(losses[0].policy, losses[1].policy, 1e-6);
  EXPECT_NEAR(losses[0].value, losses[1].value, 1e-4 * (1 + std::abs(losses[1].value)));
  EXPECT_NEAR(losses[0].entropy, losses[1].entropy, 1e-6);
  ASSERT_EQ(moves[0].size(), 14u);  // 7 layers: weight and bias each
  for (const auto& [name, dense] : moves[1]) {
    const auto& gather = moves[0].at(name);
    float largest = 0, worst = 0;
    for (size_t i = 0; i < dense.values.size(); ++i) {
      largest = std::max(largest, std::abs(dense.values[i]));
      worst = std::max(worst, std::abs(gather.values[i] - dense.values[i]));
    }
    EXPECT_GT(largest, 1e-4) << name << " did not move";
    EXPECT_LE(worst, 1e-6 + 1e-3 * largest) << name;
  }
}

// One update of `config` on a fixed batch of 64 random observations: the losses and each
// parameter's move (after − before).
struct UpdateMoves {
  pcgrl::PpoLosses losses;
  std::map<std::string, nn::Tensor> moves;
};
UpdateMoves update_moves(const pcgrl::PpoConfig& config) {
  const int n = 64;
  pcgrl::PpoBatch batch;
  batch.observations = random_observations(n, 31);
  Rng rng(32);
  for (int i = 0; i < n; ++i) {
    batch.actions.push_back(static_cast<int32_t>(rng.below(6)));
    batch.log_probs.push_back(static_cast<float>(std::log(1.0 / 6) + 0.05 * (rng.uniform() - 0.5)));
    batch.values.push_back(static_cast<float>(rng.uniform() - 0.5));
    batch.advantages.push_back(static_cast<float>(rng.uniform() * 2 - 1));
    batch.returns.push_back(static_cast<float>(rng.uniform() * 4 - 2));
  }
  testing::TempDir dir;
  pcgrl::PpoAgent agent = pcgrl::PpoAgent::create(config);
  agent.save(dir / "before.safetensors");
  UpdateMoves out;
  out.losses = agent.update(batch, 3);
  agent.save(dir / "after.safetensors");
  const auto before = nn::read_safetensors(dir / "before.safetensors");
  for (auto [name, t] : nn::read_safetensors(dir / "after.safetensors").tensors) {
    for (size_t i = 0; i < t.values.size(); ++i) t.values[i] -= before.tensors.at(name).values[i];
    out.moves[name] = t;
  }
  return out;
}

// Every parameter of `got` moved as in `want`, within float rounding, and the losses agree.
void expect_same_moves(const UpdateMoves& got, const UpdateMoves& want, const std::string& what) {
  EXPECT_NEAR(got.losses.policy, want.losses.policy, 1e-6) << what;
  EXPECT_NEAR(got.losses.value, want.losses.value, 1e-5 * (1 + std::abs(want.losses.value))) << what;
  EXPECT_NEAR(got.losses.entropy, want.losses.entropy, 1e-6) << what;
  ASSERT_EQ(got.moves.size(), 14u) << what;
  for (const auto& [name, w] : want.moves) {
    const auto& g = got.moves.at(name);
    ASSERT_EQ(g.shape, w.shape) << what << ": " << name;
    float largest = 0, worst = 0;
    for (size_t i = 0; i < w.values.size(); ++i) {
      largest = std::max(largest, std::abs(w.values[i]));
      worst = std::max(worst, std::abs(g.values[i] - w.values[i]));
    }
    EXPECT_GT(largest, 1e-5) << what << ": " << name << " did not move";
    EXPECT_LE(worst, 1e-7 + 1e-3 * largest) << what << ": " << name;
  }
}

pcgrl::PpoConfig speed_test_config() {
  pcgrl::PpoConfig c = first_layers(false, 17);
  c.lr = 1e-3;
  c.epochs = 2;
  c.minibatches = 2;
  return c;
}

// --input-channels pads the dense path's one-hot input with zero channels (CUDA's tensor-core
// convolutions want such widths): the same sums, so the same outputs and the same update, and the
// parameters keep their shapes (checkpoints stay interchangeable).
TEST(PpoSpeedOptions, PaddedInputChannelsGiveTheSameUpdate) {
  nn::set_torch_threads(2);
  const UpdateMoves plain = update_moves(speed_test_config());
  for (int width : {12, 16}) {
    pcgrl::PpoConfig c = speed_test_config();
    c.input_channels = width;
    expect_same_moves(update_moves(c), plain, fmt::format("input_channels {}", width));
  }
  pcgrl::PpoConfig narrow = speed_test_config();
  narrow.input_channels = 9;
  EXPECT_THAT([&] { pcgrl::PpoAgent::create(narrow); },
              ::testing::ThrowsMessage<SetupError>(
                  ::testing::HasSubstr("input channels 9 are fewer than the network's 10 one-hot channels")));
}

// --update-graph's Adam (own tensor operations, step count on the device, so that a CUDA graph of
// the step replays with the right bias corrections) moves every weight as libtorch's Adam does,
// over several steps; channels-last weights change nothing either.
TEST(PpoSpeedOptions, OwnAdamAndChannelsLastGiveTheSameUpdate) {
  nn::set_torch_threads(2);
  const UpdateMoves plain = update_moves(speed_test_config());
  pcgrl::PpoConfig own = speed_test_config();
  own.update_graph = true;
  expect_same_moves(update_moves(own), plain, "update_graph");
  pcgrl::PpoConfig last = speed_test_config();
  last.channels_last = true;
  expect_same_moves(update_moves(last), plain, "channels_last");
  // All the float32 options together (4 Adam steps: the bias corrections change from step to step).
  pcgrl::PpoConfig both = own;
  both.input_channels = 16;
  both.channels_last = true;
  expect_same_moves(update_moves(both), plain, "all float32 options");
}

// bf16 autocast is a CUDA option: refused on the CPU naming it.
TEST(PpoSpeedOptions, Bf16IsRefusedOnTheCpu) {
  pcgrl::PpoConfig c;
  c.bf16 = true;
  EXPECT_THAT([&] { pcgrl::PpoAgent::create(c); },
              ::testing::ThrowsMessage<SetupError>(::testing::HasSubstr("bf16 autocast is a CUDA option")));
}

// `cuda` on a build or machine without it is refused naming the cause; an unknown device too.
TEST(PpoAgent, UnavailableDevicesAreRefusedNamingTheCause) {
  pcgrl::PpoConfig c;
  c.device = "tpu";
  EXPECT_THAT(
      [&] { pcgrl::PpoAgent::create(c); },
      ::testing::ThrowsMessage<SetupError>(::testing::HasSubstr("PPO device 'tpu': expected cpu or cuda")));
  c.device = "cuda";
  try {
    pcgrl::PpoAgent::create(c);
    GTEST_SKIP() << "this build and machine have CUDA";
  } catch (const SetupError& e) {
    const std::string m = e.what();
    EXPECT_THAT(m, ::testing::HasSubstr("PPO agent on device 'cuda': "));
    EXPECT_TRUE(
        m.find("has no CUDA (Debian's libtorch is CPU-only); build pcglab with -DPCGLAB_TORCH_PREFIX") !=
            std::string::npos ||
        m.find("no CUDA device is visible") != std::string::npos)
        << m;
  }
}

// Creating or loading an agent leaves libtorch's global generator as it was (it once reseeded it).
TEST(PpoAgent, CreatingAndLoadingLeaveTheGlobalGeneratorAlone) {
  nn::seed_torch_global_rng(21);
  const double first = nn::draw_torch_global_rng();
  nn::seed_torch_global_rng(21);
  pcgrl::PpoConfig config;
  config.seed = 4;
  const pcgrl::PpoAgent agent = pcgrl::PpoAgent::create(config);
  testing::TempDir dir;
  agent.save(dir / "a.safetensors");
  const pcgrl::PpoAgent loaded = pcgrl::PpoAgent::load(dir / "a.safetensors");
  EXPECT_EQ(nn::draw_torch_global_rng(), first);
  // The same seed still gives the same initial weights, whatever the global generator holds.
  nn::seed_torch_global_rng(99);
  pcgrl::PpoAgent::create(config).save(dir / "b.safetensors");
  EXPECT_EQ(read_file(dir / "a.safetensors"), read_file(dir / "b.safetensors"));
}

// Sizes in a checkpoint's metadata that std::stoi could not hold escaped as "stoi" (out_of_range);
// every malformed size is a SetupError naming the file and the key.
TEST(PpoAgent, MalformedMetadataSizesNameTheFileAndKey) {
  testing::TempDir dir;
  for (const char* bad : {"99999999999", "abc", "12x", "0", "-3", ""}) {
    const fs::path file = dir / "m.safetensors";
    nn::write_safetensors(file, {{"w", {{1}, {1}}}},
                          {{"architecture", "pcglab-pcgrl-ppo-conv-v1"},
                           {"obs_size", "31"},
                           {"tile_channels", bad},
                           {"actions", "8"}});
    try {
      pcgrl::PpoAgent::load(file);
      ADD_FAILURE() << bad << " accepted";
    } catch (const SetupError& e) {
      EXPECT_EQ(
          std::string(e.what()),
          fmt::format("{}: malformed PPO metadata: 'tile_channels' is \"{}\", expected a whole number >= 1",
                      file.string(), bad));
    }
  }
}

// The message of loading `file` as generation does (the agent, then the environment settings);
// "accepted" when both load.
std::string load_error(const fs::path& file) {
  try {
    (void)pcgrl::PpoAgent::load(file);
    (void)pcgrl::checkpoint_env_config(file);
  } catch (const SetupError& e) {
    return e.what();
  }
  return "accepted";
}

// A checkpoint whose metadata said obs_size=63 (weights of that shape) loaded, and generation read
// past the 31² observation bytes of each sample; obs_size 1, 3 and 15 loaded too, actions=7 was an
// "internal error". Every metadata field is now checked against what the dungeon and the network
// take: SetupError naming the file and the field. The fakes are real networks of the bad shapes
// (PpoAgent::create + save) or a good checkpoint rewritten with pcglab's safetensors writer.
TEST(PpoCheckpoint, EveryMetadataFieldTheDungeonCannotTakeIsRefusedNamingFileAndField) {
  testing::TempDir dir;
  struct Shape {
    int obs_size, tile_channels, actions;
    const char* field;
    int value;
  };
  for (const Shape& bad :
       {Shape{63, 9, 6, "obs_size", 63}, Shape{1, 9, 6, "obs_size", 1}, Shape{3, 9, 6, "obs_size", 3},
        Shape{15, 9, 6, "obs_size", 15}, Shape{31, 15, 6, "tile_channels", 15},
        Shape{31, 8, 6, "tile_channels", 8}, Shape{31, 9, 7, "actions", 7}, Shape{31, 9, 2, "actions", 2}}) {
    pcgrl::PpoConfig config;
    config.obs_size = bad.obs_size;
    config.tile_channels = bad.tile_channels;
    config.actions = bad.actions;
    const fs::path file = dir / fmt::format("{}_{}.safetensors", bad.field, bad.value);
    pcgrl::PpoAgent::create(config).save(file);
    const std::string error = load_error(file);
    EXPECT_THAT(error, ::testing::StartsWith(file.string() + ": PPO metadata '" + bad.field + "' is " +
                                             std::to_string(bad.value) + ", but the dungeon"))
        << error;
  }
  // The environment's fields, in a good checkpoint rewritten.
  const fs::path good = dir / "good.safetensors";
  pcgrl::PpoAgent::create({}).save(good, {{"max_board_scans", "3"}, {"reward", "builtin"}});
  ASSERT_EQ(load_error(good), "accepted");
  const nn::SafetensorsFile file = nn::read_safetensors(good);
  for (const auto& [field, value] :
       std::vector<std::pair<std::string, std::string>>{{"max_board_scans", "0"},
                                                        {"max_board_scans", "101"},
                                                        {"max_board_scans", "2000000000"},
                                                        {"max_board_scans", "3x"},
                                                        {"reward", "bogus"},
                                                        {"fix_observation_offset", "2"},
                                                        {"skip_static_cells", "yes"},
                                                        {"show_static_in_first_obs", ""},
                                                        {"env_steps", "-1"},
                                                        {"seed", "x"},
                                                        {"architecture", "something-else"}}) {
    auto meta = file.metadata;
    meta[field] = value;
    const fs::path bad = dir / fmt::format("{}.safetensors", field);
    nn::write_safetensors(bad, file.tensors, meta);
    const std::string error = load_error(bad);
    EXPECT_THAT(error, ::testing::StartsWith(bad.string() + ": ")) << field << "=" << value;
    EXPECT_THAT(error, ::testing::HasSubstr(field == "architecture" ? "architecture '" + value + "'"
                                                                    : "'" + field + "' is"))
        << field << "=" << value << ": " << error;
  }
}

TEST(PpoTraining, SameSeedSameLogAndCheckpoint) {
  pcgrl::TrainConfig config;
  config.n_envs = 4;
  config.rollout = 16;
  config.total_steps = 128;
  config.ppo.epochs = 2;
  config.ppo.minibatches = 2;
  config.seed = 11;
  testing::TempDir dir;
  const auto a = pcgrl::train_ppo(config, dir / "a");
  const auto b = pcgrl::train_ppo(config, dir / "b");
  ASSERT_EQ(a.log.size(), 2u);
  auto without_speed = [](const std::string& csv) {  // steps/s is the only column that may differ
    std::string out;
    size_t start = 0;
    while (start < csv.size()) {
      const size_t end = csv.find('\n', start);
      const std::string line = csv.substr(start, end - start);
      out += line.substr(0, line.rfind(',')) + "\n";
      start = end + 1;
    }
    return out;
  };
  EXPECT_EQ(without_speed(read_file(dir / "a/train_log.csv")),
            without_speed(read_file(dir / "b/train_log.csv")));
  EXPECT_EQ(read_file(a.checkpoint), read_file(b.checkpoint));
  config.seed = 12;
  const auto c = pcgrl::train_ppo(config, dir / "c");
  EXPECT_NE(read_file(a.checkpoint), read_file(c.checkpoint));
}

TEST(PpoTraining, CheckpointsKeepTheEnvironmentSettings) {
  pcgrl::TrainConfig config;
  config.n_envs = 2;
  config.rollout = 8;
  config.total_steps = 32;
  config.checkpoint_every = 16;
  config.ppo.epochs = 1;
  config.ppo.minibatches = 2;
  config.env.skip_static_cells = config.env.fix_observation_offset = true;
  testing::TempDir dir;
  const auto result = pcgrl::train_ppo(config, dir / "run");
  ASSERT_EQ(result.log.size(), 2u);
  EXPECT_TRUE(fs::exists(dir / "run/checkpoints/step_16.safetensors"));
  EXPECT_TRUE(fs::exists(dir / "run/checkpoints/step_32.safetensors"));
  const auto env = pcgrl::checkpoint_env_config(result.checkpoint);
  EXPECT_TRUE(env.skip_static_cells);
  EXPECT_TRUE(env.fix_observation_offset);
  EXPECT_FALSE(env.show_static_in_first_obs);
  EXPECT_EQ(env.max_board_scans, 3);
  EXPECT_TRUE(pcgrl::checkpoint_env_config(dir / "run/checkpoints/step_16.safetensors").skip_static_cells);
  // Generation runs in the settings the agent was trained with.
  const auto agent = pcgrl::PpoAgent::load(result.checkpoint);
  EXPECT_EQ(pcgrl::generate_levels(agent, env, 1, 0, false).levels.size(), 1u);
  nn::write_safetensors(dir / "bad.safetensors", {{"w", {{1}, {1}}}}, {{"skip_static_cells", "yes"}});
  EXPECT_THROW(pcgrl::checkpoint_env_config(dir / "bad.safetensors"), SetupError);
}

// Settings that cannot train are refused before anything runs, naming the option.
TEST(PpoTraining, ImpossibleSettingsAreRefusedUpFront) {
  auto message = [](const pcgrl::TrainConfig& c) {
    try {
      pcgrl::validate_train_config(c);
    } catch (const SetupError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  pcgrl::TrainConfig c;
  c.n_envs = 1;
  c.rollout = 4;  // 4 samples in 4 minibatches: one sample each (its advantage has no spread: NaN)
  EXPECT_EQ(message(c),
            "minibatches of 1 sample: --envs × --rollout (4) / --minibatches (4) must be at least 2 (PPO "
            "normalises "
            "the advantages over a minibatch)");
  c.rollout = 6;
  EXPECT_EQ(message(c), "--envs × --rollout (6) does not split into 4 equal minibatches (--minibatches)");
  c = {};
  c.total_steps = 100;
  EXPECT_EQ(message(c), "--steps 100 is less than one update (--envs × --rollout = 2048 environment steps)");
  c = {};
  c.rollout = 0;
  EXPECT_EQ(message(c), "--rollout is 0: it must be at least 1");
  c = {};
  c.ppo.minibatches = 0;
  EXPECT_EQ(message(c), "--minibatches is 0: it must be at least 1");
  c = {};
  c.ppo.epochs = -1;
  EXPECT_EQ(message(c), "--epochs is -1: it must be at least 1");
  c = {};
  c.ppo.lr = std::nan("");
  EXPECT_EQ(message(c), "--lr is nan: the learning rate must be a positive number");
  EXPECT_EQ(message(pcgrl::TrainConfig{}), "accepted");
  c.ppo.lr = 1e-4;
  // More memory than the machine has: both numbers, before anything is allocated (--envs 4096
  // --rollout 100000 died of bad_alloc in the first rollout). 4·10⁸ samples are ~400 GiB.
  c.n_envs = 4096;
  c.rollout = 100000;
  c.total_steps = int64_t{4096} * 100000;
  EXPECT_THAT(message(c), ::testing::MatchesRegex("training with --envs 4096 × --rollout 100000 \\(409600000 "
                                                  "samples per update, minibatches of 102400000\\) needs "
                                                  "[0-9.]+ GiB, more than this machine's [0-9.]+ GiB of "
                                                  "memory"));
  EXPECT_GT(pcgrl::train_memory_bytes(c), uint64_t{400} << 30);
  c.n_envs = 16;
  c.rollout = 128;
  c.total_steps = 100000;
  EXPECT_LT(pcgrl::train_memory_bytes(c), uint64_t{1} << 30);  // the default: well under 1 GiB
  testing::TempDir dir;
  c.rollout = 0;
  EXPECT_THROW(pcgrl::train_ppo(c, dir / "run"), SetupError);  // train_ppo checks too
  EXPECT_FALSE(fs::exists(dir / "run"));
}

// A learning rate that blows the weights up: training stops at the first non-finite loss or
// weight, keeps the log, and writes no checkpoint (and removes an earlier run's).
TEST(PpoTraining, DivergenceStopsTrainingWithoutACheckpoint) {
  pcgrl::TrainConfig config;
  config.n_envs = 2;
  config.rollout = 8;
  config.total_steps = 16 * 20;
  config.ppo.epochs = 4;
  config.ppo.minibatches = 2;
  config.ppo.lr = 1e30;
  testing::TempDir dir;
  write_file_atomic(dir / "run/checkpoint.safetensors", "an earlier run's");
  const auto result = pcgrl::train_ppo(config, dir / "run");
  ASSERT_FALSE(result.ok());
  EXPECT_LT(result.log.size(), 20u);
  EXPECT_TRUE(result.checkpoint.empty());
  EXPECT_FALSE(fs::exists(dir / "run/checkpoint.safetensors"));
  EXPECT_NE(result.error.find("not finite"), std::string::npos) << result.error;
  EXPECT_NE(result.error.find("no checkpoint written"), std::string::npos) << result.error;
  EXPECT_NE(read_file(dir / "run/train_log.csv").find(fmt::format("\n{},", result.log.size())),
            std::string::npos);
}

TEST(PpoCheckpoint, NonFiniteWeightsAreRefusedNamingTheTensor) {
  testing::TempDir dir;
  nn::write_safetensors(dir / "ok.safetensors", {{"a", {{2}, {1, 2}}}});
  nn::write_safetensors(dir / "nan.safetensors", {{"a", {{2}, {1, 2}}}, {"b", {{2}, {1, std::nanf("")}}}});
  EXPECT_EQ(pcgrl::first_non_finite_tensor(dir / "ok.safetensors"), "");
  EXPECT_EQ(pcgrl::first_non_finite_tensor(dir / "nan.safetensors"), "b");
  EXPECT_NO_THROW(pcgrl::check_checkpoint_weights(dir / "ok.safetensors"));
  try {
    pcgrl::check_checkpoint_weights(dir / "nan.safetensors");
    FAIL();
  } catch (const SetupError& e) {
    EXPECT_EQ(std::string(e.what()),
              (dir / "nan.safetensors").string() +
                  ": weight tensor 'b' has NaN or infinite values (a diverged training); train again");
  }
}

}  // namespace
}  // namespace pcglab
