#include "birds/text_pipeline.h"

#include <map>

#include <fmt/format.h>

#include "birds/competition_layout.h"
#include "birds/extract.h"
#include "core/files.h"
#include "core/item_boundary.h"
#include "core/json.h"

namespace pcglab::birds {
namespace fs = std::filesystem;

namespace {

// Removes a trial's intermediate and level files (a failed trial has none, as with the official scripts).
void remove_outputs(const fs::path& team_dir, const TrialFile& f) {
  std::error_code ec;
  fs::remove(stage_path(team_dir, "intermediate", f.character, f.stem, ".txt"), ec);
  fs::remove(stage_path(team_dir, "levels", f.character, f.stem, ".xml"), ec);
}

TrialConversion convert_trial(const fs::path& team_dir, const TrialFile& f, const ConvertOptions& options) {
  TrialConversion t{f.team, f.character, f.stem, "ok", "", "", 0};
  const Result<std::string> raw = read_response_file(f.path);
  if (!raw.ok()) {
    remove_outputs(team_dir, f);
    t.status = "read-error";
    t.error = raw.error().describe();
    return t;
  }
  const ExtractionReport report = diagnose_extraction(raw.value(), options.function);
  if (!report.code) {
    remove_outputs(team_dir, f);
    t.status = "no-code";
    t.error = "Code not found.";
    t.detail = report.no_code_reason;
    return t;
  }
  auto level = convert_program(*report.code, options.function, f.stem, options.converter);
  try {
    write_file_atomic(stage_path(team_dir, "intermediate", f.character, f.stem, ".txt"), *report.code);
    if (!level.ok()) {
      std::error_code ec;
      fs::remove(stage_path(team_dir, "levels", f.character, f.stem, ".xml"), ec);
      t.status = "conversion-error";
      t.error = level.error().message;
      return t;
    }
    write_file_atomic(stage_path(team_dir, "levels", f.character, f.stem, ".xml"), level.value().xml);
  } catch (const SetupError& e) {  // a file that cannot be written: this trial's error
    remove_outputs(team_dir, f);
    t.status = "write-error";
    t.error = e.what();
    return t;
  }
  t.blocks = static_cast<int>(level.value().blocks.size());
  return t;
}

}  // namespace

std::vector<TrialConversion> convert_competition(const fs::path& dir, const ConvertOptions& options,
                                                 ThreadPool& pool,
                                                 const std::function<void(const TrialConversion&)>& on_done) {
  std::vector<std::pair<fs::path, TrialFile>> work;
  for (const fs::path& team : find_team_folders(dir, "raw")) {
    for (TrialFile& f : list_stage_files(team, "raw", ".txt")) work.emplace_back(team, std::move(f));
  }
  std::vector<TrialConversion> results(work.size());
  pool.parallel_for(work.size(), [&](size_t i) {
    const fs::path& team_dir = work[i].first;
    const TrialFile& f = work[i].second;
    Result<TrialConversion> r =
        run_item(f.path.string(), [&] { return convert_trial(team_dir, f, options); });
    if (r.ok()) {
      results[i] = std::move(r).value();
    } else {  // anything unexpected: this trial's error, and no stale outputs
      remove_outputs(team_dir, f);
      results[i] = {f.team,
                    f.character,
                    f.stem,
                    r.error().internal ? "internal-error" : "error",
                    r.error().describe(),
                    "",
                    0};
    }
    if (on_done) on_done(results[i]);
  });
  // One log per team with every trial's outcome.
  std::map<std::string, OrderedJson> logs;
  for (size_t i = 0; i < work.size(); ++i) {
    const TrialConversion& t = results[i];
    OrderedJson entry = {{"character", t.character}, {"trial", t.stem}, {"status", t.status}};
    if (!t.error.empty()) entry["error"] = t.error;
    if (!t.detail.empty()) entry["detail"] = t.detail;
    if (t.status == "ok") entry["blocks"] = t.blocks;
    logs[work[i].first.string()].push_back(entry);
  }
  for (auto& [team, entries] : logs) write_json_file(fs::path(team) / "logs" / "convert.json", entries);
  return results;
}

}  // namespace pcglab::birds
