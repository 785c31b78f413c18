// `pcglab birds generate`: the built-in letter generator (no LLM), writing the competition layout.
#include <map>

#include "birds/competition_layout.h"
#include "birds/generator.h"
#include "command.h"
#include "core/progress.h"
#include "nn/torch_runtime.h"

namespace pcglab::cli {
namespace {

struct GenerateOptions {
  std::string letters = "A-Z";
  int trials = 10;
  uint64_t seed = 1;
  std::string team = "pcglab-generator";
  std::string out = "runs";
  int candidates = 32;
  std::string model = "builtin";
};

int run_generate(const GenerateOptions& o, const GlobalOptions& global) {
  const std::string letters = birds::parse_letters(o.letters);
  // Trials run in parallel on the pool; each classifies its candidates on one libtorch thread, so
  // the result does not depend on the number of threads.
  nn::set_torch_threads(1);
  const auto classifier = birds::open_letter_classifier(o.model);
  birds::GeneratorOptions options;
  options.seed = o.seed;
  options.candidates = o.candidates;
  ThreadPool pool(global.threads);
  ProgressBar bar("generate", letters.size() * static_cast<size_t>(o.trials));
  const auto run = birds::generate_competition(letters, o.trials, o.team, o.out, *classifier, options, pool,
                                               [&](const birds::GeneratedTrial&) { bar.advance(true); });
  bar.finish();
  std::map<char, std::array<double, 3>> per_letter;  // stability, similarity, blocks
  for (const auto& t : run.trials) {
    auto& s = per_letter[t.letter];
    s[0] += t.stability / o.trials, s[1] += t.similarity / o.trials,
        s[2] += static_cast<double>(t.blocks) / o.trials;
  }
  Table table;
  table.columns = {"letter", "trials", "mean_stability", "mean_similarity", "mean_blocks"};
  for (const auto& [letter, s] : per_letter)
    table.add_row({std::string(1, letter), o.trials, s[0], s[1], s[2]});
  print_table(table, global);
  return kExitOk;
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
  cmd.add_option("--candidates", o->candidates, "Candidate programs tried per trial")
      ->check(number_in(1, 1000))
      ->capture_default_str();
  cmd.add_option("--model", o->model, "Letter classifier used to pick candidates")->capture_default_str();
  cmd.footer(
      "The numbers shown are the generator's own measurements of the kept candidates; `pcglab birds eval` "
      "measures them again through the official pipeline.");
  return [o, &global] { return run_generate(*o, global); };
}

}  // namespace

PCGLAB_REGISTER_COMMAND("birds", "generate",
                        "Built-in letter generator (no LLM): drop_block programs in the competition layout",
                        setup_generate);

}  // namespace pcglab::cli
