#include "birds/eval_pipeline.h"

#include <algorithm>
#include <atomic>
#include <chrono>

#include <fmt/format.h>

#include "birds/competition_layout.h"
#include "birds/diversity.h"
#include "birds/similarity.h"
#include "core/check.h"
#include "core/files.h"
#include "core/json.h"
#include "core/log.h"

namespace pcglab::birds {
namespace fs = std::filesystem;
namespace {

// FNV-1a over the sorted (relative path, size, mtime) of every file under `folders`, and `extra`.
std::string fingerprint(const fs::path& team, const std::vector<std::string>& folders,
                        const std::string& extra) {
  std::vector<std::string> lines;
  std::error_code ec;
  for (const auto& folder : folders) {
    if (!fs::exists(team / folder, ec)) continue;
    for (auto it = fs::recursive_directory_iterator(team / folder, ec); !ec && it != fs::end(it);
         it.increment(ec)) {
      if (!it->is_regular_file(ec) || is_temporary_file(it->path())) continue;
      const auto time = fs::last_write_time(it->path(), ec).time_since_epoch().count();
      lines.push_back(
          fmt::format("{}\t{}\t{}", fs::relative(it->path(), team, ec).string(), it->file_size(ec), time));
    }
  }
  std::sort(lines.begin(), lines.end());
  uint64_t h = 1469598103934665603ull;
  auto mix = [&](const std::string& s) {
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    h = (h ^ '\n') * 1099511628211ull;
  };
  for (const auto& l : lines) mix(l);
  mix(extra);
  return fmt::format("{:016x}", h);
}

Json read_state(const fs::path& team) {
  const fs::path file = team / "logs" / "eval.json";
  if (!fs::exists(file)) return Json::object();
  try {
    Json j = read_json_file(file);
    return j.is_object() ? j : Json::object();
  } catch (const InputError& e) {
    log_warn("{}: unreadable, every stage will run again", file.string());
    return Json::object();
  }
}

std::string stability_options(const SimulateOptions& o) {
  const auto& s = o.stability;
  return fmt::format("{} {} {} {} {} {} {} {} {} {} {}", static_cast<int>(s.metric), s.duration, s.step,
                     s.velocity_iterations, s.position_iterations, s.movement_threshold, s.damage,
                     s.destroy_delay, s.world_half_width, s.settle_time, o.write_raw_images);
}

std::string model_identity(const std::string& spec) {
  std::error_code ec;
  fs::path p = spec == "builtin" ? builtin_letter_model() : fs::path(spec);
  if (fs::is_directory(p, ec)) p /= "model.safetensors";
  return fmt::format("{} {} {}", spec, fs::file_size(p, ec),
                     fs::last_write_time(p, ec).time_since_epoch().count());
}

}  // namespace

std::vector<EvalFailure> recorded_failures(const fs::path& team_dir) {
  std::vector<EvalFailure> out;
  const std::string team = team_name_of(team_dir);
  auto read = [&](const std::string& stage, const fs::path& file, const char* trial_key) {
    if (!fs::exists(file)) return;
    Json j;
    try {
      j = read_json_file(file);
    } catch (const InputError&) {
      return;
    }
    const Json& items = j.is_object() ? j.value("failures", Json::array()) : j;
    if (!items.is_array()) return;
    for (const Json& r : items) {
      if (!r.is_object() || r.value("status", "error") == "ok") continue;
      std::string error = r.value("error", r.value("status", ""));
      const std::string detail = r.value("detail", "");
      if (!detail.empty()) error += " (" + detail + ")";
      out.push_back({team, r.value("character", ""), r.value(trial_key, ""), stage, error});
    }
  };
  read("convert", team_dir / "logs" / "convert.json", "trial");
  read("simulate", team_dir / "logs" / "simulate.json", "level");
  read("classify", team_dir / "logs" / "classify.json", "id");
  read("diversity", team_dir / "logs" / "diversity.json", "trial");  // per character, no trial
  return out;
}

EvalReport evaluate_competition(const fs::path& dir, const EvalOptions& options, ThreadPool& pool,
                                const std::function<void(const std::string&, size_t, size_t)>& progress) {
  EvalReport report;
  const auto teams = find_team_folders(dir, "raw");
  const bool cls = options.scoring.policy == ScoringPolicy::k2025;
  std::unique_ptr<LetterClassifier> classifier;  // opened only when a classify stage runs

  for (const fs::path& team : teams) {
    Json state = read_state(team);
    auto run_stage = [&](const std::string& stage, const std::vector<std::string>& inputs,
                         const std::string& extra, const std::function<std::pair<size_t, size_t>()>& body) {
      EvalStage s{team_name_of(team), stage};
      const std::string fp = fingerprint(team, inputs, extra);
      if (!options.force && state.contains(stage) && state[stage].value("fingerprint", "") == fp) {
        s.skipped = true;
      } else {
        const auto start = std::chrono::steady_clock::now();
        std::tie(s.items, s.failed) = body();
        s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        // The outputs of this stage are the next one's inputs: record after they are written.
        state[stage] = {
            {"fingerprint", fp}, {"items", s.items}, {"failed", s.failed}, {"seconds", s.seconds}};
        write_json_file(team / "logs" / "eval.json", state);
      }
      report.stages.push_back(s);
    };
    auto counter = [&](const std::string& stage, size_t total) {
      auto done = std::make_shared<std::atomic<size_t>>(0);
      return [&progress, stage, total, done](bool) {
        if (progress) progress(stage, ++*done, total);
      };
    };

    run_stage("convert", {"raw"},
              fmt::format("{} {}", options.convert.function, static_cast<int>(options.convert.converter)),
              [&] {
                const auto tick =
                    counter("convert", list_stage_files(team, "raw", ".txt", LayoutWarnings::kSilent).size());
                const auto r = convert_competition(team, options.convert, pool,
                                                   [&](const TrialConversion& t) { tick(t.status == "ok"); });
                return std::pair<size_t, size_t>{
                    r.size(), std::count_if(r.begin(), r.end(), [](auto& t) { return t.status != "ok"; })};
              });
    run_stage("simulate", {"levels"}, stability_options(options.simulate), [&] {
      if (!fs::is_directory(team / "levels")) return std::pair<size_t, size_t>{0, 0};
      const auto tick =
          counter("simulate", list_stage_files(team, "levels", ".xml", LayoutWarnings::kSilent).size());
      const auto r =
          simulate_competition(team, options.simulate, pool, [&](const LevelSimulation& l) { tick(l.ok); });
      return std::pair<size_t, size_t>{r.size(),
                                       std::count_if(r.begin(), r.end(), [](auto& l) { return !l.ok; })};
    });
    run_stage("classify", {"images"}, fmt::format("{} {}", model_identity(options.model), cls), [&] {
      if (!fs::is_directory(team / "images")) return std::pair<size_t, size_t>{0, 0};
      if (!classifier) classifier = open_letter_classifier(options.model);
      ClassifyOptions co;
      co.embeddings = cls;
      const auto tick =
          counter("classify", list_stage_files(team, "images", ".png", LayoutWarnings::kSilent).size());
      const auto r = classify_competition(team, *classifier, co, pool,
                                          [&](const ImageClassification& c) { tick(c.ok); });
      return std::pair<size_t, size_t>{r.size(),
                                       std::count_if(r.begin(), r.end(), [](auto& c) { return !c.ok; })};
    });
    run_stage("diversity", {"similarity"}, fmt::format("{} {}", options.scoring.trials, cls), [&] {
      if (!fs::is_directory(team / "similarity")) return std::pair<size_t, size_t>{0, 0};
      const auto r = compute_competition_diversity(
          team, options.scoring.trials, cls ? DiversityVectors::kClsEmbedding : DiversityVectors::kSoftmax,
          pool);
      return std::pair<size_t, size_t>{r.size(),
                                       std::count_if(r.begin(), r.end(), [](auto& d) { return !d.ok; })};
    });
    const auto failures = recorded_failures(team);
    report.failures.insert(report.failures.end(), failures.begin(), failures.end());
  }

  // Scores over the teams evaluated (one team alone: scored on its own). The 2025 policy normally
  // reads <team>/<model>/...; eval works on flat team folders (one model).
  const ScoringPolicy layout =
      options.scoring.policy == ScoringPolicy::k2025 ? ScoringPolicy::k2024 : options.scoring.policy;
  std::vector<EntryResults> selected;
  for (const fs::path& team : teams) {
    selected.push_back(read_team_results(team, layout));
    for (const std::string& error : selected.back().errors)
      report.failures.push_back({selected.back().name, "", "", "score", error});
  }
  report.scores = score_competition(selected, options.scoring);
  report.result_dir = dir / "result";
  write_scoring_outputs(report.scores, report.result_dir);
  return report;
}

}  // namespace pcglab::birds
