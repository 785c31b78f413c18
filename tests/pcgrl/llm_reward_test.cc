// LLM-written rewards in the sandbox (pcgrl/llm_reward.h): batched rewards equal a C++
// computation of the same formula; every way a reward can fail (NaN, an exception on some maps, an
// endless loop, a memory bomb, a syntax error, no compute_reward, an unsupported jax function, a
// hostile program) is a RewardError of the right kind, and the next reward works; training on a
// reward; the random rollouts of validation and self-alignment. Tests that run Python skip when no
// sandbox runs here (as the sandbox tests do); the rollout tests with C++ rewards always run.
#include "pcgrl/llm_reward.h"

#include <cmath>
#include <filesystem>
#include <set>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/files.h"
#include "core/rng.h"
#include "nn/safetensors.h"
#include "pcgrl/ppo_trainer.h"
#include "pcgrl/reward_formula.h"
#include "sandbox/sandbox_testing.h"
#include "testing/testing.h"

namespace pcglab::pcgrl {
namespace {

namespace fs = std::filesystem;
using formula_testing::formula_reward;
using formula_testing::kFormulaReward;
using ::testing::HasSubstr;

// The reward limits with short timeouts and a smaller memory limit, so failures come fast.
sandbox::WorkerConfig test_config() {
  sandbox::WorkerConfig config = default_reward_worker_config();
  config.limits.call_timeout_s = 1.5;
  config.limits.load_timeout_s = 3;
  config.limits.start_timeout_s = 20;
  config.limits.memory_mb = 512;
  return config;
}

std::vector<Map> random_maps(int n, uint64_t seed) {
  Rng rng(seed);
  std::vector<Map> maps(n);
  for (Map& m : maps)
    for (uint8_t& t : m) t = static_cast<uint8_t>(1 + rng.below(8));
  return maps;
}

TEST(SandboxReward, EqualsTheSameFormulaInCpp) {
  PCGLAB_REQUIRE_SANDBOX();
  SandboxReward reward(kFormulaReward, test_config());
  for (int n : {1, 7, 64}) {
    const uint64_t seed = 20261123 + n;
    auto prev = random_maps(n, seed);
    auto curr = prev;
    Rng rng(seed ^ 0x5eed);
    for (Map& m : curr)  // a few edits per map, as steps make (one edit) and more
      for (int e = 0; e < 1 + static_cast<int>(rng.below(20)); ++e)
        m[rng.below(kCells)] = static_cast<uint8_t>(1 + rng.below(8));
    if (n > 1) curr[1][0] = 3;  // vary the player count
    const std::vector<float> got = reward.compute(prev, curr);
    ASSERT_EQ(got.size(), static_cast<size_t>(n));
    for (int i = 0; i < n; ++i)
      EXPECT_EQ(got[i], formula_reward(prev[i], curr[i])) << "seed " << seed << ", environment " << i;
  }
  // The BatchReward form gives the same values.
  const auto maps = random_maps(5, 3);
  std::vector<float> out(5);
  reward.as_batch_reward()(maps.data(), maps.data(), 5, out.data());
  for (int i = 0; i < 5; ++i) EXPECT_EQ(out[i], formula_reward(maps[i], maps[i]));
}

// A reward that works, to check that the next SandboxReward after a failure works.
void expect_next_reward_works() {
  SandboxReward next(kFormulaReward, test_config());
  const auto maps = random_maps(3, 9);
  const auto got = next.compute(maps, maps);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(got[i], formula_reward(maps[i], maps[i]));
}

// The error of loading `code` and computing one batch of `maps` (prev = curr).
RewardError error_of(const std::string& code, const std::vector<Map>& maps = random_maps(4, 1)) {
  try {
    SandboxReward reward(code, test_config());
    reward.compute(maps, maps);
  } catch (const RewardError& e) {
    return e;
  }
  ADD_FAILURE() << "the reward did not fail:\n" << code;
  return RewardError(ErrorKind::kNone, "no error");
}

TEST(SandboxReward, NanRewardNamesTheEnvironment) {
  PCGLAB_REQUIRE_SANDBOX();
  auto maps = random_maps(6, 2);
  for (Map& m : maps) std::replace(m.begin(), m.end(), uint8_t{7}, uint8_t{1});
  maps[4][10] = maps[4][11] = 7;
  const RewardError e = error_of(
      "import jax.numpy as jnp\n"
      "def compute_reward(prev_array, prev_stats, curr_array, curr_stats):\n"
      "    return jnp.where(jnp.sum(curr_array == 7) > 1, jnp.nan, 0.5)\n",
      maps);
  EXPECT_EQ(e.kind(), ErrorKind::kBadInput);
  EXPECT_EQ(e.environment(), 4);
  EXPECT_THAT(e.what(), HasSubstr("compute_reward returned NaN for environment 4 of 6"));
  const RewardError inf = error_of(
      "import jax.numpy as jnp\n"
      "def compute_reward(prev_array, prev_stats, curr_array, curr_stats):\n"
      "    return jnp.log(jnp.sum(curr_array == 9) * 1.0)\n");
  EXPECT_THAT(inf.what(), HasSubstr("returned -inf for environment 0"));
  expect_next_reward_works();
}

TEST(SandboxReward, ExceptionOnSomeMapsFailsTheStepWithTheTraceback) {
  PCGLAB_REQUIRE_SANDBOX();
  // The loop runs as many times as the batch's most keys; its body raises past 20 iterations, so
  // only a batch holding a map with many keys fails.
  const std::string code =
      "import jax.numpy as jnp\nfrom jax import lax\n"
      "def compute_reward(prev_array, prev_stats, curr_array, curr_stats):\n"
      "    seen = []\n"
      "    def body(c):\n"
      "        seen.append(1)\n"
      "        if len(seen) > 20:\n"
      "            raise ValueError('too many keys')\n"
      "        return c + 1\n"
      "    return lax.while_loop(lambda c: c < jnp.sum(curr_array == 7), body, 0) * 1.0\n";
  auto maps = random_maps(3, 5);
  for (Map& m : maps) std::replace(m.begin(), m.end(), uint8_t{7}, uint8_t{1});
  SandboxReward reward(code, test_config());
  maps[2][0] = 7;
  EXPECT_EQ(reward.compute(maps, maps), (std::vector<float>{0, 0, 1}));
  for (int c = 0; c < 30; ++c) maps[1][c] = 7;
  try {
    reward.compute(maps, maps);
    ADD_FAILURE() << "no error";
  } catch (const RewardError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kBadInput);
    EXPECT_EQ(std::string(e.what()), "ValueError: too many keys");
    EXPECT_THAT(e.traceback(), HasSubstr("File \"reward.py\", line 8, in body"));
    EXPECT_THAT(e.describe(), HasSubstr("ValueError: too many keys\n"));
  }
  maps[1] = maps[0];  // the same worker goes on
  EXPECT_EQ(reward.compute(maps, maps), (std::vector<float>{0, 0, 1}));
}

// A reward without a return statement failed with the stand-in's own "AttributeError: 'NoneType'
// object has no attribute '_v'"; the error now says what the reward did.
TEST(SandboxReward, ARewardReturningNoneIsToldSo) {
  PCGLAB_REQUIRE_SANDBOX();
  const RewardError e = error_of(
      "import jax.numpy as jnp\n"
      "def compute_reward(prev_array, prev_stats, curr_array, curr_stats):\n"
      "    reward = jnp.sum(curr_array == 4) * 1.0\n");
  EXPECT_EQ(e.kind(), ErrorKind::kBadInput);
  EXPECT_EQ(std::string(e.what()), "TypeError: reward returned None; expected a number or an array");
  EXPECT_THAT(e.describe(), ::testing::Not(HasSubstr("AttributeError")));
  expect_next_reward_works();
}

// Python's traceback ends with the exception's text, which the message holds: describe() says it
// once (a reward raising a 5 MB message was sent twice to the LLM), keeping the frames.
TEST(RewardErrorText, TheTracebacksRepeatOfTheMessageIsLeftOut) {
  const std::string message = "ValueError: " + std::string(100'000, 'x') + "\nsecond line";
  const std::string traceback =
      "Traceback (most recent call last):\n  File \"reward.py\", line 3, in compute_reward\n"
      "    raise ValueError(m)\n" +
      message + "\n";
  const std::string frames =
      "Traceback (most recent call last):\n  File \"reward.py\", line 3, in compute_reward\n"
      "    raise ValueError(m)";
  EXPECT_EQ(RewardError(ErrorKind::kBadInput, message, traceback).describe(), message + "\n" + frames);
  // A message with context before the exception's text (as the rollouts write it).
  const std::string wrapped = "step 3 of 100 of a random rollout: " + message;
  EXPECT_EQ(RewardError(ErrorKind::kBadInput, wrapped, traceback).describe(), wrapped + "\n" + frames);
  // A traceback that ends otherwise is kept whole; so is one that shares only part of a line.
  EXPECT_EQ(RewardError(ErrorKind::kTimeout, "call timeout of 5 s", "Traceback ...").describe(),
            "call timeout of 5 s\nTraceback ...");
  EXPECT_EQ(RewardError(ErrorKind::kBadInput, "SyntaxError: invalid syntax (reward.py, line 1)",
                        "Traceback:\n  File \"reward.py\", line 1\nSyntaxError: invalid syntax\n")
                .describe(),
            "SyntaxError: invalid syntax (reward.py, line 1)\nTraceback:\n  File \"reward.py\", line "
            "1\nSyntaxError: invalid syntax");
  EXPECT_EQ(RewardError(ErrorKind::kBadInput, "B: same end", "Traceback:\nA: same end\n").describe(),
            "B: same end\nTraceback:\nA: same end");
}

TEST(SandboxReward, EndlessLoopTimesOutAndTheWorkerRecovers) {
  PCGLAB_REQUIRE_SANDBOX();
  const std::string code =
      "def compute_reward(prev_array, prev_stats, curr_array, curr_stats):\n"
      "    while True:\n"
      "        pass\n";
  const RewardError e = error_of(code);
  EXPECT_EQ(e.kind(), ErrorKind::kTimeout);
  EXPECT_THAT(e.what(), HasSubstr("call timeout of 1.5 s"));
  const RewardError at_load = error_of("while True:\n    pass\n");
  EXPECT_EQ(at_load.kind(), ErrorKind::kTimeout);
  expect_next_reward_works();
}

TEST(SandboxReward, MemoryBombHitsTheLimit) {
  PCGLAB_REQUIRE_SANDBOX();
  const RewardError e = error_of(
      "import numpy as np\n"
      "def compute_reward(prev_array, prev_stats, curr_array, curr_stats):\n"
      "    hoard = np.ones(2 * 1024**3, dtype=np.int8)\n"
      "    return 0.0\n");
  EXPECT_EQ(e.kind(), ErrorKind::kLimit);
  EXPECT_THAT(e.what(), HasSubstr("memory limit of 512 MB"));
  expect_next_reward_works();
}

TEST(SandboxReward, CodeThatDoesNotLoadOrDefinesNoComputeReward) {
  PCGLAB_REQUIRE_SANDBOX();
  const RewardError syntax = error_of(
      "import jax.numpy as jnp\n"
      "def compute_reward(prev_array, prev_stats, curr_array, curr_stats)\n"
      "    return 0.0\n");
  EXPECT_EQ(syntax.kind(), ErrorKind::kBadInput);
  EXPECT_THAT(syntax.describe(), HasSubstr("SyntaxError"));
  EXPECT_THAT(syntax.describe(), HasSubstr("reward.py"));
  const RewardError missing = error_of("def reward(prev, curr):\n    return 0.0\n");
  EXPECT_EQ(missing.kind(), ErrorKind::kBadInput);
  EXPECT_EQ(std::string(missing.what()),
            "NameError: the code defines no function compute_reward(prev_array, prev_stats, curr_array, "
            "curr_stats)");
  const RewardError import = error_of("import torch\ndef compute_reward(a, b, c, d):\n    return 0.0\n");
  EXPECT_EQ(import.kind(), ErrorKind::kBadInput);
  EXPECT_THAT(import.what(), HasSubstr("torch"));
  expect_next_reward_works();
}

// A node's programs (RewardSandbox): a program is loaded once and kept, with its state, for every
// later use of the same code; another program gets a fresh worker first, in which nothing of the
// first is left (module state, builtins, /tmp); a load that hangs is the load's timeout.
TEST(RewardSandbox, LoadsEachProgramOnceAndAFreshWorkerForTheNext) {
  PCGLAB_REQUIRE_SANDBOX();
  const std::string a =
      "import builtins\n"
      "builtins.pcglab_left_behind = 'by program a'\n"
      "open('/tmp/left-behind', 'w').write('by program a')\n"
      "calls = [0]\n"
      "def compute_reward(prev_array, prev_stats, curr_array, curr_stats):\n"
      "    calls[0] += 1\n"
      "    return float(calls[0])\n";
  const std::string b =
      "import builtins, os\n"
      "if hasattr(builtins, 'pcglab_left_behind') or os.path.exists('/tmp/left-behind'):\n"
      "    raise RuntimeError('program a left state behind')\n"
      "def compute_reward(prev_array, prev_stats, curr_array, curr_stats):\n"
      "    return 0.5\n";
  const std::vector<Map> maps = random_maps(1, 7);
  RewardSandbox node(test_config());
  SandboxReward& first = node.program(a);
  EXPECT_EQ(first.compute(maps, maps), std::vector<float>{1});
  SandboxReward& again = node.program(a);  // the validation's program, used by the rollout
  EXPECT_EQ(&again, &first);
  EXPECT_EQ(again.compute(maps, maps), std::vector<float>{2});  // not loaded again: its state is kept
  EXPECT_EQ(node.loads(), 1);
  const int starts = node.worker_starts();
  EXPECT_EQ(node.program(b).compute(maps, maps), std::vector<float>{0.5f});
  EXPECT_EQ(node.loads(), 2);
  EXPECT_EQ(node.worker_starts(), starts + 1);
  EXPECT_EQ(node.program(a).compute(maps, maps), std::vector<float>{1});  // loaded afresh
  EXPECT_EQ(node.loads(), 3);
  try {
    node.program("while True:\n    pass\n");
    ADD_FAILURE() << "a load that never ends loaded";
  } catch (const RewardError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kTimeout);
    EXPECT_THAT(e.what(), HasSubstr("the load did not finish within its load timeout of 3 s"));
  }
  EXPECT_EQ(node.program(b).compute(maps, maps), std::vector<float>{0.5f});
}

TEST(SandboxReward, UnsupportedJaxFunctionIsNamed) {
  PCGLAB_REQUIRE_SANDBOX();
  const RewardError e = error_of(
      "import jax.numpy as jnp\n"
      "def compute_reward(prev_array, prev_stats, curr_array, curr_stats):\n"
      "    return jnp.sum(jnp.fft.fft(curr_array[0]).real)\n");
  EXPECT_EQ(e.kind(), ErrorKind::kBadInput);
  EXPECT_THAT(e.what(), HasSubstr("does not support jnp.fft"));
  EXPECT_THAT(e.traceback(), HasSubstr("File \"reward.py\", line 3, in compute_reward"));
  // A construct that jit refuses, refused with JAX's error.
  const RewardError traced = error_of(
      "import jax.numpy as jnp\n"
      "def compute_reward(prev_array, prev_stats, curr_array, curr_stats):\n"
      "    if jnp.sum(curr_array == 7) > 1:\n"
      "        return 1.0\n"
      "    return 0.0\n");
  EXPECT_THAT(traced.what(), HasSubstr("TracerBoolConversionError"));
}

TEST(SandboxReward, HostileRewardStaysInTheSandbox) {
  PCGLAB_REQUIRE_SANDBOX();
  testing::TempDir dir;
  write_file_atomic(dir / "secret.txt", "PCGLAB-REWARD-SECRET");
  const RewardError read = error_of(
      "def compute_reward(prev_array, prev_stats, curr_array, curr_stats):\n"
      "    return len(open('" +
      (dir / "secret.txt").string() + "').read()) * 1.0\n");
  EXPECT_EQ(read.kind(), ErrorKind::kBadInput);
  EXPECT_THAT(read.what(), HasSubstr("FileNotFoundError"));
  EXPECT_THAT(read.describe(), ::testing::Not(HasSubstr("PCGLAB-REWARD-SECRET")));
  // os.system finds no shell in the sandbox: the command never runs; a reward that checks its
  // status fails with the reward's own error.
  const RewardError system = error_of(
      "import os\n"
      "def compute_reward(prev_array, prev_stats, curr_array, curr_stats):\n"
      "    status = os.system('touch " +
      (dir / "pwned").string() +
      "')\n"
      "    if status != 0:\n"
      "        raise OSError('os.system failed with status %d' % status)\n"
      "    return 0.0\n");
  EXPECT_EQ(system.kind(), ErrorKind::kBadInput);
  EXPECT_THAT(system.what(), HasSubstr("os.system failed"));
  const RewardError kill = error_of(
      "import os, signal\n"
      "def compute_reward(prev_array, prev_stats, curr_array, curr_stats):\n"
      "    os.kill(os.getpid(), signal.SIGKILL)\n");
  EXPECT_EQ(kill.kind(), ErrorKind::kCrash);
  EXPECT_FALSE(fs::exists(dir / "pwned"));
  EXPECT_EQ(read_file(dir / "secret.txt"), "PCGLAB-REWARD-SECRET");
  expect_next_reward_works();
}

TEST(SandboxReward, BenchmarkRewardPassesTheValidationRollout) {
  PCGLAB_REQUIRE_SANDBOX();
  SandboxReward reward(read_file(testing::source_dir() / "tests/pcgrl/data/reward_30ops.py"), test_config());
  EXPECT_NO_THROW(validate_reward(reward.as_batch_reward(), EnvConfig{}, 4, 1));
  const RolloutRewards r = random_rollout(reward.as_batch_reward(), EnvConfig{}, 4, 50, 2);
  EXPECT_LT(r.zero_percent, 100.0);  // the reward reacts to edits
  EXPECT_GT(r.std, 0.0);
}

// ---- rollouts (C++ rewards: no sandbox needed) ----------------------------------------------------

TEST(RandomRollout, TerminalStepGetsZeroAndStatsAreOverAllSteps) {
  int calls = 0;
  const BatchReward one = [&](const Map*, const Map*, int n, float* rewards) {
    ++calls;
    std::fill(rewards, rewards + n, 1.0f);
  };
  const RolloutRewards r = random_rollout(one, EnvConfig{}, 3, kAlignmentSteps + 2, 7);
  ASSERT_EQ(r.rewards.size(), 3u * (kAlignmentSteps + 2));
  for (int s = 0; s < kAlignmentSteps + 2; ++s)
    for (int i = 0; i < 3; ++i)
      EXPECT_EQ(r.rewards[static_cast<size_t>(s) * 3 + i], s == kAlignmentSteps - 1 ? 0.0f : 1.0f) << s;
  EXPECT_EQ(calls, kAlignmentSteps + 1);  // the terminal step makes no call
  const double n = 3.0 * (kAlignmentSteps + 2);
  EXPECT_DOUBLE_EQ(r.mean, (n - 3) / n);
  EXPECT_DOUBLE_EQ(r.zero_percent, 300.0 / n);
}

TEST(RandomRollout, StatsLineHasTheOfficialFormat) {
  RolloutRewards r;
  r.mean = 0.5;
  r.std = 0.5;
  r.zero_percent = 50;
  EXPECT_EQ(r.stats_line(), "Mean: 0.500000, Std: 0.500000, Zero Value Percent: 50.0000%");
  const BatchReward half = [](const Map*, const Map*, int n, float* rewards) {
    for (int i = 0; i < n; ++i) rewards[i] = static_cast<float>(i % 2);
  };
  const RolloutRewards two = random_rollout(half, EnvConfig{}, 2, 10, 1);
  EXPECT_EQ(two.stats_line(), "Mean: 0.500000, Std: 0.500000, Zero Value Percent: 50.0000%");
}

// The tile written by each environment's step (0 when the map did not change).
const BatchReward kWrittenTile = [](const Map* prev, const Map* curr, int n, float* rewards) {
  for (int i = 0; i < n; ++i) {
    rewards[i] = 0;
    for (int c = 0; c < kCells; ++c)
      if (prev[i][c] != curr[i][c]) rewards[i] = curr[i][c];
  }
};

TEST(RandomRollout, IsDeterministicAndConstantActionsRepeatOneAction) {
  const RolloutRewards a = random_rollout(kWrittenTile, EnvConfig{}, 4, 300, 11);
  const RolloutRewards b = random_rollout(kWrittenTile, EnvConfig{}, 4, 300, 11);
  EXPECT_EQ(a.rewards, b.rewards);
  EXPECT_NE(a.rewards, random_rollout(kWrittenTile, EnvConfig{}, 4, 300, 12).rewards);
  const RolloutRewards c = random_rollout(kWrittenTile, EnvConfig{}, 8, 300, 11, true);
  EXPECT_EQ(c.rewards, random_rollout(kWrittenTile, EnvConfig{}, 8, 300, 11, true).rewards);
  std::set<float> all_tiles;
  for (int i = 0; i < 8; ++i) {
    std::set<float> random_tiles, constant_tiles;
    for (int s = 0; s < 300; ++s) {
      if (i < 4 && a.rewards[static_cast<size_t>(s) * 4 + i] != 0) random_tiles.insert(a.rewards[s * 4 + i]);
      if (c.rewards[static_cast<size_t>(s) * 8 + i] != 0) constant_tiles.insert(c.rewards[s * 8 + i]);
    }
    EXPECT_LE(constant_tiles.size(), 1u) << "environment " << i;  // one action: one tile written
    if (i < 4) {
      EXPECT_GT(random_tiles.size(), 3u) << "environment " << i;
    }
    all_tiles.insert(constant_tiles.begin(), constant_tiles.end());
  }
  EXPECT_GT(all_tiles.size(), 1u);  // the environments drew different actions
}

TEST(RandomRollout, RewardErrorNamesTheStep) {
  int calls = 0;
  const BatchReward failing = [&](const Map*, const Map*, int n, float* rewards) {
    if (++calls == 42) throw RewardError(ErrorKind::kTimeout, "call timeout of 5 s", "Traceback ...");
    std::fill(rewards, rewards + n, 0.0f);
  };
  try {
    validate_reward(failing, EnvConfig{}, 2, 0);
    ADD_FAILURE() << "no error";
  } catch (const RewardError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kTimeout);
    EXPECT_EQ(std::string(e.what()), "step 42 of 100 of a random rollout: call timeout of 5 s");
    EXPECT_EQ(e.describe(), "step 42 of 100 of a random rollout: call timeout of 5 s\nTraceback ...");
  }
}

