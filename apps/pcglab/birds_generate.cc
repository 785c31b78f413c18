// `pcglab birds generate`: the built-in letter generator (no LLM), writing the competition layout.
// Each letter (its trials are chosen together) is an item of the batch driver rooted at the team
// folder (birds/generator.h), so a rerun reuses finished letters, `--shard` splits them and
// `pcglab merge` completes a sharded run.
#include <map>
#include <optional>

#include "batch/merge.h"
#include "batch_options.h"
#include "birds/competition_layout.h"
#include "birds/field_rank.h"
#include "birds/generator.h"
#include "command.h"
#include "core/files.h"
#include "core/log.h"

namespace pcglab::cli {
namespace {
namespace fs = std::filesystem;

struct GenerateOptions {
  std::string letters = "A-Z";
  int trials = 10;
  uint64_t seed = 1;
  std::string team = "pcglab-generator";
  std::string out = "runs";
  int candidates = 160;
  double min_similarity = 0.8;
  double min_diversity = 0.35;
  double min_trial_similarity = 0;
  double similarity_step = 0.05;
  double reachable_share = 0.95;
  std::string field;  // a published trial_scores.csv: per-letter diversity targets
  double diversity_margin = 0.02;
  std::map<char, double> min_diversity_of_letter;  // from --field (or a merge's recorded settings)
  std::string model = "builtin";
  std::string shard;
  std::string grid_faces;                       // --grid-faces: a table file, or "none"
  std::optional<std::string> grid_faces_table;  // its text (from the file, or a merge's settings)
};

// The settings `pcglab merge` needs to complete a sharded run.
OrderedJson generate_config(const GenerateOptions& o, const std::string& letters) {
  return {{"letters", letters},
          {"trials", o.trials},
          {"seed", o.seed},
          {"team", o.team},
          {"candidates", o.candidates},
          {"min_similarity", o.min_similarity},
          {"min_diversity", o.min_diversity},
          {"min_trial_similarity", o.min_trial_similarity},
          {"similarity_step", o.similarity_step},
          {"reachable_share", o.reachable_share},
          {"min_diversity_of_letter", o.min_diversity_of_letter},
          {"model", o.model},
          {"grid_faces_table", o.grid_faces_table ? Json(*o.grid_faces_table) : Json(nullptr)}};
}

// The text of --grid-faces: the file's ("none": no faces); at most 1 MiB.
std::string read_grid_faces_file(const std::string& path) {
  if (path == "none") return "";
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (ec) throw SetupError(fmt::format("--grid-faces {}: cannot read it ({})", path, ec.message()));
  if (size > (1u << 20))
    throw SetupError(
        fmt::format("--grid-faces {}: {} bytes; a table of grid faces is at most 1 MiB", path, size));
  try {
    return read_file(path);
  } catch (const std::exception& e) {
    throw SetupError(fmt::format("--grid-faces {}: {}", path, e.what()));
  }
}

int generate_team(const GenerateOptions& o, const fs::path& team_dir, const GlobalOptions& global) {
  const std::string letters = birds::parse_letters(o.letters);
  if (birds::is_judge_spec(o.model))  // the judge's similarity is only independent if it never selects
    throw SetupError(
        fmt::format("--model {}: the independent judge never selects candidates (it judges them in "
                    "`birds eval --judge judge`); use builtin or another classifier",
                    o.model));
  // Trials run in parallel on the pool; each classifies its candidates on one libtorch thread, so
  // the result does not depend on the number of threads.
  birds::LazyClassifier classifier(o.model, 1);  // opened by the first trial that runs
  birds::GeneratorOptions options;
  options.seed = o.seed;
  options.candidates = o.candidates;
  options.min_similarity = o.min_similarity;
  options.min_diversity = o.min_diversity;
  options.min_trial_similarity = o.min_trial_similarity;
  options.similarity_step = o.similarity_step;
  options.reachable_share = o.reachable_share;
  options.min_diversity_of_letter = o.min_diversity_of_letter;
  if (o.grid_faces_table)
    options.grid_faces = birds::parse_user_grid_faces(
        *o.grid_faces_table,
        o.grid_faces.empty() ? "the run's recorded --grid-faces" : "--grid-faces " + o.grid_faces);
  batch::DriverOptions driver_options;
  driver_options.shard = shard_of(o.shard);
  driver_options.run_name = birds::kGenerateRunName;
  driver_options.config = dump_json(generate_config(o, letters));
  ThreadPool pool(global.threads);
  const auto run = birds::generate_competition(letters, o.trials, o.team, team_dir, classifier, options, pool,
                                               driver_options);
  const batch::StageRun& stage = run.stage;
  for (const ItemOutcome& x : stage.outcomes)
    if (!x.ok()) log_warn("{}", x.message);
  log_info("generate{}: {} letters, {} generated, {} reused, {} removed",
           driver_options.shard.all() ? "" : " " + driver_options.shard.label(), stage.outcomes.size(),
           stage.ran, stage.reused, stage.removed);
  Table table;
  table.columns = {"letter",           "trials",    "mean_stability",  "mean_similarity",
                   "diversity",        "objective", "candidates",      "eligible",
                   "similarity_floor", "simulated", "diversity_target"};
  for (const auto& l : run.letters)
    table.add_row({std::string(1, l.letter), static_cast<int64_t>(l.trials.size()), l.stability, l.similarity,
                   l.diversity, l.objective, l.candidates, l.eligible, l.similarity_floor, l.simulated,
                   l.diversity_target});
  print_table(table, global);
  return stage.failed == 0 ? kExitOk : kExitItemsFailed;
}

// `pcglab merge DIR` after `birds generate --shard`: DIR is the team folder or the folder above it.
int merge_generate(const fs::path& dir, const Json& config, int) {
  GenerateOptions o;
  o.letters = config.value("letters", o.letters);
  o.trials = config.value("trials", o.trials);
  o.seed = config.value("seed", o.seed);
  o.team = config.value("team", o.team);
  o.candidates = config.value("candidates", o.candidates);
  o.min_similarity = config.value("min_similarity", o.min_similarity);
  o.min_diversity = config.value("min_diversity", o.min_diversity);
  o.min_trial_similarity = config.value("min_trial_similarity", o.min_trial_similarity);
  o.similarity_step = config.value("similarity_step", o.similarity_step);
  o.reachable_share = config.value("reachable_share", o.reachable_share);
  o.min_diversity_of_letter = config.value("min_diversity_of_letter", o.min_diversity_of_letter);
  o.model = config.value("model", o.model);
  if (const auto it = config.find("grid_faces_table"); it != config.end() && it->is_string())
    o.grid_faces_table = it->get<std::string>();
  const fs::path team_dir = fs::is_directory(dir / o.team / "logs") ? dir / o.team : dir;
  return generate_team(o, team_dir, merge_global_options());
}

Action setup_generate(CLI::App& cmd, const GlobalOptions& global) {
  auto o = std::make_shared<GenerateOptions>();
  cmd.add_option("--letters", o->letters, "Letters, e.g. A-Z or A,C,E")->capture_default_str();
  cmd.add_option("--trials", o->trials, "Trials per letter")
      ->check(number_in(1, 1000))
      ->capture_default_str();
  cmd.add_option("--seed", o->seed, "Seed: the same seed gives the same responses")
      ->check(any_number<uint64_t>())
      ->capture_default_str();
  cmd.add_option("--team", o->team, "Team name (folder and file names)")->capture_default_str();
  cmd.add_option("-o,--out", o->out,
                 "Output folder; responses go to <out>/<team>/raw/<C>/<team>_<C>_<trial>.txt")
      ->capture_default_str();
  cmd.add_option("--candidates", o->candidates,
                 "Candidate shapes drawn per letter; its trials are chosen together out of them")
      ->check(number_in(1, 5000))
      ->capture_default_str();
  cmd.add_option("--min-similarity", o->min_similarity,
                 "The chosen trials' mean similarity (by --model) must reach this")
      ->check(number_in(0.0, 1.0))
      ->capture_default_str();
  cmd.add_option("--min-diversity", o->min_diversity,
                 "While the best set's diversity is below this, the similarity floor is lowered by "
                 "--similarity-step (0: "
                 "never)")
      ->check(number_in(0.0, 2.0))
      ->capture_default_str();
  cmd.add_option(
         "--min-trial-similarity", o->min_trial_similarity,
         "A candidate read as the letter with a lower probability is not chosen (every trial readable; "
         "lowers diversity)")
      ->check(number_in(0.0, 1.0))
      ->capture_default_str();
  cmd.add_option("--similarity-step", o->similarity_step,
                 "How much the similarity floor is lowered at a time while the diversity target is not met")
      ->check(number_in(0.001, 1.0))
      ->capture_default_str();
  cmd.add_option(
         "--reachable-share", o->reachable_share,
         "When no set reaches --min-similarity, the floor starts at this share of the best reachable mean "
         "(1: the most readable set)")
      ->check(number_in(0.0, 1.0))
      ->capture_default_str();
  cmd.add_option("--field", o->field,
                 "A published competition's trial_scores.csv: each letter's diversity target is the field's "
                 "median diversity for that letter plus --diversity-margin, instead of --min-diversity")
      ->check(CLI::ExistingFile);
  cmd.add_option("--diversity-margin", o->diversity_margin,
                 "With --field: how far above the field's median a letter's diversity must be")
      ->check(number_in(0.0, 2.0))
      ->capture_default_str();
  cmd.add_option("--model", o->model, "Letter classifier used to pick candidates")->capture_default_str();
  cmd.add_option(
      "--grid-faces", o->grid_faces,
      "A table of grid faces (docs/birds.md: \"<LETTER> <style>\", then rows of '#' and '.') added to "
      "each letter's candidates instead of the built-in table; none: no grid faces");
  add_shard_option(cmd, o->shard);
  cmd.footer(
      "Each letter's trials are chosen jointly to maximise diversity x mean(stability x similarity), the "
      "official 2024 character score without its field-dependent weight.\n"
      "The numbers shown are the generator's own measurements of the chosen candidates; `pcglab birds eval` "
      "measures them again through the official pipeline.\n"
      "A rerun generates only the letters not finished before (<out>/<team>/logs/batch.sqlite); after "
      "--shard runs, `pcglab merge <out>/<team>` writes logs/generate.json and run.json.");
  return [o, &global] {
    if (!o->field.empty())
      for (const auto& [character, median] : birds::field_median_diversity(o->field))
        if (character.size() == 1) o->min_diversity_of_letter[character[0]] = median + o->diversity_margin;
    if (!o->grid_faces.empty()) o->grid_faces_table = read_grid_faces_file(o->grid_faces);
    return generate_team(*o, fs::path(o->out) / o->team, global);
  };
}

}  // namespace

PCGLAB_REGISTER_MERGER(birds::kGenerateRunName, "logs/generate.json and run.json", merge_generate);
PCGLAB_REGISTER_COMMAND("birds", "generate",
                        "Built-in letter generator (no LLM): drop_block programs in the competition layout",
                        setup_generate);

}  // namespace pcglab::cli
