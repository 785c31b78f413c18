#include "birds/score_folder.h"

#include "birds/words_count.h"
#include "core/files.h"

namespace pcglab::birds {
namespace fs = std::filesystem;

ScoredFolder score_folder(const ScoreFolderOptions& options) {
  ScoringConfig config = options.config;
  const bool from_csv = fs::is_regular_file(options.input);
  const auto entries = from_csv ? read_trial_scores_csv(options.input)
                                : read_official_results(options.input, config.policy, {});
  if (!options.prompts.empty()) {
    for (const auto& e : entries) {
      const fs::path p = options.prompts / (e.name + ".txt");
      if (fs::exists(p)) config.prompt_lengths[e.name] = words_count_utf8(read_file(p));
    }
  }
  ScoredFolder scored;
  scored.result = score_competition(entries, config);
  scored.out = !options.out.empty() ? options.out
                                    : (from_csv ? options.input.parent_path() : options.input) / "result";
  write_scoring_outputs(scored.result, scored.out);
  return scored;
}

}  // namespace pcglab::birds
