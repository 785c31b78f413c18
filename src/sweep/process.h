// Child processes for sweeps: sbatch and squeue with their output, and the local engine's workers.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace pcglab::sweep {

struct ProcessResult {
  int exit_code = -1;  // 128 + signal when killed by a signal; 127 when the program was not found
  std::string out, err;
};

// Runs `argv` (argv[0] looked up on PATH) with `env` added to this process's environment and waits.
ProcessResult run_process(const std::vector<std::string>& argv,
                          const std::map<std::string, std::string>& env = {});

// Starts `argv` with stdout and stderr appended to `log`; returns its PID.
int start_process(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                  const std::filesystem::path& log);

// Waits for any started child; returns {pid, exit code as in ProcessResult}.
std::pair<int, int> wait_any();

}  // namespace pcglab::sweep
