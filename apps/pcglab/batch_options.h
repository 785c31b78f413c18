// What every batch command of the CLI shares: the --shard option, and the global options that a
// merger (batch/merge.h) prints with when `pcglab merge` runs it.
#pragma once

#include <string>

#include "batch/shard.h"
#include "command.h"

namespace pcglab::cli {

// Adds --shard SPEC to a batch command.
void add_shard_option(CLI::App& cmd, std::string& spec);

// The shard of a --shard value (empty: all items).
batch::Shard shard_of(const std::string& spec);

// The global options of the running `pcglab merge` (valid while a merger runs).
const GlobalOptions& merge_global_options();

}  // namespace pcglab::cli
