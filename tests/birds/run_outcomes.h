// The trials' outcomes a `birds run` recorded in its team's store (the batch driver's stage "run"),
// for the run tests.
#pragma once

#include <filesystem>
#include <vector>

#include "batch/item_outcome.h"
#include "core/json.h"
#include "store/run_store.h"

namespace pcglab::testing {

inline std::vector<ItemOutcome> trial_outcomes(const std::filesystem::path& team_dir) {
  std::vector<ItemOutcome> out;
  store::RunStore st(team_dir / "logs" / "batch.sqlite");
  for (const auto& row : st.outcomes("run"))
    out.push_back(ItemOutcome::from_json(parse_json(row.outcome, row.key)));
  return out;
}

}  // namespace pcglab::testing
