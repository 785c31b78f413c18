// `pcglab birds rank TEAM... --field trial_scores.csv`: the teams scored together with a published
// field as the official scoring script scores one competition (birds/field_rank.h), the rank table
// they would have had, and each letter's diversity against the field's median.
#include <algorithm>
#include <filesystem>
#include <optional>

#include "birds/field_rank.h"
#include "command.h"
#include "core/files.h"
#include "core/log.h"

namespace pcglab::cli {
namespace {
namespace fs = std::filesystem;
using namespace pcglab::birds;

struct RankOptions {
  std::vector<std::string> teams;
  std::string field;
  std::string table = "ranks";
  int trials = 10;
  std::vector<std::string> baselines;
  std::vector<std::string> disqualified;
  std::string out;
};

// `judge`: the same scoring with the teams' judge readings (null when a team has none).
Table rank_table(const FieldRank& rank, const FieldRank* judge) {
  Table t;
  t.columns = {"rank", "team", "normalized_prompt_score", "prompt_score", "added"};
  if (judge != nullptr) t.columns.insert(t.columns.end(), {"judge_rank", "judge_prompt_score"});
  const auto number = [](double v) { return std::isfinite(v) ? Json(v) : Json(); };
  for (const EntryScore& e : rank.result.entries) {
    const bool added = std::find(rank.teams.begin(), rank.teams.end(), e.name) != rank.teams.end();
    std::vector<Json> row = {e.rank, e.name, number(e.normalized), number(e.prompt_score),
                             added ? "yes" : ""};
    if (judge != nullptr)
      for (const EntryScore& j : judge->result.entries)
        if (j.name == e.name) row.insert(row.end(), {j.rank, number(j.prompt_score)});
    t.add_row(std::move(row));
  }
  return t;
}

Table letter_table(const FieldRank& rank, const FieldRank* judge) {
  Table t;
  t.columns = {"team",         "letter",          "stability",
               "similarity",   "diversity",       "field_median_diversity",
               "above_median", "character_score", "letter_rank"};
  if (judge != nullptr)
    t.columns.insert(t.columns.end(), {"judge_similarity", "judge_diversity", "judge_above_median",
                                       "judge_character_score", "judge_letter_rank"});
  for (size_t i = 0; i < rank.letters.size(); ++i) {
    const LetterVsField& l = rank.letters[i];
    std::vector<Json> row = {l.team,
                             l.character,
                             l.stability,
                             l.similarity,
                             l.diversity,
                             l.field_median_diversity,
                             l.above_median ? "yes" : "no",
                             l.character_score,
                             fmt::format("{}/{}", l.rank, l.entries)};
    if (judge != nullptr) {
      const LetterVsField& j = judge->letters.at(i);  // the same teams and letters, in the same order
      row.insert(row.end(), {j.similarity, j.diversity, j.above_median ? "yes" : "no", j.character_score,
                             fmt::format("{}/{}", j.rank, j.entries)});
    }
    t.add_row(std::move(row));
  }
  return t;
}

// "rank R of N, prompt score S; diversity above the field's median in A of L letters"
std::string team_summary(const FieldRank& rank, const std::string& team) {
  int above = 0, letters = 0;
  for (const LetterVsField& l : rank.letters)
    if (l.team == team) ++letters, above += l.above_median ? 1 : 0;
  for (const EntryScore& e : rank.result.entries)
    if (e.name == team)
      return fmt::format(
          "rank {} of {}, prompt score {:.6g}; diversity above the field's median in {} of {} letters",
          e.rank, rank.result.entries.size(), e.prompt_score, above, letters);
  return "not scored";
}

int run_rank(const RankOptions& opt, const GlobalOptions& global) {
  FieldRankOptions options;
  options.field = opt.field;
  for (const std::string& t : opt.teams) options.teams.emplace_back(t);
  options.config.policy = ScoringPolicy::k2024;
  options.config.trials = opt.trials;
  options.config.baselines = opt.baselines;
  options.config.disqualified = opt.disqualified;
  const FieldRank rank = rank_against_field(options);
  // The honest ranking beside it when every team has the independent judge's readings.
  std::optional<FieldRank> judge;
  if (std::all_of(options.teams.begin(), options.teams.end(), has_judge_similarity)) {
    options.classifier = TeamClassifier::kJudge;
    judge = rank_against_field(options);
  }
  const FieldRank* judged = judge ? &*judge : nullptr;
  if (!opt.out.empty()) {
    write_scoring_outputs(rank.result, opt.out);
    write_file_atomic(fs::path(opt.out) / "ranks.csv",
                      format_table(rank_table(rank, judged), OutputFormat::kCsv));
    write_file_atomic(fs::path(opt.out) / "letters.csv",
                      format_table(letter_table(rank, judged), OutputFormat::kCsv));
  }
  print_table(opt.table == "letters" ? letter_table(rank, judged) : rank_table(rank, judged), global);
  for (const std::string& team : rank.teams) {
    log_info("{}: {}", team, team_summary(rank, team));
    if (judge)
      log_info("{}: by the independent judge (similarity and diversity from similarity-judge/): {}", team,
               team_summary(*judge, team));
  }
  for (const ItemFailure& error : rank.result.errors) log_error("{}", error.what());
  if (judge)
    for (const ItemFailure& error : judge->result.errors) log_error("judge: {}", error.what());
  return rank.result.errors.empty() && (!judge || judge->result.errors.empty()) ? kExitOk : kExitItemsFailed;
}

Action setup_rank(CLI::App& cmd, const GlobalOptions& global) {
  auto opt = std::make_shared<RankOptions>();
  cmd.add_option("teams", opt->teams,
                 "Team folders (<team>/stability|similarity|diversity/<C>.json, as birds eval "
                 "writes them)")
      ->required()
      ->check(CLI::ExistingDirectory);
  cmd.add_option("--field", opt->field, "A published competition's trial_scores.csv (e.g. the 2024 results)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd.add_option("--table", opt->table, "Table printed: ranks (every entry) or letters (the teams' letters)")
      ->check(CLI::IsMember({"ranks", "letters"}))
      ->capture_default_str();
  cmd.add_option("--trials", opt->trials, "Trials per character (the division uses this)")
      ->check(number_in(1, 1000))
      ->capture_default_str();
  cmd.add_option("--baselines", opt->baselines, "Entries scored but not ranked (rank -1)")->delimiter(',');
  cmd.add_option("--disqualified", opt->disqualified, "Entries not scored (rank -2)")->delimiter(',');
  cmd.add_option("-o,--out", opt->out,
                 "Also write the official outputs of the joint scoring, ranks.csv and letters.csv here");
  cmd.footer(
      "Scores the teams and the field together with the 2024 policy (P = every entry, the weights from "
      "all).\n"
      "The field's similarity came from its own classifier (the official ViT for 2024), the teams' from the\n"
      "one birds eval used; the letters table compares each letter's diversity with the field's median.\n"
      "When every team folder has similarity-judge/ (birds eval --judge judge), the tables add the ranking\n"
      "with the teams' similarity and diversity read by that independent judge (judge_* columns).");
  return [opt, &global] { return run_rank(*opt, global); };
}

}  // namespace

PCGLAB_REGISTER_COMMAND(
    "birds", "rank",
    "Teams scored together with a published field (2024 policy): the rank they would have had", setup_rank);

}  // namespace pcglab::cli
