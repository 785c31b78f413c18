// `pcglab sandbox run FILE.py [--call FUNC --args JSON]`: runs a file as the tracks run generated
// code (same worker, limits and isolation) and prints what each step returned or why it failed.
//
// With several files, or --out DIR, the files are one batch (sandbox/run_batch.h: each file one item
// of the batch driver on a WorkerPool of --workers sandbox workers, stored in DIR/logs/batch.sqlite
// and DIR/logs/run.json); --shard splits the files over processes and `pcglab merge DIR` completes
// them. This file reads the options, calls the library and prints.
#include <fstream>
#include <map>
#include <sstream>

#include "batch/merge.h"
#include "batch_options.h"
#include "command.h"
#include "core/check.h"
#include "core/json.h"
#include "core/log.h"
#include "core/thread_pool.h"
#include "llm_options.h"
#include "sandbox/isolation.h"
#include "sandbox/run_batch.h"
#include "sandbox/run_file.h"

namespace pcglab::cli {
namespace {

namespace fs = std::filesystem;

struct RunOptions {
  std::vector<std::string> files;  // as given: the items' keys
  std::vector<std::string> paths;  // where each file is read (a merge: resolved against --out); empty: files
  std::string call;
  std::string args = "[]";
  double timeout = 10;
  double load_timeout = 30;
  int memory = 1024;
  std::vector<std::string> preload;  // NAME=FILE
  SandboxOptions sandbox;
  std::string out;    // batch: the folder of the store and logs/run.json
  std::string shard;  // batch: i/n or auto
  int workers = 0;    // batch: sandbox workers (0: --threads)
  bool keep_state = false;
  bool args_given = false;  // --args (or its environment variable) was set
};

std::string read_text(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SetupError(fmt::format("{} {}: cannot be read", what, path));
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

sandbox::List parse_args(const RunOptions& opt) {
  if (opt.args_given && opt.call.empty())
    throw SetupError(
        "--args: give --call FUNC too (without it the file is only loaded, and the arguments unused)");
  const Json parsed = as_setup_input([&] { return parse_json(opt.args, "--args"); });
  if (!parsed.is_array())
    throw SetupError("--args must be a JSON array of the call's arguments, e.g. '[1, \"a\"]'");
  try {
    return sandbox::from_json(parsed).as<sandbox::List>();
  } catch (const InputError& e) {
    throw SetupError(fmt::format("--args: {}", e.what()));
  }
}

// More workers than cores only oversubscribe the machine (each is a busy process while it runs an
// item): --workers (or --threads, its default) is clamped to the cores, with a warning.
int pool_workers(const RunOptions& opt, int threads) {
  const int requested = opt.workers > 0 ? opt.workers : threads;
  const int cores = ThreadPool::hardware_threads();
  if (requested <= cores) return requested;
  log_warn("sandbox run: {} {} is more than the {} cores of this machine; using {} workers",
           opt.workers > 0 ? "--workers" : "--threads", requested, cores, cores);
  return cores;
}

sandbox::WorkerConfig worker_config(const RunOptions& opt) {
  sandbox::WorkerConfig config;
  config.limits.call_timeout_s = opt.timeout;
  config.limits.load_timeout_s = opt.load_timeout;
  config.limits.memory_mb = opt.memory;
  for (const auto& p : opt.preload) {
    const auto eq = p.find('=');
    if (eq == std::string::npos || eq == 0)
      throw SetupError(fmt::format("--preload {}: expected NAME=FILE (e.g. jax.numpy=jnp_stub.py)", p));
    config.preload.push_back(
        {p.substr(0, eq), read_text(p.substr(eq + 1), "--preload file"), p.substr(eq + 1)});
  }
  config.isolation = opt.sandbox.isolation(config);
  return config;
}

OrderedJson batch_settings(const RunOptions& opt, const sandbox::WorkerConfig& config) {
  OrderedJson preload = OrderedJson::array();
  for (const auto& p : opt.preload) preload.push_back(p);
  OrderedJson j = {{"files", opt.files},
                   {"call", opt.call},
                   {"args", opt.args},
                   {"timeout", opt.timeout},
                   {"load_timeout", opt.load_timeout},
                   {"memory", opt.memory},
                   {"preload", preload},
                   {"keep_state", opt.keep_state},
                   {"unsafe_no_sandbox", opt.sandbox.unsafe_no_sandbox}};
  j.update(sandbox::isolation_settings(config.isolation));
  if (!opt.out.empty()) {  // where `pcglab merge` finds the files from any working directory
    j["inputs"] = inputs_relative_to(opt.out, opt.paths.empty() ? opt.files : opt.paths);
    std::vector<std::string> preload_files;
    for (const auto& p : opt.preload) preload_files.push_back(p.substr(p.find('=') + 1));
    j["preload_inputs"] = inputs_relative_to(opt.out, preload_files);
  }
  return j;
}

int run_sandbox_batch(const RunOptions& opt, const GlobalOptions& global) {
  sandbox::RunBatchOptions files;
  files.files = opt.files;
  files.paths = opt.paths;
  files.call = opt.call;
  files.args = parse_args(opt);
  files.args_text = opt.args;
  files.config = worker_config(opt);
  files.keep_state = opt.keep_state;
  files.out = opt.out;
  files.shard = shard_of(opt.shard);
  files.settings = batch_settings(opt, files.config);
  ThreadPool threads(global.threads);
  files.workers = pool_workers(opt, threads.size());
  const sandbox::RunBatchResult run = sandbox::run_files_batch(files, threads);
  Table table;
  table.columns = {"file", "status", "kind", "cause", "value", "output", "error"};
  size_t shown = 0;
  for (size_t i = 0; i < run.keys.size(); ++i) {
    if (!run.outcomes[i]) continue;  // another shard's
    const ItemOutcome& o = *run.outcomes[i];
    const OrderedJson& m = o.metadata;
    ++shown;
    table.add_row({run.keys[i], o.ok() ? "ok" : "error", o.ok() ? "" : error_kind_name(o.kind),
                   m.value("cause", ""), m.contains("value") ? dump_json(m["value"]) : "",
                   m.value("output", ""), o.ok() ? "" : o.message});
  }
  print_table(table, global);
  log_info("sandbox run{}: {} files, {} ran, {} reused, {} failed ({})",
           files.shard.all() ? "" : " " + files.shard.label(), shown, run.ran, run.reused, run.failed,
           sandbox::isolation_name(files.config.isolation));
  return run.failed == 0 ? kExitOk : kExitItemsFailed;
}

int run_sandbox_file(const RunOptions& opt, const GlobalOptions& global) {
  if (opt.files.size() != 1 || !opt.out.empty() || !opt.shard.empty()) return run_sandbox_batch(opt, global);
  const std::string& file = opt.files[0];
  const sandbox::List args = parse_args(opt);
  const std::string source = read_text(file, "sandbox run: file");
  const sandbox::WorkerConfig config = worker_config(opt);

  Table table;
  table.columns = {"step", "status", "kind", "cause", "seconds", "value", "output", "error"};
  bool all_ok = true;
  for (const sandbox::RunStep& step :
       sandbox::run_file_steps(config, fs::path(file).filename().string(), source, opt.call, args)) {
    const sandbox::Reply& r = step.reply;
    all_ok = all_ok && r.ok();
    table.add_row({step.name, r.ok() ? "ok" : "error", r.ok() ? "" : error_kind_name(r.failure.kind),
                   r.failure.cause, r.seconds, r.ok() ? sandbox::to_json_text(*r.value) : "", r.output,
                   r.ok() ? "" : r.describe()});
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
  cmd.add_option("files", opt->files,
                 "Python files to load in a sandbox worker (several, or --out: one batch item each)")
      ->required();
  cmd.add_option("--call", opt->call, "Function to call after loading (default: load only)");
  CLI::Option* args =
      cmd.add_option("--args", opt->args, "The call's arguments as a JSON array (needs --call)")
          ->capture_default_str();
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
  cmd.add_option(
      "-o,--out", opt->out,
      "Batch: folder for the stored outcomes (logs/run.json, logs/batch.sqlite); a rerun runs only "
      "changed files and those that timed out, hit a limit or crashed");
  add_shard_option(cmd, opt->shard);
  cmd.add_option("--workers", opt->workers,
                 "Batch: sandbox workers in the pool (0: --threads; at most the machine's cores)")
      ->check(number_in(0, 256))
      ->capture_default_str();
  cmd.add_flag("--keep-state", opt->keep_state,
               "Batch: reuse a worker's process for the next file (faster; state the code left stays)");
  add_sandbox_options(cmd, opt->sandbox, "the code");
  return [opt, args, &global] {
    opt->args_given = args->count() > 0;
    return run_sandbox_file(*opt, global);
  };
}

int merge_run(const fs::path& dir, const Json& config, int) {
  RunOptions opt;
  opt.out = dir.string();
  opt.files = config.value("files", std::vector<std::string>{});
  opt.call = config.value("call", opt.call);
  opt.args = config.value("args", opt.args);
  opt.args_given = !opt.call.empty();
  opt.timeout = config.value("timeout", opt.timeout);
  opt.load_timeout = config.value("load_timeout", opt.load_timeout);
  opt.memory = config.value("memory", opt.memory);
  opt.preload = config.value("preload", std::vector<std::string>{});
  opt.keep_state = config.value("keep_state", false);
  // A run folder never turns the sandbox off: that takes the flag on the command line.
  if (config.value("unsafe_no_sandbox", false))
    throw SetupError(fmt::format(
        "{}: the shards ran with --unsafe-no-sandbox, which a run folder cannot ask of a merge; complete "
        "it with the same `pcglab sandbox run ... --out {} --unsafe-no-sandbox` command, unsharded",
        dir.string(), dir.string()));
  // The files and preloads from any working directory: resolved against the run folder.
  opt.paths = recorded_inputs(dir, config, opt.files);
  if (config.contains("preload_inputs")) {
    Json preload_config = {{"inputs", config["preload_inputs"]}};
    std::vector<std::string> preload_files;
    for (const auto& p : opt.preload) preload_files.push_back(p.substr(p.find('=') + 1));
    const auto resolved = recorded_inputs(dir, preload_config, preload_files);
    for (size_t i = 0; i < opt.preload.size(); ++i)
      opt.preload[i] = opt.preload[i].substr(0, opt.preload[i].find('=') + 1) + resolved[i];
  }
  return run_sandbox_batch(opt, merge_global_options());
}

}  // namespace

PCGLAB_REGISTER_MERGER("sandbox run", "every file's outcome (logs/run.json)", merge_run);
PCGLAB_REGISTER_COMMAND(
    "sandbox", "run",
    "Run Python files (and one call each) as the tracks run generated code; a batch with --out", setup_run);

}  // namespace pcglab::cli
