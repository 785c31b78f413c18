// `pcglab birds simulate | render`: the Science Birds evaluator, headless on Box2D.
#include <atomic>
#include <cctype>
#include <filesystem>
#include <map>

#include "birds/capture.h"
#include "birds/competition_layout.h"
#include "birds/level_xml.h"
#include "birds/simulate_pipeline.h"
#include "command.h"
#include "core/log.h"
#include "core/progress.h"

namespace pcglab::cli {
namespace {
namespace fs = std::filesystem;
using namespace pcglab::birds;

struct SimulateCommandOptions {
  std::vector<std::string> inputs;
  std::string out;
  bool no_early_stop = false;
  bool raw = false;
  double settle_time = 0;
  std::string metric = "moving";
  bool objects = false;
};

SimulateOptions to_options(const SimulateCommandOptions& o) {
  SimulateOptions s;
  s.stability.early_stop = !o.no_early_stop;
  s.stability.settle_time = o.settle_time;
  s.stability.metric = o.metric == "remaining" ? StabilityMetric::kRemaining : StabilityMetric::kMoving;
  s.write_raw_images = o.raw;
  return s;
}

Table result_table(const std::vector<LevelSimulation>& results, bool objects) {
  Table t;
  t.columns = {"level",         "status",           "score", "startingObjects",
               "movingObjects", "remainingObjects", "steps", "error"};
  if (objects) t.columns.push_back("objects");
  for (const auto& r : results) {
    std::vector<Json> row{r.tag,
                          r.ok ? "ok" : "error",
                          r.ok ? Json(static_cast<double>(r.result.score)) : Json(),
                          r.ok ? Json(r.result.starting_objects) : Json(),
                          r.ok ? Json(r.result.moving_objects) : Json(),
                          r.ok ? Json(r.result.remaining_objects) : Json(),
                          r.ok ? Json(r.result.steps) : Json(),
                          r.error};
    if (objects) row.push_back(r.ok ? Json(object_outcomes_json(r.result)) : Json());
    t.add_row(std::move(row));
  }
  return t;
}

int run_simulate(const SimulateCommandOptions& opt, const GlobalOptions& global) {
  const SimulateOptions options = to_options(opt);
  ThreadPool pool(global.threads);
  const bool single_folder = opt.inputs.size() == 1 && fs::is_directory(opt.inputs[0]);
  std::vector<LevelSimulation> results;
  if (single_folder) {
    const fs::path folder = opt.inputs[0];
    if (list_team_folders(folder, "levels", LayoutWarnings::kSilent).empty() &&
        folder.extension() == ".xml") {
      throw SetupError(
          fmt::format("{}: a folder, not a level file; give level files, or a competition folder "
                      "(<team>/levels/<C>/*.xml)",
                      folder.string()));
    }
    size_t total = 0;
    for (const fs::path& team : find_team_folders(folder, "levels", LayoutWarnings::kSilent))
      total += list_stage_files(team, "levels", ".xml", LayoutWarnings::kSilent).size();
    ProgressBar bar("simulate", total);
    results = simulate_competition(opt.inputs[0], options, pool,
                                   [&](const LevelSimulation& r) { bar.advance(r.ok); });
    bar.finish();
  } else {
    for (const auto& in : opt.inputs) {
      if (fs::is_directory(in)) {
        throw SetupError(fmt::format(
            "{}: a folder among several inputs; give one competition folder alone, or level files", in));
      }
    }
    ProgressBar bar("simulate", opt.inputs.size());
    results.resize(opt.inputs.size());
    pool.parallel_for(opt.inputs.size(), [&](size_t i) {
      results[i] = simulate_level_file(opt.inputs[i], opt.out, options);
      bar.advance(results[i].ok);
    });
    bar.finish();
  }
  bool all_ok = true;
  for (const auto& r : results) {
    if (!r.ok) {
      all_ok = false;
      log_warn("{}", r.error);
    }
  }
  if (single_folder && global.format == "md") {
    // A competition folder: per-team, per-character summary (the details are in stability/*.json).
    std::map<std::pair<std::string, std::string>, std::pair<int, double>> sums;
    for (const auto& r : results) {
      auto& s = sums[{r.team, r.character}];
      if (r.ok) s.first++, s.second += r.result.score;
    }
    Table t;
    t.columns = {"team", "character", "levels", "mean_stability"};
    for (const auto& [k, v] : sums)
      t.add_row({k.first, k.second, v.first, v.first ? v.second / v.first : 0.0});
    print_table(t, global);
  } else {
    print_table(result_table(results, opt.objects), global);
  }
  return all_ok ? kExitOk : kExitItemsFailed;
}

Action setup_simulate(CLI::App& cmd, const GlobalOptions& global) {
  auto opt = std::make_shared<SimulateCommandOptions>();
  cmd.add_option("inputs", opt->inputs, "A competition folder (<team>/levels/<C>/*.xml) or level files")
      ->required()
      ->check(CLI::ExistingPath);
  cmd.add_option("-o,--out", opt->out, "Folder for the images of single level files (none: no images)");
  cmd.add_flag("--no-early-stop", opt->no_early_stop, "Simulate the full 10 s even when every body sleeps");
  cmd.add_flag("--raw", opt->raw, "Also write the colour view as <name>_raw.png");
  cmd.add_option("--settle-time", opt->settle_time,
                 "Game seconds simulated before start positions are recorded")
      ->check(number_in(0.0, 10.0));
  cmd.add_option(
         "--metric", opt->metric,
         "moving: 1 - moving/total (the evaluator since 2023-03-23, 84df32e); remaining: objects still there "
         "after 10 s / total (its earlier version, cd8486e)")
      ->check(CLI::IsMember({"moving", "remaining"}));
  cmd.add_flag("--objects", opt->objects,
               "With level files: add every object's start, end and fate to each row");
  cmd.footer(
      "A competition folder gets <team>/stability/<C>.json (official format), <team>/images/<C>/<name>.png\n"
      "(the classifier's image) and <team>/logs/simulate.json (every level and object).");
  return [opt, &global] { return run_simulate(*opt, global); };
}

struct RenderOptions {
  std::string level;
  std::string out;
  bool colour = false;
  bool as_placed = false;
};

// Whether `path` names a PNG file (the only image format pcglab writes).
bool has_png_extension(const fs::path& path) {
  std::string ext = path.extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext == ".png";
}

int run_render(const RenderOptions& opt) {
  if (!has_png_extension(opt.out)) {
    throw SetupError(
        fmt::format("--out {}: render writes PNG images only; give a file name ending in .png", opt.out));
  }
  Level level = read_level_file(opt.level);
  if (!opt.as_placed) {
    if (const Status simulable = check_simulable(level); !simulable.ok()) {
      log_error("{}: {}", opt.level, simulable.error().message);
      return kExitItemsFailed;
    }
    level = evaluate_stability(level).final_level;
  }
  write_png(opt.out, opt.colour ? render_colour_image(level) : render_ocr_image(level));
  return kExitOk;
}

Action setup_render(CLI::App& cmd, const GlobalOptions&) {
  auto opt = std::make_shared<RenderOptions>();
  cmd.add_option("level", opt->level, "Level XML file")->required()->check(CLI::ExistingFile);
  cmd.add_option("-o,--out", opt->out, "Output PNG file (name ending in .png)")->required();
  cmd.add_flag("--colour", opt->colour, "The colour view instead of the classifier's black-on-white image");
  cmd.add_flag("--as-placed", opt->as_placed,
               "Render the blocks where the level places them (no simulation)");
  return [opt] { return run_render(*opt); };
}

}  // namespace

PCGLAB_REGISTER_COMMAND("birds", "simulate", "Stability and images of levels, as the Science Birds evaluator",
                        setup_simulate);
PCGLAB_REGISTER_COMMAND("birds", "render", "Render one level to PNG (after simulating it)", setup_render);

}  // namespace pcglab::cli
