// `pcglab textgame eval DIR` (the per-game table and the paper's summary tables of an experiment
// folder, md/csv/json) and `pcglab textgame report DIR` (one self-contained HTML page):
// textgame/eval.h and textgame/eval_report.h read the folder; nothing is run or sent.
#include <filesystem>
#include <iostream>
#include <memory>

#include "command.h"
#include "core/files.h"
#include "core/log.h"
#include "textgame/eval.h"
#include "textgame/eval_report.h"

namespace pcglab::cli {
namespace {
namespace fs = std::filesystem;

struct EvalOptions {
  std::string dir;
  std::string judged;
  std::string out;
  std::string table;
};

void add_folder_options(CLI::App& cmd, EvalOptions& o) {
  cmd.add_option("dir", o.dir, "The --out folder of `pcglab textgame experiment` (or `textgame generate`)")
      ->required();
  cmd.add_option("--judged", o.judged,
                 "The --out folder of `pcglab textgame judge` run on the folder's games (default DIR/judge)");
}

int run_eval(const EvalOptions& o, const GlobalOptions& global) {
  const textgame::ExperimentEval eval = textgame::read_experiment_folder(o.dir, o.judged);
  const std::string text = textgame::format_eval(eval, global.output_format(), o.table);
  if (o.out.empty()) {
    std::cout << text;
  } else {
    write_file_atomic(o.out, text);
    log_info("eval: {} ({} games)", o.out, eval.games.size());
  }
  return kExitOk;
}

Action setup_eval(CLI::App& cmd, const GlobalOptions& global) {
  auto o = std::make_shared<EvalOptions>();
  add_folder_options(cmd, *o);
  cmd.add_option("-o,--out", o->out, "File to write the tables to (default: stdout)");
  cmd.add_option("--table", o->table,
                 "Only this table: games, validity_official, validity_fresh, judged (default: all)");
  cmd.footer(
      "Reads the folder only (never runs a game or sends a request). md: a section per table; csv: each "
      "table after a `# <name>` line; json: {games, summary}. See docs/textgame.md, \"Reports\".");
  return [o, &global] { return run_eval(*o, global); };
}

int run_report(const EvalOptions& o, const GlobalOptions& global) {
  const textgame::ExperimentEval eval = textgame::read_experiment_folder(o.dir, o.judged);
  const fs::path out = o.out.empty() ? fs::path(o.dir) / "report.html" : fs::path(o.out);
  const std::string html = textgame::experiment_report_html(eval);
  write_file_atomic(out, html);
  log_info("report: {} ({} KiB)", out.string(), html.size() / 1024);
  Table t;
  t.columns = {"folder", "report", "games", "bytes"};
  t.add_row({o.dir, out.string(), eval.games.size(), html.size()});
  print_table(t, global);
  return kExitOk;
}

Action setup_report(CLI::App& cmd, const GlobalOptions& global) {
  auto o = std::make_shared<EvalOptions>();
  add_folder_options(cmd, *o);
  cmd.add_option("-o,--out", o->out, "HTML file to write (default DIR/report.html)");
  return [o, &global] { return run_report(*o, global); };
}

}  // namespace

PCGLAB_REGISTER_COMMAND("textgame", "eval",
                        "BYTESIZED32: per-game table and the paper's summary tables of an experiment folder",
                        setup_eval);
PCGLAB_REGISTER_COMMAND(
    "textgame", "report",
    "BYTESIZED32: one self-contained HTML page of an experiment folder (flags, judgements, "
    "trajectory, reflection diffs)",
    setup_report);

}  // namespace pcglab::cli
