// Shared by `birds eval` and `birds run --eval`.
#pragma once

#include "birds/eval_pipeline.h"
#include "core/table.h"

namespace pcglab::cli {

// rank, team, normalized_prompt_score, prompt_score, failed_trials (per team) of an evaluation.
Table eval_ranking_table(const birds::EvalReport& report);

}  // namespace pcglab::cli
