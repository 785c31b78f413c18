// `pcglab textgame report DIR`: one self-contained HTML page of an experiment folder (no external
// resource, no script): the summary tables of textgame/eval.h, and per game the validity flags of
// every version with their error text, the judgements with their votes, one stored trajectory and
// the line diff of each reflection (<name>_generation_v0.py → _v1.py → …). Everything read from the
// folder — game code, replies, errors — is HTML-escaped: generated code is hostile text.
#pragma once

#include <string>

#include "textgame/eval.h"

namespace pcglab::textgame {

// The page. Reads the version files under eval.dir/revised_games/ (a missing one is shown as
// missing); never runs a game.
std::string experiment_report_html(const ExperimentEval& eval);

}  // namespace pcglab::textgame
