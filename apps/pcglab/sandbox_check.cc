// `pcglab sandbox check`: which isolation features work here (exit 0 when the sandbox works, 1
// when the tracks would refuse untrusted code without --unsafe-no-sandbox).
#include "command.h"
#include "sandbox/isolation.h"

namespace pcglab::cli {
namespace {

struct CheckOptions {
  bool rules = false;
};

int run_check(const CheckOptions& opt, const GlobalOptions& global) {
  const sandbox::IsolationReport report = sandbox::check_isolation();
  Table table;
  table.columns = {"feature", "ok", "detail"};
  for (const auto& c : report.checks) table.add_row({c.feature, c.ok ? "yes" : "NO", c.detail});
  if (opt.rules)
    for (const auto& r : sandbox::seccomp_rules())
      table.add_row({"seccomp: " + r.syscall, "denied", r.action});
  print_table(table, global);
  if (!report.sandbox_works) {
    std::fprintf(
        stderr,
        "sandbox check: the sandbox does not work here (%s); the tracks refuse generated code unless "
        "--unsafe-no-sandbox is given\n",
        report.problem.c_str());
    return kExitItemsFailed;
  }
  return kExitOk;
}

Action setup_check(CLI::App& cmd, const GlobalOptions& global) {
  auto opt = std::make_shared<CheckOptions>();
  cmd.add_flag("--rules", opt->rules, "Also list the system calls the seccomp filter denies");
  return [opt, &global] { return run_check(*opt, global); };
}

}  // namespace

PCGLAB_REGISTER_COMMAND("sandbox", "check", "Report which isolation features work on this machine",
                        setup_check);

}  // namespace pcglab::cli
