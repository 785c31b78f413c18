// Sweep files and plans (sweep/sweep_file.h): the grid, the a..b ranges, run folders named from
// their settings, placeholders, array tasks per shard, and errors that name the file and line.
#include "sweep/sweep_file.h"

#include <gtest/gtest.h>

#include "core/check.h"
#include "core/files.h"
#include "testing/testing.h"

namespace pcglab::sweep {
namespace {
namespace fs = std::filesystem;

std::string setup_error(const fs::path& file) {
  try {
    make_plan(read_sweep_file(file));
  } catch (const SetupError& e) {
    return e.what();
  }
  return "no error";
}

TEST(SweepFile, GridRangesNamesPlaceholdersAndTasks) {
  testing::TempDir dir;
  write_file_atomic(dir / "s.yaml",
                    "# PCGRLLM-like grid\n"
                    "name: demo\n"
                    "command: pcgrl refine --out {out} --pe {pe}\n"
                    "out: runs\n"
                    "shards: 2\n"
                    "grid:\n"
                    "  scenario: [1, 2]\n"
                    "  pe: [cot, tot]\n"
                    "  seed: [0..2]   # a range\n"
                    "options:\n"
                    "  verbose: true\n"
                    "  quiet: false\n"
                    "  steps: 64\n");
  const Plan plan = make_plan(read_sweep_file(dir / "s.yaml"));
  EXPECT_EQ(plan.spec.name, "demo");
  EXPECT_EQ(plan.spec.out, dir / "runs");
  ASSERT_EQ(plan.runs.size(), 12u);
  ASSERT_EQ(plan.tasks.size(), 24u);
  const sweep::Run& first = plan.runs[0];
  EXPECT_EQ(first.name, "scenario-1_pe-cot_seed-0");
  EXPECT_EQ(first.out, dir / "runs/scenario-1_pe-cot_seed-0");
  EXPECT_EQ(first.args,
            (std::vector<std::string>{"pcgrl", "refine", "--out", first.out.string(), "--pe", "cot",
                                      "--scenario", "1", "--seed", "0", "--verbose", "--steps", "64"}));
  EXPECT_EQ(plan.runs[1].name, "scenario-1_pe-cot_seed-1");  // the last key varies fastest
  EXPECT_EQ(plan.runs[11].name, "scenario-2_pe-tot_seed-2");
  EXPECT_EQ(plan.tasks[3].run, 1u);
  EXPECT_EQ(plan.tasks[3].shard, 2);
  EXPECT_EQ(plan.tasks[3].args.back(), "2/2");
  const Table t = plan_table(plan);
  EXPECT_EQ(t.rows.size(), 12u);
  EXPECT_EQ(cell_text(t.rows[1][3]), "2-3");
}

TEST(SweepFile, ACommandLineIsOneRunInItsFolder) {
  const Plan plan = make_plan(sweep_of_command({"pcglab", "birds", "eval", "comp"}, "comp", 4));
  ASSERT_EQ(plan.runs.size(), 1u);
  EXPECT_EQ(plan.runs[0].out, fs::absolute("comp").lexically_normal());
  ASSERT_EQ(plan.tasks.size(), 4u);
  EXPECT_EQ(plan.tasks[0].args,
            (std::vector<std::string>{"birds", "eval", plan.runs[0].out.string(), "--shard", "1/4"}));
  EXPECT_THROW(make_plan(sweep_of_command({"birds", "eval", "x"}, "comp", 1)), SetupError);  // no {out}
}

TEST(SweepFile, EveryErrorNamesTheFileAndLine) {
  testing::TempDir dir;
  const auto error_of = [&](const std::string& text) {
    write_file_atomic(dir / "bad.yaml", text);
    return setup_error(dir / "bad.yaml");
  };
  const std::string file = (dir / "bad.yaml").string();
  EXPECT_EQ(error_of("command: x {out}\nout: o\ncolour: red\n"),
            file + ":3: unknown key 'colour' (a sweep file has name, command, out, shards, grid, options)");
  EXPECT_EQ(error_of("command: x {out}\nout: o\ngrid:\n  seed: [4..2]\n"),
            file + ":4: grid seed: range 4..2 is empty (write a..b with a <= b)");
  EXPECT_EQ(error_of("command: x {out}\nout: o\nshards: 0\n"),
            file + ":3: shards '0' is not a whole number in [1, 10000]");
  EXPECT_EQ(error_of("command: x {out}\nout: o\ngrid:\n  seed: [[1, 2]]\n"),
            file + ":4: grid value of seed must be a single value (a scalar)");
  EXPECT_EQ(error_of("command: x {out}\nout: [o]\n"), file + ":2: out must be a single value (a scalar)");
  EXPECT_EQ(error_of("out: o\n"), file + ":1: no command (e.g. command: pcgrl train -o {out})");
  EXPECT_EQ(error_of("command: x\nout: o\n"),
            "sweep bad: the command 'x' has no {out}: each run needs its own folder (e.g. -o {out})");
  EXPECT_EQ(error_of("command: x {out}\nout: o\ngrid:\n  a: [1, '1']\n"),
            "sweep bad: two runs are named a-1 (make the grid's values differ)");
  EXPECT_NE(error_of("command: [x\n").find(file + ":"), std::string::npos);
  EXPECT_EQ(setup_error(dir / "none.yaml"), (dir / "none.yaml").string() + ": cannot read the sweep file");
}

}  // namespace
}  // namespace pcglab::sweep
