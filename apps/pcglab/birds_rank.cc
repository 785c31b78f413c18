// `pcglab birds rank TEAM... --field trial_scores.csv`: the teams scored together with a published
// field as the official scoring script scores one competition (birds/field_rank.h), the rank table
// they would have had, and each letter's diversity against the field's median.
#include <filesystem>

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

Table rank_table(const FieldRank& rank) {
  Table t;
  t.columns = {"rank", "team", "normalized_prompt_score", "prompt_score", "added"};
  const auto number = [](double v) { return std::isfinite(v) ? Json(v) : Json(); };
  for (const EntryScore& e : rank.result.entries) {
    const bool added = std::find(rank.teams.begin(), rank.teams.end(), e.name) != rank.teams.end();
    t.add_row({e.rank, e.name, number(e.normalized), number(e.prompt_score), added ? "yes" : ""});
  }
  return t;
}

Table letter_table(const FieldRank& rank) {
  Table t;
  t.columns = {"team",         "letter",          "stability",
               "similarity",   "diversity",       "field_median_diversity",
               "above_median", "character_score", "letter_rank"};
  for (const LetterVsField& l : rank.letters)
    t.add_row({l.team, l.character, l.stability, l.similarity, l.diversity, l.field_median_diversity,
               l.above_median ? "yes" : "no", l.character_score, fmt::format("{}/{}", l.rank, l.entries)});
  return t;
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
  if (!opt.out.empty()) {
    write_scoring_outputs(rank.result, opt.out);
    write_file_atomic(fs::path(opt.out) / "ranks.csv", format_table(rank_table(rank), OutputFormat::kCsv));
    write_file_atomic(fs::path(opt.out) / "letters.csv",
                      format_table(letter_table(rank), OutputFormat::kCsv));
  }
  print_table(opt.table == "letters" ? letter_table(rank) : rank_table(rank), global);
  for (const std::string& team : rank.teams) {
    int above = 0, letters = 0;
    for (const LetterVsField& l : rank.letters)
      if (l.team == team) ++letters, above += l.above_median ? 1 : 0;
    for (const EntryScore& e : rank.result.entries)
      if (e.name == team)
        log_info(
            "{}: rank {} of {}, prompt score {:.6g}; diversity above the field's median in {} of {} letters",
            team, e.rank, rank.result.entries.size(), e.prompt_score, above, letters);
  }
  for (const ItemFailure& error : rank.result.errors) log_error("{}", error.what());
  return rank.result.errors.empty() ? kExitOk : kExitItemsFailed;
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
      "one birds eval used; the letters table compares each letter's diversity with the field's median.");
  return [opt, &global] { return run_rank(*opt, global); };
}

}  // namespace

PCGLAB_REGISTER_COMMAND(
    "birds", "rank",
    "Teams scored together with a published field (2024 policy): the rank they would have had", setup_rank);

}  // namespace pcglab::cli
