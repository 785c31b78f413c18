// The jax stand-in for LLM-written rewards: its Python checks (semantics against numpy on seeded
// random maps, .at[] updates, lax, the refused constructs, 18 accepted and 13 refused rewards)
// run under the interpreter the sandbox uses; and the copy embedded in the binary is the file.
#include "pcgrl/jax_standin.h"

#include <gtest/gtest.h>

#include "core/files.h"
#include "testing/testing.h"

namespace pcglab::pcgrl {
namespace {

TEST(JaxStandin, PythonChecksPass) {
  const auto script = testing::source_dir() / "tests" / "pcgrl" / "jax_standin_check.py";
  const auto r = testing::run_program({"/usr/bin/python3", script.string()});
  // On failure the script prints every failed check and the seed to rerun it with (--seed N).
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("checks passed"), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.out.find("18 accepted and 13 refused rewards"), std::string::npos) << r.out;
}

TEST(JaxStandin, PythonChecksPassForOtherSeeds) {
  const auto script = testing::source_dir() / "tests" / "pcgrl" / "jax_standin_check.py";
  for (const char* seed : {"1", "77"}) {
    const auto r = testing::run_program({"/usr/bin/python3", script.string(), "--seed", seed});
    EXPECT_EQ(r.exit_code, 0) << "seed " << seed << "\n" << r.out << r.err;
  }
}

TEST(JaxStandin, EmbeddedSourceIsTheRepositoryFile) {
  const auto file = read_file(testing::source_dir() / "src" / "pcgrl" / "python" / "jax_standin.py");
  EXPECT_EQ(jax_standin_source(), file) << "rerun cmake: the embedded stand-in is stale";
  EXPECT_EQ(kJaxModuleName, "jax");
}

TEST(JaxStandin, EmbeddedSourceRunsTheAdapterOverABatch) {
  // What the sandbox does: the source executed as module `jax`, then the generated code with the
  // adapter appended, called with a batch of maps.
  testing::TempDir dir;
  write_file_atomic(dir / "standin.py", std::string(jax_standin_source()));
  const std::string reward =
      "import jax.numpy as jnp\n"
      "def compute_reward(prev_array, unused3, curr_array, unused4):\n"
      "    return (jnp.sum(curr_array == 7) - jnp.sum(prev_array == 7)) * 0.5\n" +
      std::string(kRewardBatchAdapter);
  write_file_atomic(dir / "reward.py", reward);
  const std::string driver =
      "import sys, types, numpy as np\n"
      "m = types.ModuleType('jax'); m.__path__ = []; sys.modules['jax'] = m\n"
      "exec(compile(open(sys.argv[1]).read(), '<preload jax>', 'exec'), m.__dict__)\n"
      "g = {}\n"
      "exec(compile(open(sys.argv[2]).read(), '<generated>', 'exec'), g)\n"
      "prev = np.ones((3, 16, 16), np.int32); curr = prev.copy()\n"
      "curr[1, 2, 2] = 7; curr[2, :2, 0] = 7\n"
      "r = g['pcglab_reward_batch'](prev, curr)\n"
      "print(r.dtype, r.tolist())\n";
  write_file_atomic(dir / "driver.py", driver);
  const auto r = testing::run_program({"/usr/bin/python3", (dir / "driver.py").string(),
                                       (dir / "standin.py").string(), (dir / "reward.py").string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "float32 [0.0, 0.5, 1.0]\n");

  // Code without compute_reward: an error that says what is missing (fed back to the LLM).
  write_file_atomic(dir / "reward.py",
                    "def reward(a, b):\n    return 0.0\n" + std::string(kRewardBatchAdapter));
  const auto missing = testing::run_program({"/usr/bin/python3", (dir / "driver.py").string(),
                                             (dir / "standin.py").string(), (dir / "reward.py").string()});
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_NE(missing.err.find("NameError: the code defines no function compute_reward(prev_array, prev_stats, "
                             "curr_array, curr_stats)"),
            std::string::npos)
      << missing.err;
}

}  // namespace
}  // namespace pcglab::pcgrl
