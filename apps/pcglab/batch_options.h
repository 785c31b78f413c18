// What every batch command of the CLI shares: the --shard option, and the global options that a
// merger (batch/merge.h) prints with when `pcglab merge` runs it.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "batch/shard.h"
#include "command.h"
#include "core/json.h"

namespace pcglab::cli {

// Adds --shard SPEC to a batch command.
void add_shard_option(CLI::App& cmd, std::string& spec);

// The shard of a --shard value (empty: all items).
batch::Shard shard_of(const std::string& spec);

// The input files of a batch command as its settings record them for `pcglab merge` ("inputs"):
// each relative to the run folder `out`, so a merge finds them from any working directory.
std::vector<std::string> inputs_relative_to(const std::string& out, const std::vector<std::string>& files);

// Where a merge of the run folder `dir` reads the recorded files `files`: config["inputs"] resolved
// against `dir` (the files as given when a run of an earlier version recorded none). Throws
// SetupError when the lists do not match.
std::vector<std::string> recorded_inputs(const std::filesystem::path& dir, const Json& config,
                                         const std::vector<std::string>& files);

// The global options of the running `pcglab merge` (valid while a merger runs).
const GlobalOptions& merge_global_options();

}  // namespace pcglab::cli
