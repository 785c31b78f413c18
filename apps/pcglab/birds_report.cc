// `pcglab birds report`: one self-contained HTML page of a run (see src/birds/report/birds_report.h).
#include <filesystem>

#include "birds/report/birds_report.h"
#include "command.h"
#include "core/files.h"
#include "core/log.h"

namespace pcglab::cli {
namespace {
namespace fs = std::filesystem;

struct ReportOptions {
  std::string input;
  std::string out;
  std::string team;
  std::string scores;
  int thumbnail = 112;
};

int run_report(const ReportOptions& opt, const GlobalOptions& global) {
  birds::BirdsRunOptions options;
  options.team = opt.team;
  options.scores = opt.scores;
  options.thumbnail_px = opt.thumbnail;
  options.threads = global.threads;
  const birds::BirdsRun run = birds::read_birds_run(opt.input, options);
  // One team: the report goes into its folder; several: into the competition folder.
  const fs::path out = !opt.out.empty()
                           ? fs::path(opt.out)
                           : (run.teams.size() == 1 ? run.teams[0].dir : fs::path(opt.input)) / "report.html";
  const std::string html = birds::birds_report_html(run, out);
  write_file_atomic(out, html);
  log_info("report: {} ({} KiB)", out.string(), html.size() / 1024);
  Table t;
  t.columns = {"team", "letters", "trials", "failed", "normalized_score", "report"};
  for (const birds::BirdsTeam& team : run.teams) {
    t.add_row({team.name, team.letters.size(), team.trials_total, team.trials_failed,
               team.normalized_score ? Json(*team.normalized_score) : Json(), out.string()});
  }
  print_table(t, global);
  return kExitOk;
}

Action setup_report(CLI::App& cmd, const GlobalOptions& global) {
  auto opt = std::make_shared<ReportOptions>();
  cmd.add_option("input", opt->input, "Run folder: a team folder (with raw/) or a folder of team folders")
      ->required();
  cmd.add_option(
      "-o,--out", opt->out,
      "HTML file to write (default: <team>/report.html, or <input>/report.html for several teams)");
  cmd.add_option("--team", opt->team, "Only this team of a folder of team folders");
  cmd.add_option("--scores", opt->scores,
                 "Result folder of `birds score` (default: <input>/result, then <team>/../result)");
  cmd.add_option("--thumbnail", opt->thumbnail,
                 "Resolution of the embedded level images in pixels, shown at 112 CSS px (224 for sharp "
                 "HiDPI; 0: no images)")
      ->check(number_in(0, 1024));
  cmd.footer(
      "Reads every stage's files (run.json, raw/, logs/convert.json, logs/simulate.json, stability/, "
      "images/,\n"
      "similarity/, diversity/, result/) and marks missing stages \"not evaluated\". The page is "
      "self-contained:\n"
      "images are embedded as PNG thumbnails.");
  return [opt, &global] { return run_report(*opt, global); };
}

}  // namespace

PCGLAB_REGISTER_COMMAND("birds", "report",
                        "Self-contained HTML report of a run: images, scores, chart, failures", setup_report);

}  // namespace pcglab::cli
