// The text half of the pipeline over the competition layout: raw responses -> extracted code
// (<team>/intermediate) -> levels (<team>/levels), as the official scripts do, for many teams at once.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "birds/converter.h"
#include "core/thread_pool.h"

namespace pcglab::birds {

struct ConvertOptions {
  std::string function = "drop_block";
  ConverterVersion converter = ConverterVersion::k1_4_1;
};

struct TrialConversion {
  std::string team;
  std::string character;
  std::string stem;
  // "ok", "no-code", "conversion-error"; "read-error" (unreadable, or over kMaxResponseBytes),
  // "write-error", "error" (anything unexpected), "internal-error" (a bug in pcglab)
  std::string status;
  std::string error;  // the official message ("Code not found.", "Height boundary is intruded.", ...) or ours
  std::string detail;  // for no-code: why (from the extraction diagnostics)
  int blocks = 0;
};

// Converts every raw response of every team under `dir`. Writes the intermediate and level files
// atomically, and `<team>/logs/convert.json` with every trial's outcome. A stale level of a trial
// that now fails is removed, so the folder always matches the responses. Each trial is one item
// (core/item_boundary.h): whatever fails in it is its error and the batch goes on; only a
// SetupError (no team folder) stops it. Files outside the layout are left out with a warning.
// `on_done` is called once per trial (from worker threads) for progress reporting.
std::vector<TrialConversion> convert_competition(
    const std::filesystem::path& dir, const ConvertOptions& options, ThreadPool& pool,
    const std::function<void(const TrialConversion&)>& on_done = {});

}  // namespace pcglab::birds
