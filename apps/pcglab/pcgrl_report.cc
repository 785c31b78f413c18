// `pcglab pcgrl report DIR`: one self-contained HTML page of a `pcgrl refine` folder
// (pcgrl/refine_report.h).
#include <filesystem>

#include "command.h"
#include "core/files.h"
#include "core/log.h"
#include "pcgrl/refine_report.h"

namespace pcglab::cli {
namespace {
namespace fs = std::filesystem;

struct ReportOptions {
  std::string dir;
  std::string out;
};

int run_report(const ReportOptions& o, const GlobalOptions& global) {
  const fs::path out = o.out.empty() ? fs::path(o.dir) / "report.html" : fs::path(o.out);
  const std::string html = pcgrl::refine_report_html(o.dir);
  write_file_atomic(out, html);
  log_info("report: {} ({} KiB)", out.string(), html.size() / 1024);
  Table t;
  t.columns = {"folder", "report", "bytes"};
  t.add_row({o.dir, out.string(), html.size()});
  print_table(t, global);
  return kExitOk;
}

Action setup_report(CLI::App& cmd, const GlobalOptions& global) {
  auto o = std::make_shared<ReportOptions>();
  cmd.add_option("dir", o->dir, "The --out folder of `pcglab pcgrl refine` (finished or still running)")
      ->required()
      ->check(CLI::ExistingDirectory);
  cmd.add_option("-o,--out", o->out, "HTML file to write (default DIR/report.html)");
  return [o, &global] { return run_report(*o, global); };
}

}  // namespace

PCGLAB_REGISTER_COMMAND("pcgrl", "report",
                        "HTML page of a refine run: thought graph, reward diffs, alignment, levels, feedback",
                        setup_report);

}  // namespace pcglab::cli
