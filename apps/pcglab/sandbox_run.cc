// `pcglab sandbox run FILE.py [--call FUNC --args JSON]`: runs a file as the tracks run generated
// code (same worker, limits and isolation) and prints what each step returned or why it failed.
#include <fstream>
#include <sstream>

#include "command.h"
#include "core/check.h"
#include "core/json.h"
#include "sandbox/isolation.h"
#include "sandbox/worker.h"

namespace pcglab::cli {
namespace {

struct RunOptions {
  std::string file;
  std::string call;
  std::string args = "[]";
  double timeout = 10;
  double load_timeout = 30;
  int memory = 1024;
  std::vector<std::string> preload;  // NAME=FILE
  bool unsafe = false;
};

std::string read_text(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SetupError(fmt::format("{} {}: cannot be read", what, path));
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

int run_sandbox_file(const RunOptions& opt, const GlobalOptions& global) {
  const std::string source = read_text(opt.file, "sandbox run: file");
  sandbox::List args;
  {
    const Json parsed = as_setup_input([&] { return parse_json(opt.args, "--args"); });
    if (!parsed.is_array())
      throw SetupError("--args must be a JSON array of the call's arguments, e.g. '[1, \"a\"]'");
    args = as_setup_input([&] { return sandbox::from_json(parsed).as<sandbox::List>(); });
  }
  sandbox::WorkerConfig config;
  config.limits.call_timeout_s = opt.timeout;
  config.limits.load_timeout_s = opt.load_timeout;
  config.limits.memory_mb = opt.memory;
  for (const auto& p : opt.preload) {
    const auto eq = p.find('=');
    if (eq == std::string::npos || eq == 0)
      throw SetupError(fmt::format("--preload {}: expected NAME=FILE (e.g. jax.numpy=jnp_stub.py)", p));
    config.preload.push_back({p.substr(0, eq), read_text(p.substr(eq + 1), "--preload file")});
  }
  config.isolation = sandbox::require_isolation(opt.unsafe, config);

  sandbox::Worker worker(config);
  Table table;
  table.columns = {"step", "status", "kind", "cause", "seconds", "value", "output", "error"};
  bool all_ok = true;
  const auto add = [&](const std::string& step, const sandbox::Reply& r) {
    all_ok = all_ok && r.ok();
    table.add_row({step, r.ok() ? "ok" : "error", r.ok() ? "" : error_kind_name(r.failure.kind),
                   r.failure.cause, r.seconds, r.ok() ? dump_json(sandbox::to_json(*r.value)) : "", r.output,
                   r.ok() ? "" : r.describe()});
  };
  const sandbox::Reply ready = worker.wait_ready();
  add("start", ready);
  if (ready.ok()) {
    const sandbox::Reply loaded = worker.load(std::filesystem::path(opt.file).filename().string(), source);
    add("load", loaded);
    if (loaded.ok() && !opt.call.empty()) add("call " + opt.call, worker.call(opt.call, args));
  }
  if (global.format == "md") {
    for (const auto& row : table.rows) {
      std::printf("%s: %s (%.3f s)\n", row[0].get<std::string>().c_str(), row[1].get<std::string>().c_str(),
                  row[4].get<double>());
      if (!row[6].get<std::string>().empty())
        std::printf("  output:\n%s\n", row[6].get<std::string>().c_str());
      if (row[0].get<std::string>().starts_with("call") && !row[5].get<std::string>().empty())
        std::printf("  value: %s\n", row[5].get<std::string>().c_str());
      if (!row[7].get<std::string>().empty())
        std::printf("  error (%s, %s): %s\n", row[2].get<std::string>().c_str(),
                    row[3].get<std::string>().c_str(), row[7].get<std::string>().c_str());
    }
    std::printf("isolation: %s\n", sandbox::isolation_name(config.isolation));
  } else {
    print_table(table, global);
  }
  return all_ok ? kExitOk : kExitItemsFailed;
}

Action setup_run(CLI::App& cmd, const GlobalOptions& global) {
  auto opt = std::make_shared<RunOptions>();
  cmd.add_option("file", opt->file, "Python file to load in a sandbox worker")->required();
  cmd.add_option("--call", opt->call, "Function to call after loading (default: load only)");
  cmd.add_option("--args", opt->args, "The call's arguments as a JSON array")->capture_default_str();
  cmd.add_option("--timeout", opt->timeout, "Wall-clock seconds for the call")
      ->check(number_in(0.01, 86400.0))
      ->capture_default_str();
  cmd.add_option("--load-timeout", opt->load_timeout, "Wall-clock seconds for loading the file")
      ->check(number_in(0.01, 86400.0))
      ->capture_default_str();
  cmd.add_option("--memory", opt->memory, "Address-space limit of the worker in MB")
      ->check(number_in(64, 1048576))
      ->capture_default_str();
  cmd.add_option("--preload", opt->preload, "Helper module put in front of the code: NAME=FILE (repeatable)");
  cmd.add_flag("--unsafe-no-sandbox", opt->unsafe,
               "Run the code without namespaces when the sandbox does not work here (loud warning)");
  return [opt, &global] { return run_sandbox_file(*opt, global); };
}

}  // namespace

PCGLAB_REGISTER_COMMAND("sandbox", "run", "Run a Python file (and one call) as the tracks run generated code",
                        setup_run);

}  // namespace pcglab::cli
