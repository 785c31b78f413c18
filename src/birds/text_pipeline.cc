#include "birds/text_pipeline.h"

#include <map>

#include <fmt/format.h>

#include "birds/extract.h"
#include "core/check.h"
#include "core/files.h"
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

ItemOutcome official_failure(const TrialFile& f, ErrorKind kind, const std::string& official,
                             const std::string& detail = "") {
  OrderedJson metadata = {{"official_error", official}};
  if (!detail.empty()) metadata["detail"] = detail;
  std::string message = fmt::format("{}: {}", f.path.string(), official);
  if (!detail.empty()) message += " (" + detail + ")";
  return ItemOutcome::failure("", kind, message, std::move(metadata));
}

}  // namespace

std::string trial_key(const std::string& team, const std::string& character, const std::string& stem) {
  return team + "/" + character + "/" + stem;
}

TrialKey parse_trial_key(const std::string& key) {
  const size_t last = key.rfind('/');
  const size_t middle = last == std::string::npos || last == 0 ? std::string::npos : key.rfind('/', last - 1);
  PCGLAB_CHECK(middle != std::string::npos) << "not a trial key: " << key;
  return {key.substr(0, middle), key.substr(middle + 1, last - middle - 1), key.substr(last + 1)};
}

ItemOutcome convert_trial(const fs::path& team_dir, const TrialFile& f, const ConvertOptions& options) {
  const Result<std::string> raw = read_response_file(f.path);
  if (!raw.ok()) {
    remove_outputs(team_dir, f);
    return ItemOutcome::failure("", ErrorKind::kBadInput, raw.error().describe());
  }
  const ExtractionReport report = diagnose_extraction(raw.value(), options.function);
  if (!report.code) {
    remove_outputs(team_dir, f);
    return official_failure(f, report.no_code->kind(), "Code not found.", report.no_code->what());
  }
  ConvertedLevel level;
  std::string refused;  // the official converter's error
  ErrorKind refused_kind = ErrorKind::kNone;
  try {
    level = convert_program(*report.code, options.function, options.converter);
  } catch (const ItemFailure& e) {
    refused = e.what();
    refused_kind = e.kind();
  }
  try {
    write_file_atomic(stage_path(team_dir, "intermediate", f.character, f.stem, ".txt"), *report.code);
    if (refused_kind != ErrorKind::kNone) {
      std::error_code ec;
      fs::remove(stage_path(team_dir, "levels", f.character, f.stem, ".xml"), ec);
      return official_failure(f, refused_kind, refused);
    }
    write_file_atomic(stage_path(team_dir, "levels", f.character, f.stem, ".xml"), level.xml);
  } catch (const SetupError& e) {  // a file that cannot be written: this trial's error
    remove_outputs(team_dir, f);
    return ItemOutcome::failure("", ErrorKind::kIo, e.what());
  }
  return ItemOutcome::success("", {{"blocks", static_cast<int>(level.blocks.size())}});
}

std::string conversion_status(const ItemOutcome& o) {
  if (o.ok()) return "ok";
  switch (o.kind) {
    case ErrorKind::kNoOutput: return "no-code";
    case ErrorKind::kBadInput:
      return o.metadata.contains("official_error") ? "conversion-error" : "read-error";
    case ErrorKind::kIo: return "write-error";
    case ErrorKind::kInternal: return "internal-error";
    default: return "error";
  }
}

batch::StageRun convert_stage(batch::Driver& driver, const std::vector<fs::path>& teams,
                              const ConvertOptions& options) {
  struct Work {
    fs::path team_dir;
    TrialFile file;
  };
  std::vector<Work> work;
  batch::StageSpec spec;
  spec.name = "convert";
  const std::string settings =
      fmt::format("convert {} {}", options.function, static_cast<int>(options.converter));
  std::map<std::string, fs::path> team_dirs;
  for (const fs::path& team : teams) {
    team_dirs[team_name_of(team)] = team;
    spec.output_dirs.push_back(team / "intermediate");
    spec.output_dirs.push_back(team / "levels");
    for (TrialFile& f : list_stage_files(team, "raw", ".txt")) {
      batch::Item item;
      item.key = trial_key(f.team, f.character, f.stem);
      if (driver.shard().owns(item.key)) {
        std::error_code ec;
        const auto size = fs::file_size(f.path, ec);
        if (!ec && size <= kMaxResponseBytes) {
          try {
            item.hash = batch::ContentHash().add(settings).add(read_file(f.path)).hex();
          } catch (const InputError&) {  // unreadable: always run (it fails at once, naming why)
          }
        }
      }
      item.outputs = {stage_path(team, "intermediate", f.character, f.stem, ".txt"),
                      stage_path(team, "levels", f.character, f.stem, ".xml")};
      spec.items.push_back(std::move(item));
      work.push_back({team, std::move(f)});
    }
  }
  // One log per team with every trial's outcome (the format birds report reads).
  spec.write_log = [&](const std::vector<ItemOutcome>& outcomes) {
    std::map<std::string, OrderedJson> logs;
    for (const auto& [name, dir] : team_dirs) logs[name] = OrderedJson::array();
    for (const ItemOutcome& o : outcomes) {
      const TrialKey k = parse_trial_key(o.key);
      OrderedJson entry = {{"character", k.character}, {"trial", k.stem}, {"status", conversion_status(o)}};
      if (!o.ok()) {
        entry["error"] = o.metadata.value("official_error", o.message);
        if (o.metadata.contains("detail")) entry["detail"] = o.metadata["detail"];
      } else {
        entry["blocks"] = o.metadata.value("blocks", 0);
      }
      logs[k.team].push_back(entry);
    }
    for (auto& [team, entries] : logs) {
      const fs::path file = team_dirs[team] / "logs" / "convert.json";
      std::error_code ec;
      if (entries.empty()) {
        fs::remove(file, ec);  // as a fresh run: no trials, no log
      } else {
        write_file_if_changed(file, dump_json(entries, 2) + "\n");
      }
    }
  };
  return driver.run(spec, [&](size_t i) {
    try {
      return convert_trial(work[i].team_dir, work[i].file, options);
    } catch (...) {  // anything unexpected is this trial's error (run_item), with no stale outputs
      remove_outputs(work[i].team_dir, work[i].file);
      throw;
    }
  });
}

}  // namespace pcglab::birds