// ---- training ----------------------------------------------------------------------------------

// Two updates of two environments; episodes of one board scan (256 steps) end with update 2.
TrainConfig tiny_training(int rollout) {
  TrainConfig config;
  config.n_envs = 2;
  config.rollout = rollout;
  config.total_steps = 2 * 2 * rollout;
  config.ppo.epochs = 1;
  config.ppo.minibatches = 2;
  config.seed = 3;
  config.env.max_board_scans = 1;
  return config;
}

TEST(TrainWithLlmReward, ConstantRewardGivesMaxStepsMinusOnePerEpisode) {
  PCGLAB_REQUIRE_SANDBOX();
  SandboxReward reward(
      "import jax.numpy as jnp\n"
      "def compute_reward(prev_array, prev_stats, curr_array, curr_stats):\n"
      "    return jnp.array(1.0)\n",
      test_config());
  TrainConfig config = tiny_training(kCells / 2);
  config.reward = reward.as_batch_reward();
  testing::TempDir dir;
  const TrainResult result = train_ppo(config, dir / "run");
  ASSERT_TRUE(result.ok()) << result.error;
  ASSERT_EQ(result.log.size(), 2u);
  EXPECT_EQ(result.log[0].episodes, 0);
  EXPECT_EQ(result.log[1].episodes, 2);
  EXPECT_EQ(result.log[1].mean_return, kCells - 1);  // max_steps − 1: the terminal step gets 0
  const auto meta = nn::read_safetensors(result.checkpoint).metadata;
  EXPECT_EQ(meta.at("reward"), "llm");
  EXPECT_FALSE(checkpoint_env_config(result.checkpoint).builtin_reward);
}

