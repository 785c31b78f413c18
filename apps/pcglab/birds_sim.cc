// `pcglab birds simulate | render`: the Science Birds evaluator, headless on Box2D.
#include <atomic>
#include <cctype>
#include <filesystem>
#include <map>

#include "batch/driver.h"
#include "batch/merge.h"
#include "batch_options.h"
#include "birds/capture.h"
#include "birds/competition_layout.h"
#include "birds/level_xml.h"
#include "birds/simulate_folder.h"
#include "birds/simulate_pipeline.h"
#include "birds/team_batches.h"
#include "birds/text_pipeline.h"
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
  std::string shard;
};

SimulateOptions to_options(const SimulateCommandOptions& o) {
  SimulateOptions s;
  s.stability.early_stop = !o.no_early_stop;
  s.stability.settle_time = o.settle_time;
  s.stability.metric = o.metric == "remaining" ? StabilityMetric::kRemaining : StabilityMetric::kMoving;
  s.write_raw_images = o.raw;
  return s;
}

// One level: its name as given and its outcome.
struct LevelRow {
  std::string tag;
  ItemOutcome outcome;
};

Table result_table(const std::vector<LevelRow>& results, bool objects) {
  Table t;
  t.columns = {"level",         "status",           "score", "startingObjects",
               "movingObjects", "remainingObjects", "steps", "error"};
  if (objects) t.columns.push_back("objects");
  for (const auto& [tag, o] : results) {
    const bool ok = o.ok();
    auto field = [&](const char* name) { return ok ? Json::parse(o.metadata[name].dump()) : Json(); };
    std::vector<Json> row{tag,
                          ok ? "ok" : "error",
                          field("score"),
                          field("startingObjects"),
                          field("movingObjects"),
                          field("remainingObjects"),
                          field("steps"),
                          o.message};
    if (objects) row.push_back(field("objects"));
    t.add_row(std::move(row));
  }
  return t;
}

OrderedJson simulate_config(const SimulateCommandOptions& o) {
  return {{"no_early_stop", o.no_early_stop},
          {"raw", o.raw},
          {"settle_time", o.settle_time},
          {"metric", o.metric}};
}

// A competition folder (birds/simulate_folder.h): the outcome of every level, or a per-team,
// per-character summary (the details are in stability/*.json).
int simulate_folder(const SimulateCommandOptions& opt, const GlobalOptions& global) {
  ThreadPool pool(global.threads);
  const batch::Shard shard = shard_of(opt.shard);
  const SimulatedFolder run =
      birds::simulate_folder(opt.inputs[0], to_options(opt), shard, simulate_config(opt), pool);
  bool all_ok = true;
  std::vector<LevelRow> rows;
  for (size_t i = 0; i < run.outcomes.size(); ++i) {
    const ItemOutcome& o = run.outcomes[i];
    if (!o.ok()) {
      all_ok = false;
      log_warn("{}", o.message);
    }
    rows.push_back({run.levels[i], o});
  }
  log_info("simulate{}: {} levels, {} simulated, {} reused, {} removed",
           shard.all() ? "" : " " + shard.label(), run.outcomes.size(), run.ran, run.reused, run.removed);
  if (global.format == "md") {
    Table t;
    t.columns = {"team", "character", "levels", "mean_stability"};
    for (const CharacterStability& c : stability_by_character(run.outcomes))
      t.add_row({c.team, c.character, c.levels, c.mean_stability});
    print_table(t, global);
  } else {
    print_table(result_table(rows, opt.objects), global);
  }
  return all_ok ? kExitOk : kExitItemsFailed;
}

int run_simulate(const SimulateCommandOptions& opt, const GlobalOptions& global) {
  if (opt.inputs.size() == 1 && fs::is_directory(opt.inputs[0])) return simulate_folder(opt, global);
  for (const auto& in : opt.inputs) {
    if (fs::is_directory(in)) {
      throw SetupError(fmt::format(
          "{}: a folder among several inputs; give one competition folder alone, or level files", in));
    }
  }
  if (!opt.shard.empty())
    throw SetupError("--shard: give a competition folder (level files are not sharded)");
  // Level files: an ephemeral batch (batch/driver.h: item boundary, pool, progress bar; nothing
  // stored), each file one item, the rows in the order given.
  const SimulateOptions options = to_options(opt);
  ThreadPool pool(global.threads);
  batch::StageSpec spec;
  spec.name = "simulate";
  for (size_t i = 0; i < opt.inputs.size(); ++i)
    spec.items.push_back({fmt::format("{}/{}", i, opt.inputs[i]), "", {}});
  batch::Driver driver({}, pool);
  const batch::StageRun run =
      driver.run(spec, [&](size_t i) { return simulate_level_file(opt.inputs[i], opt.out, options); });
  std::vector<LevelRow> results(opt.inputs.size());
  for (size_t k = 0; k < run.outcomes.size(); ++k) {
    const size_t i = run.item_index[k];
    results[i] = {opt.inputs[i], run.outcomes[k]};
    results[i].outcome.key.clear();
  }
  bool all_ok = true;
  for (const auto& r : results) {
    if (!r.outcome.ok()) {
      all_ok = false;
      log_warn("{}", r.outcome.message);
    }
  }
  print_table(result_table(results, opt.objects), global);
  return all_ok ? kExitOk : kExitItemsFailed;
}

int merge_simulate(const fs::path& dir, const Json& config, int) {
  SimulateCommandOptions opt;
  opt.inputs = {dir.string()};
  opt.no_early_stop = config.value("no_early_stop", false);
  opt.raw = config.value("raw", false);
  opt.settle_time = config.value("settle_time", 0.0);
  opt.metric = config.value("metric", std::string("moving"));
  return simulate_folder(opt, merge_global_options());
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
  add_shard_option(cmd, opt->shard);
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
    try {
      check_simulable(level);
    } catch (const ItemFailure& e) {
      log_error("{}: {}", opt.level, e.what());
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

PCGLAB_REGISTER_MERGER("birds simulate", "stability/<C>.json and logs/simulate.json", merge_simulate);
PCGLAB_REGISTER_COMMAND("birds", "simulate", "Stability and images of levels, as the Science Birds evaluator",
                        setup_simulate);
PCGLAB_REGISTER_COMMAND("birds", "render", "Render one level to PNG (after simulating it)", setup_render);

}  // namespace pcglab::cli
