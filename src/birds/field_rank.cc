#include "birds/field_rank.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "birds/competition_layout.h"
#include "birds/diversity.h"
#include "core/check.h"
#include "core/item_boundary.h"
#include "core/json.h"

namespace pcglab::birds {
namespace fs = std::filesystem;

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

bool has_judge_similarity(const fs::path& team) {
  std::error_code ec;
  return fs::is_directory(team / "similarity-judge", ec);
}

namespace {

// The team's similarity and diversity replaced by the judge's: each trial's similarity from
// similarity-judge/<C>.json and the letter's diversity by the official formula over the judge's
// vectors. A letter without a judge file keeps no similarity and no diversity.
void use_judge_readings(const fs::path& team, int trials, EntryResults& e) {
  if (!has_judge_similarity(team))
    throw SetupError(fmt::format("{}: no similarity-judge/ (run `pcglab birds eval {} --judge judge` first)",
                                 team.string(), team.string()));
  for (auto& [model, characters] : e.models)
    for (auto& [character, r] : characters) {
      r.similarity.clear();
      r.diversity = 0;
      const fs::path file = team / "similarity-judge" / (character + ".json");
      std::error_code ec;
      if (!fs::exists(file, ec)) continue;
      const Status s = run_item(file.string(), [&] {
        const Json j = read_json_file(file);
        for (const Json& t : json_field<Json>(j, "trials", file.string())) {
          const std::string id = json_field<std::string>(t, "id", file.string());
          const int trial = trial_number_of(fs::path(id).stem().string());
          if (trial >= 0) r.similarity[trial] = json_field<double>(t, "similarity", file.string());
        }
        r.diversity = diversity_of(read_vectors(file, DiversityVectors::kSoftmax), trials).rate;
      });
      if (!s.ok()) e.errors.emplace_back(ErrorKind::kBadInput, s.error().describe());
    }
}

std::vector<EntryResults> read_field(const fs::path& field) {
  std::error_code ec;
  if (!fs::is_regular_file(field, ec))
    throw SetupError(
        fmt::format("{}: no such file (the field's published trial_scores.csv)", field.string()));
  return read_trial_scores_csv(field);
}

// The field's diversity per letter (disqualified entries left out, as they are out of P).
std::map<std::string, double> median_diversity(const std::vector<EntryResults>& entries,
                                               const std::set<std::string>& disqualified) {
  std::map<std::string, std::vector<double>> diversity;
  for (const EntryResults& e : entries) {
    if (disqualified.count(e.name) != 0) continue;
    const auto model = e.models.find("");
    if (model == e.models.end()) continue;
    for (const auto& [character, results] : model->second) diversity[character].push_back(results.diversity);
  }
  std::map<std::string, double> out;
  for (const auto& [character, values] : diversity) out[character] = median(values);
  return out;
}

}  // namespace

std::map<std::string, double> field_median_diversity(const fs::path& field,
                                                     const std::vector<std::string>& disqualified) {
  return median_diversity(read_field(field), {disqualified.begin(), disqualified.end()});
}

FieldRank rank_against_field(const FieldRankOptions& options) {
  std::error_code ec;
  std::vector<EntryResults> entries = read_field(options.field);
  std::set<std::string> field_names;
  for (const EntryResults& e : entries) field_names.insert(e.name);
  const std::set<std::string> disqualified(options.config.disqualified.begin(),
                                           options.config.disqualified.end());
  std::map<std::string, double> field_diversity = median_diversity(entries, disqualified);
  FieldRank out;
  for (const fs::path& team : options.teams) {
    if (!fs::is_directory(team, ec))
      throw SetupError(fmt::format("{}: not a team folder (expected <team>/stability, similarity, diversity)",
                                   team.string()));
    EntryResults e = read_team_results(team, options.config.policy, options.config.characters);
    if (options.classifier == TeamClassifier::kJudge) use_judge_readings(team, options.config.trials, e);
    if (field_names.count(e.name) != 0 ||
        std::find(out.teams.begin(), out.teams.end(), e.name) != out.teams.end())
      throw SetupError(fmt::format("{}: the team name \"{}\" is already an entry of {}", team.string(),
                                   e.name, options.field.string()));
    out.teams.push_back(e.name);
    entries.push_back(std::move(e));
  }
  out.result = score_competition(entries, options.config);
  // Character scores by letter, for the per-letter ranks.
  std::map<std::string, std::vector<double>> scores_of_letter;
  std::map<std::pair<std::string, std::string>, const CharacterScore*> by_team_letter;
  for (const CharacterScore& c : out.result.characters) {
    if (disqualified.count(c.entry) != 0) continue;
    scores_of_letter[c.character].push_back(c.score);
    by_team_letter[{c.entry, c.character}] = &c;
  }
  for (const std::string& team : out.teams) {
    for (const auto& [key, c] : by_team_letter) {
      if (key.first != team) continue;
      LetterVsField l;
      l.team = team;
      l.character = c->character;
      l.stability = c->mean_stability;
      l.similarity = c->mean_similarity;
      l.diversity = c->diversity;
      l.character_score = c->score;
      l.field_median_diversity = field_diversity[c->character];
      l.above_median = l.diversity > l.field_median_diversity;
      const auto& all = scores_of_letter[c->character];
      l.entries = static_cast<int>(all.size());
      l.rank =
          1 + static_cast<int>(std::count_if(all.begin(), all.end(), [&](double s) { return s > c->score; }));
      out.letters.push_back(l);
    }
  }
  return out;
}

}  // namespace pcglab::birds
