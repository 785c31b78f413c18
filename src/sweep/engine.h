// Running a sweep's plan (sweep_file.h): as one Slurm job array plus a dependent merge job
// (`--engine slurm`), or as worker processes on this machine (`--engine local`); watching it and
// resubmitting what failed. Knows no track: every task is a pcglab command line, and the merge job
// runs `pcglab merge` on each sharded run's folder.
//
// The sweep's folder (--dir) holds everything it writes besides the runs' own folders:
//   sweep.json            the plan's tasks, the options and every submission (array and merge job ids)
//   task.sh, merge.sh     the batch scripts (task.sh runs task $SLURM_ARRAY_TASK_ID)
//   logs/task-<i>.log     each task's output; logs/merge.log, logs/merge-<run>.log
//   exit/task-<i>         a finished task's exit code (written by task.sh, removed when it starts)
//   failures.json         written by the merge job: the tasks that failed (exit code, log) and the merges
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/table.h"
#include "sweep/sweep_file.h"

namespace pcglab::sweep {

struct SubmitOptions {
  std::string engine = "slurm";  // slurm | local
  int throttle = 0;              // at most this many tasks at once (0: no limit)
  std::string time;              // --time for each task ("" : the partition's default)
  std::string partition;
  int gpus_per_task = 0;
  int workers = 0;  // local: worker processes (0: one per core, at most the tasks)
  bool dry_run = false;
  std::filesystem::path dir;     // the sweep's folder
  std::filesystem::path pcglab;  // the pcglab executable the tasks run
};

// The two batch scripts of a plan.
struct Scripts {
  std::string task, merge;
};
Scripts make_scripts(const Plan& plan, const SubmitOptions& options);

// Submits (slurm) or runs (local) the plan. A dry run prints the scripts and the commands it would
// run on `report` and touches nothing. Returns the exit code: 0 submitted (slurm) or every task and
// merge ok (local), 1 some failed (local).
int submit(const Plan& plan, const SubmitOptions& options, std::string& report);

// Every task and each sharded run's merge: state (pending, running, done, failed, missing), exit
// code, items ok and failed from the run store, log.
Table sweep_status(const std::filesystem::path& dir);

// Submits again only the tasks that failed or are missing (neither done nor pending nor running),
// then a merge job; each resumes from its run store. Returns the exit code as submit.
int resubmit(const std::filesystem::path& dir, bool dry_run, std::string& report);

// The merge job's work: `pcglab merge` on every sharded run whose shards all finished, and
// failures.json. Returns 0 when every task and merge succeeded, else 1.
int collect(const std::filesystem::path& dir);

}  // namespace pcglab::sweep
