// The text half of the pipeline over the competition layout: raw responses -> extracted code
// (<team>/intermediate) -> levels (<team>/levels), as the official scripts do, for many teams at
// once. The convert stage runs on the batch driver (batch/driver.h): each trial is one item, keyed
// "<team>/<C>/<stem>", hashed over its response and the options, so a rerun converts only the
// responses that changed and removes the files of responses that are gone.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "batch/driver.h"
#include "batch/item_outcome.h"
#include "birds/competition_layout.h"
#include "birds/converter.h"

namespace pcglab::birds {

struct ConvertOptions {
  std::string function = "drop_block";
  ConverterVersion converter = ConverterVersion::k1_4_1;
};

// A trial's key in every stage: "<team>/<C>/<stem>" (the shard split uses it, so a trial's
// conversion, simulation and classification land in the same shard).
std::string trial_key(const std::string& team, const std::string& character, const std::string& stem);
struct TrialKey {
  std::string team, character, stem;
};
TrialKey parse_trial_key(const std::string& key);

// Converts one trial (writing its intermediate and level files; a failed trial has none, as with
// the official scripts). Outcome: ok with metadata {"blocks"}; no-output ("Code not found.",
// metadata {"official_error", "detail"}); bad-input (a conversion error: {"official_error"}, or an
// unreadable or oversized response); io (a file that cannot be written).
ItemOutcome convert_trial(const std::filesystem::path& team_dir, const TrialFile& file,
                          const ConvertOptions& options);

// The log status of a conversion, as <team>/logs/convert.json has always said it: "ok", "no-code",
// "conversion-error", "read-error", "write-error", "internal-error" or "error".
std::string conversion_status(const ItemOutcome& outcome);

// The convert stage over `teams`: every <team>/raw/<C>/*.txt of the driver's shard. Unsharded, it
// writes <team>/logs/convert.json (every trial, by character then trial number). Files outside the
// layout are left out with a warning; only a SetupError (no team folder) stops it.
batch::StageRun convert_stage(batch::Driver& driver, const std::vector<std::filesystem::path>& teams,
                              const ConvertOptions& options);

}  // namespace pcglab::birds
