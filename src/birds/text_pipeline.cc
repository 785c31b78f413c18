#include "birds/text_pipeline.h"

#include <map>

#include <fmt/format.h>

#include "birds/competition_layout.h"
#include "birds/extract.h"
#include "core/files.h"
#include "core/json.h"

namespace pcglab::birds {
namespace fs = std::filesystem;

namespace {

TrialConversion convert_trial(const fs::path& team_dir, const TrialFile& f, const ConvertOptions& options) {
  TrialConversion t{f.team, f.character, f.stem, "ok", "", "", 0};
  const fs::path code_path = stage_path(team_dir, "intermediate", f.character, f.stem, ".txt");
  const fs::path level_path = stage_path(team_dir, "levels", f.character, f.stem, ".xml");
  std::error_code ec;
  std::string raw;
  try {
    raw = read_file(f.path);
  } catch (const SetupError& e) {
    t.status = "read-error";
    t.error = e.what();
    return t;
  }
  const ExtractionReport report = diagnose_extraction(raw, options.function);
  if (!report.code) {
    fs::remove(code_path, ec);
    fs::remove(level_path, ec);
    t.status = "no-code";
    t.error = "Code not found.";
    t.detail = report.no_code_reason;
    return t;
  }
  write_file_atomic(code_path, *report.code);
  auto level = convert_program(*report.code, options.function, f.stem, options.converter);
  if (!level.ok()) {
    fs::remove(level_path, ec);
    t.status = "conversion-error";
    t.error = level.error().message;
    return t;
  }
  write_file_atomic(level_path, level.value().xml);
  t.blocks = static_cast<int>(level.value().blocks.size());
  return t;
}

}  // namespace

std::vector<TrialConversion> convert_competition(const fs::path& dir, const ConvertOptions& options, ThreadPool& pool,
                                                 const std::function<void(const TrialConversion&)>& on_done) {
  std::vector<std::pair<fs::path, TrialFile>> work;
  for (const fs::path& team : find_team_folders(dir, "raw")) {
    for (TrialFile& f : list_stage_files(team, "raw", ".txt")) work.emplace_back(team, std::move(f));
  }
  std::vector<TrialConversion> results(work.size());
  pool.parallel_for(work.size(), [&](size_t i) {
    try {
      results[i] = convert_trial(work[i].first, work[i].second, options);
    } catch (const SetupError& e) {  // e.g. a file that cannot be written
      results[i] = {work[i].second.team, work[i].second.character, work[i].second.stem, "write-error", e.what(), "", 0};
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
