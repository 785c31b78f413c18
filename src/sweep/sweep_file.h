// Sweep files: a pcglab command and a grid of settings, expanded into runs (one output folder per
// run, named from its settings) and array tasks (each run's shards). Knows no track: a run is a
// pcglab command line. docs/cluster.md describes the file.
//
//   name: refine-grid          # optional; the file's stem by default
//   command: pcgrl train -o {out} --reward builtin   # or a list of words
//   out: runs                  # the sweep's root (relative to the file's folder)
//   shards: 1                  # shards of each run (--shard i/n; `pcglab merge` completes them)
//   grid:                      # every combination is a run: runs/<key>-<value>_.../
//     seed: [0..2]             # a..b: the integers a to b
//     envs: [4, 8]
//   options:                   # the same for every run
//     steps: 64
//
// `{out}` is replaced by the run's folder and `{key}` by the run's value of grid key or option
// `key`; every grid key and option not used as a placeholder is appended as `--key value` (`true`:
// `--key` alone, `false`: left out).
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "core/table.h"

namespace pcglab::sweep {

struct GridAxis {
  std::string key;
  std::vector<std::string> values;
};

struct SweepSpec {
  std::string name;
  std::vector<std::string> command;  // pcglab's arguments, with placeholders
  std::vector<GridAxis> grid;
  std::vector<std::pair<std::string, std::string>> options;
  std::filesystem::path out;  // absolute
  int shards = 1;
};

struct Run {
  std::string name;  // "" for a sweep without a grid (its one run's folder is the sweep's out)
  std::vector<std::pair<std::string, std::string>> settings;
  std::filesystem::path out;
  std::vector<std::string> args;  // pcglab's arguments, placeholders replaced
};

// One array task: shard `shard` of `shards` of one run.
struct Task {
  int index = 0;  // the array index, 0-based
  size_t run = 0;
  int shard = 1, shards = 1;
  std::vector<std::string> args;  // the run's args, plus --shard i/n when shards > 1
};

struct Plan {
  SweepSpec spec;
  std::vector<Run> runs;
  std::vector<Task> tasks;
};

// Reads a sweep file: YAML (block and flow maps and lists, scalars, comments). Throws SetupError
// "FILE:LINE: cause" for anything outside the format above.
SweepSpec read_sweep_file(const std::filesystem::path& file);

// The sweep of one command line (`pcglab sweep submit -- CMD`): one run in `out`; a word of
// `command` equal to `out` as given stands for {out}.
SweepSpec sweep_of_command(std::vector<std::string> command, const std::string& out, int shards);

// Expands the grid. Throws SetupError when two runs get the same folder or the command has no {out}.
Plan make_plan(SweepSpec spec);

// run, settings, folder, tasks (array indices), command.
Table plan_table(const Plan& plan);

// "key-value_key-value" with every character but [A-Za-z0-9.+-] in values replaced by '_'.
std::string run_name(const std::vector<std::pair<std::string, std::string>>& settings);

}  // namespace pcglab::sweep
