// The HTML report of a Science Birds run (`pcglab birds report`): one self-contained page with,
// per team, the run's model and prompt, overall scores, a chart of the per-letter scores, the
// failed trials and why, and per letter a section (id "letter-A") with the level images and their
// stability, similarity and score, and the letter's diversity and score. Missing stages are shown
// as "not evaluated". Every text from the run's files is escaped.
#pragma once

#include <filesystem>
#include <string>

#include "birds/report/birds_run.h"

namespace pcglab::birds {

// The id of a letter's section: "letter-A" when the report has one team, else "<team>-letter-A"
// (the team name reduced to [A-Za-z0-9_-]).
std::string birds_letter_id(const BirdsRun& run, const BirdsTeam& team, const std::string& letter);

// The complete page (deterministic: no dates, the same run gives the same bytes). Folders are
// shown relative to the folder of `report_file` (the run's folder when empty), and the recorded
// failure reasons have the run's absolute folder replaced the same way, so the page names no
// absolute path and keeps its bytes when the whole folder moves.
std::string birds_report_html(const BirdsRun& run, const std::filesystem::path& report_file = {});

}  // namespace pcglab::birds