TEST(TrainWithLlmReward, FailingRewardStopsTrainingWithItsKind) {
  PCGLAB_REQUIRE_SANDBOX();
  SandboxReward reward(
      "calls = [0]\n"
      "def compute_reward(prev_array, prev_stats, curr_array, curr_stats):\n"
      "    calls[0] += 1\n"
      "    if calls[0] > 37:\n"
      "        raise ZeroDivisionError('division by zero')\n"
      "    return curr_array.sum() * 0.0\n",
      test_config());
  TrainConfig config = tiny_training(32);
  config.reward = reward.as_batch_reward();
  testing::TempDir dir;
  write_file_atomic(dir / "run" / "checkpoint.safetensors", "an earlier run's");
  const TrainResult result = train_ppo(config, dir / "run");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error_kind, ErrorKind::kBadInput);
  EXPECT_THAT(
      result.error,
      HasSubstr("update 2, step 6 of 32: the reward failed (bad-input): ZeroDivisionError: division by "
                "zero; training stopped"));
  EXPECT_THAT(result.reward_error, HasSubstr("File \"reward.py\", line 5, in compute_reward"));
  EXPECT_EQ(result.log.size(), 1u);  // the finished update is kept
  EXPECT_TRUE(result.checkpoint.empty());
  EXPECT_FALSE(fs::exists(dir / "run" / "checkpoint.safetensors"));
  const std::string csv = read_file(dir / "run" / "train_log.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 2);  // header and update 1
}

}  // namespace
}  // namespace pcglab::pcgrl
