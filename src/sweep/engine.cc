#include "sweep/engine.h"

#include <unistd.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "batch/shard.h"
#include "core/check.h"
#include "core/files.h"
#include "core/log.h"
#include "store/run_store.h"
#include "sweep/process.h"

namespace pcglab::sweep {
namespace fs = std::filesystem;
namespace {

// Single-quoted for bash.
std::string quoted(const std::string& word) {
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string quoted_words(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) {
    if (!out.empty()) out += " ";
    out += quoted(w);
  }
  return out;
}

// The loaded sweep.json.
struct State {
  fs::path dir;
  Json json;

  int task_count() const { return static_cast<int>(json["tasks"].size()); }
  const Json& task(int i) const { return json["tasks"][static_cast<size_t>(i)]; }
  fs::path exit_file(int i) const { return dir / "exit" / fmt::format("task-{}", i); }
  fs::path log_file(int i) const { return dir / "logs" / fmt::format("task-{}.log", i); }
  void save() const { write_file_atomic(dir / "sweep.json", dump_json(json, 2) + "\n"); }
};

State load_state(const fs::path& dir) {
  const fs::path file = dir / "sweep.json";
  if (!fs::exists(file))
    throw SetupError(
        fmt::format("{}: not a sweep folder (no sweep.json; `pcglab sweep submit` writes it)", dir.string()));
  return {fs::absolute(dir).lexically_normal(), as_setup_input([&] { return read_json_file(file); })};
}

Json plan_json(const Plan& plan, const SubmitOptions& options) {
  Json tasks = Json::array();
  for (const Task& t : plan.tasks) {
    const Run& run = plan.runs[t.run];
    tasks.push_back({{"index", t.index},
                     {"run", run.name.empty() ? plan.spec.name : run.name},
                     {"out", run.out.string()},
                     {"shard", t.shard},
                     {"shards", t.shards},
                     {"args", t.args}});
  }
  return {{"name", plan.spec.name},       {"engine", options.engine},   {"pcglab", options.pcglab.string()},
          {"throttle", options.throttle}, {"workers", options.workers}, {"tasks", tasks},
          {"submissions", Json::array()}};
}

std::optional<int> read_exit(const State& s, int i) {
  const fs::path file = s.exit_file(i);
  if (!fs::exists(file)) return std::nullopt;
  try {
    return std::stoi(read_file(file));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// "0-7%2" or "1,3%2".
std::string array_spec(const std::vector<int>& tasks, int throttle) {
  std::string spec;
  bool contiguous = true;
  for (size_t k = 1; k < tasks.size(); ++k) contiguous = contiguous && tasks[k] == tasks[k - 1] + 1;
  if (contiguous && tasks.size() > 1) {
    spec = fmt::format("{}-{}", tasks.front(), tasks.back());
  } else {
    for (int t : tasks) {
      if (!spec.empty()) spec += ",";
      spec += std::to_string(t);
    }
  }
  if (throttle > 0) spec += fmt::format("%{}", throttle);
  return spec;
}

std::string job_id_of(const ProcessResult& r, const std::string& what) {
  if (r.exit_code != 0)
    throw SetupError(
        fmt::format("{} failed (exit {}): {}", what, r.exit_code,
                    r.exit_code == 127 ? "sbatch not found: is Slurm's client installed?" : r.err));
  std::string id = r.out.substr(0, r.out.find_first_of(";\n"));
  if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos)
    throw SetupError(fmt::format("{}: unexpected output '{}'", what, r.out));
  return id;
}

// Runs the tasks on this machine, `workers` at a time, then merge.sh.
int run_local(const State& s, const std::vector<int>& tasks, int workers) {
  if (workers <= 0) workers = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  size_t next = 0;
  int running = 0;
  while (next < tasks.size() || running > 0) {
    while (running < workers && next < tasks.size()) {
      const int i = tasks[next++];
      start_process({"bash", (s.dir / "task.sh").string()},
                    {{"SLURM_ARRAY_TASK_ID", std::to_string(i)}, {"SLURM_JOB_ID", "local"}}, s.log_file(i));
      ++running;
    }
    wait_any();
    --running;
  }
  const int pid = start_process({"bash", (s.dir / "merge.sh").string()}, {}, s.dir / "logs" / "merge.log");
  for (;;) {
    const auto [done, code] = wait_any();
    if (done == pid) return code;
  }
}

int submit_tasks(State& s, const std::vector<int>& tasks, bool dry_run, std::string& report) {
  for (int i : tasks) fs::remove(s.exit_file(i));
  const std::string engine = s.json["engine"];
  const int throttle = s.json["throttle"];
  if (engine == "local") {
    s.json["submissions"].push_back({{"engine", "local"}, {"tasks", tasks}});
    s.save();
    const int code = run_local(s, tasks, s.json["workers"]);
    report += fmt::format("ran {} task(s) on this machine; merge exit {}; see {}\n", tasks.size(), code,
                          (s.dir / "failures.json").string());
    return code == 0 ? 0 : 1;
  }
  const std::vector<std::string> array = {"sbatch", "--parsable", "--array=" + array_spec(tasks, throttle),
                                          (s.dir / "task.sh").string()};
  std::vector<std::string> merge = {"sbatch", "--parsable", "--dependency=afterany:JID",
                                    (s.dir / "merge.sh").string()};
  if (dry_run) {
    report += quoted_words(array) + "\n" + quoted_words(merge) + "\n";
    return 0;
  }
  const std::string jid = job_id_of(run_process(array), "sbatch of the array");
  merge[2] = "--dependency=afterany:" + jid;
  const std::string mjid = job_id_of(run_process(merge), "sbatch of the merge job");
  s.json["submissions"].push_back(
      {{"engine", "slurm"}, {"array_job", jid}, {"merge_job", mjid}, {"tasks", tasks}});
  s.save();
  report += fmt::format("array job {} ({} task(s)), merge job {}\n", jid, tasks.size(), mjid);
  return 0;
}

// Slurm's state of each task still in the queue, by array index (latest submission wins); nullopt
// when squeue does not answer.
std::optional<std::map<int, std::string>> try_queued_states(const State& s) {
  std::map<int, std::string> out;
  std::map<std::string, std::set<int>> jobs;  // array job -> its tasks
  std::string ids;
  for (const auto& sub : s.json["submissions"]) {
    if (!sub.contains("array_job")) continue;
    if (!ids.empty()) ids += ",";
    ids += sub["array_job"].get<std::string>();
  }
  if (ids.empty()) return out;
  const auto r = run_process({"timeout", "20", "squeue", "-h", "-r", "-j", ids, "-o", "%i|%T"});
  if (r.exit_code != 0) {
    log_warn("sweep: squeue failed (exit {}): {}", r.exit_code, r.err);
    return std::nullopt;
  }
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    const auto bar = line.find('|'), under = line.find('_');
    if (bar == std::string::npos || under == std::string::npos || under > bar) continue;
    try {
      out[std::stoi(line.substr(under + 1, bar - under - 1))] = line.substr(bar + 1);
    } catch (const std::exception&) {
    }
  }
  return out;
}

std::map<int, std::string> queued_states(const State& s) {
  if (s.json["engine"] != "slurm") return {};
  auto states = try_queued_states(s);
  if (!states) log_warn("sweep status: pending and running tasks show as missing (squeue did not answer)");
  return states ? *states : std::map<int, std::string>{};
}

std::string state_of(const State& s, int i, const std::map<int, std::string>& queued) {
  if (const auto it = queued.find(i); it != queued.end()) {
    if (it->second == "PENDING" || it->second == "CONFIGURING") return "pending";
    return "running";
  }
  const auto code = read_exit(s, i);
  if (!code) return "missing";
  return *code == 0 || *code == 1 ? "done" : "failed";
}

// Items ok and failed of the task's shard, from the stores under the run's folder or a sub-folder
// of it (birds roots a batch per team): the shard's own store, and the unsharded store that a
// merge absorbed it into (only the items the shard owns).
std::pair<int64_t, int64_t> stored_items(const Json& task) {
  const fs::path out = task["out"].get<std::string>();
  const batch::Shard shard{task["shard"].get<int>(), task["shards"].get<int>()};
  const std::string own = fmt::format("logs/shards/{}-of-{}.sqlite", shard.index, shard.count);
  std::vector<fs::path> roots = {out};
  std::error_code ec;
  if (fs::is_directory(out))
    for (const auto& e : fs::directory_iterator(out, ec))
      if (e.is_directory() && !e.is_symlink()) roots.push_back(e.path());
  std::map<std::pair<std::string, std::string>, bool> items;  // (stage, key) -> ok
  const auto read = [&](const fs::path& path, bool owned_only) {
    if (!fs::is_regular_file(path)) return;
    try {
      store::RunStore db(path);
      for (const auto& row : db.outcomes()) {
        if (owned_only && !shard.owns(row.key)) continue;
        const Json o = parse_json(row.outcome, path.string());
        items[{row.stage, row.key}] = o.value("status", "") == "ok";
      }
    } catch (const std::exception& e) {
      log_warn("sweep status: {}: {}", path.string(), e.what());
    }
  };
  for (const fs::path& root : roots) {
    read(root / "logs/batch.sqlite", !shard.all());
    if (!shard.all()) read(root / own, false);
  }
  int64_t ok = 0;
  for (const auto& [item, good] : items) ok += good ? 1 : 0;
  return {ok, static_cast<int64_t>(items.size()) - ok};
}

std::vector<int> unfinished(const State& s, const std::map<int, std::string>& queued) {
  std::vector<int> out;
  for (int i = 0; i < s.task_count(); ++i) {
    const std::string state = state_of(s, i, queued);
    if (state == "failed" || state == "missing") out.push_back(i);
  }
  return out;
}

}  // namespace

Scripts make_scripts(const Plan& plan, const SubmitOptions& o) {
  const fs::path dir = fs::absolute(o.dir);
  std::string head = "#!/bin/bash\n";
  head += fmt::format("#SBATCH --job-name={}\n", "pcglab-" + plan.spec.name);
  std::string task = head;
  task += fmt::format("#SBATCH --output={}\n", (dir / "logs" / "task-%a.log").string());
  task += "#SBATCH --signal=B:USR1@300\n";
  if (!o.time.empty()) task += fmt::format("#SBATCH --time={}\n", o.time);
  if (!o.partition.empty()) task += fmt::format("#SBATCH --partition={}\n", o.partition);
  if (o.gpus_per_task > 0) task += fmt::format("#SBATCH --gpus-per-task={}\n", o.gpus_per_task);
  task += fmt::format(
      "# pcglab sweep {}: array task $SLURM_ARRAY_TASK_ID runs one shard of one run. No secrets here: API\n"
      "# keys come from the submitting shell's environment (sbatch exports it).\n"
      "set -u\n"
      "task=${{SLURM_ARRAY_TASK_ID:?not a Slurm array task}}\n"
      "case $task in\n",
      plan.spec.name);
  for (const Task& t : plan.tasks) {
    std::vector<std::string> argv = {o.pcglab.string()};
    argv.insert(argv.end(), t.args.begin(), t.args.end());
    task += fmt::format("  {}) cmd=({}) ;;\n", t.index, quoted_words(argv));
  }
  const std::string exit_dir = (dir / "exit").string();
  task += "  *) echo \"pcglab sweep: no task $task\" >&2; exit 2 ;;\nesac\n";
  task += fmt::format(
      "exit_file={}/task-$task\n"
      "rm -f \"$exit_file\"\n"
      "# Slurm signals this script (--signal=B:USR1): pass it on; pcglab finishes its running items,\n"
      "# records them and exits 2, and a resubmission resumes from the run store.\n"
      "\"${{cmd[@]}}\" &\n"
      "child=$!\n"
      "trap 'kill -USR1 $child 2>/dev/null' USR1\n"
      "trap 'kill -TERM $child 2>/dev/null' TERM\n"
      "rc=0\n"
      "while :; do\n"
      "  wait $child; rc=$?\n"
      "  kill -0 $child 2>/dev/null || break\n"
      "done\n"
      "if [ $rc -gt 128 ]; then wait $child; again=$?; [ $again -ne 127 ] && rc=$again; fi\n"
      "echo $rc > \"$exit_file.tmp\" && mv \"$exit_file.tmp\" \"$exit_file\"\n"
      "exit $rc\n",
      quoted(exit_dir));
  std::string merge = head;
  merge += fmt::format("#SBATCH --output={}\n", (dir / "logs" / "merge.log").string());
  if (!o.time.empty()) merge += fmt::format("#SBATCH --time={}\n", o.time);
  if (!o.partition.empty()) merge += fmt::format("#SBATCH --partition={}\n", o.partition);
  merge += fmt::format(
      "# pcglab sweep {}: after every task (afterany): pcglab merge on each sharded run whose shards\n"
      "# all finished, and failures.json.\n"
      "exec {} sweep collect {}\n",
      plan.spec.name, quoted(o.pcglab.string()), quoted(dir.string()));
  return {task, merge};
}

int submit(const Plan& plan, const SubmitOptions& options, std::string& report) {
  if (options.engine != "slurm" && options.engine != "local")
    throw SetupError(fmt::format("--engine {}: give slurm or local", options.engine));
  SubmitOptions o = options;
  o.dir = fs::absolute(o.dir).lexically_normal();
  const Scripts scripts = make_scripts(plan, o);
  State s{o.dir, plan_json(plan, o)};
  std::vector<int> all(plan.tasks.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
  if (o.dry_run) {
    report += fmt::format("# {}\n{}\n# {}\n{}\n# commands ({} engine)\n", (o.dir / "task.sh").string(),
                          scripts.task, (o.dir / "merge.sh").string(), scripts.merge, o.engine);
    if (o.engine == "local") {
      report += fmt::format("tasks 0-{} with SLURM_ARRAY_TASK_ID set, {} at a time, then merge.sh\n",
                            plan.tasks.size() - 1, o.workers);
      return 0;
    }
    return submit_tasks(s, all, true, report);
  }
  if (fs::exists(o.dir / "sweep.json"))
    throw SetupError(
        fmt::format("{}: already holds a sweep (sweep.json); `pcglab sweep status` or `resubmit` it, "
                    "or give another --dir",
                    o.dir.string()));
  fs::create_directories(o.dir / "logs");
  fs::create_directories(o.dir / "exit");
  for (const Run& run : plan.runs) fs::create_directories(run.out);
  write_file_atomic(o.dir / "task.sh", scripts.task);
  write_file_atomic(o.dir / "merge.sh", scripts.merge);
  fs::permissions(o.dir / "task.sh", fs::perms::owner_exec | fs::perms::group_exec, fs::perm_options::add);
  fs::permissions(o.dir / "merge.sh", fs::perms::owner_exec | fs::perms::group_exec, fs::perm_options::add);
  s.save();
  return submit_tasks(s, all, false, report);
}

Table sweep_status(const fs::path& dir) {
  const State s = load_state(dir);
  const auto queued = queued_states(s);
  Table t;
  t.columns = {"task", "run", "shard", "state", "exit_code", "items_ok", "items_failed", "log"};
  for (int i = 0; i < s.task_count(); ++i) {
    const Json& task = s.task(i);
    const auto code = read_exit(s, i);
    const auto [ok, failed] = stored_items(task);
    t.add_row({i, task["run"], fmt::format("{}/{}", task["shard"].get<int>(), task["shards"].get<int>()),
               state_of(s, i, queued), code ? Json(*code) : Json(), ok, failed, s.log_file(i).string()});
  }
  // The merges, as the last merge job recorded them.
  if (fs::exists(dir / "failures.json")) {
    const Json report = as_setup_input([&] { return read_json_file(dir / "failures.json"); });
    for (const auto& m : report.value("merges", Json::array()))
      t.add_row({"merge", m["run"], "", m["state"], m["exit_code"], Json(), Json(), m["log"]});
  }
  return t;
}

int resubmit(const fs::path& dir, bool dry_run, std::string& report) {
  State s = load_state(dir);
  std::map<int, std::string> queued;
  if (s.json["engine"] == "slurm") {
    const auto states = try_queued_states(s);
    // Without squeue a pending or running task looks missing: submitting it again would run it twice.
    if (!states)
      throw SetupError(
          fmt::format("sweep resubmit {}: squeue did not answer, so tasks still pending or running "
                      "cannot be told from missing ones; try again when Slurm answers",
                      dir.string()));
    queued = *states;
  }
  const std::vector<int> tasks = unfinished(s, queued);
  if (tasks.empty()) {
    report += "nothing to resubmit: every task is done, pending or running\n";
    return 0;
  }
  report += fmt::format("resubmitting task(s) {}\n", fmt::join(tasks, ","));
  return submit_tasks(s, tasks, dry_run, report);
}

int collect(const fs::path& dir) {
  const State s = load_state(dir);
  Json failed = Json::array(), merges = Json::array();
  std::map<std::string, std::vector<int>> runs;  // run -> its tasks
  std::vector<std::string> order;
  for (int i = 0; i < s.task_count(); ++i) {
    const Json& task = s.task(i);
    const std::string run = task["run"];
    if (runs.count(run) == 0) order.push_back(run);
    runs[run].push_back(i);
    const auto code = read_exit(s, i);
    if (!code || (*code != 0 && *code != 1))
      failed.push_back({{"task", i},
                        {"run", run},
                        {"shard", fmt::format("{}/{}", task["shard"].get<int>(), task["shards"].get<int>())},
                        {"exit_code", code ? Json(*code) : Json()},
                        {"state", code ? "failed" : "missing"},
                        {"log", s.log_file(i).string()}});
  }
  bool all_ok = failed.empty();
  for (const std::string& run : order) {
    const std::vector<int>& tasks = runs[run];
    const Json& first = s.task(tasks.front());
    if (first["shards"].get<int>() <= 1) continue;
    const fs::path log = dir / "logs" / fmt::format("merge-{}.log", run);
    bool shards_done = true;
    for (int i : tasks) {
      const auto code = read_exit(s, i);
      shards_done = shards_done && code && (*code == 0 || *code == 1);
    }
    if (!shards_done) {
      merges.push_back({{"run", run},
                        {"state", "skipped"},
                        {"exit_code", nullptr},
                        {"log", ""},
                        {"why", "a shard failed or is missing: pcglab sweep resubmit " + dir.string()}});
      continue;
    }
    const auto r =
        run_process({s.json["pcglab"].get<std::string>(), "merge", first["out"].get<std::string>()});
    write_file_atomic(log, r.out + r.err);
    all_ok = all_ok && r.exit_code == 0;
    merges.push_back({{"run", run},
                      {"state", r.exit_code == 0 || r.exit_code == 1 ? "done" : "failed"},
                      {"exit_code", r.exit_code},
                      {"log", log.string()}});
  }
  write_file_atomic(dir / "failures.json", dump_json(Json{{"failed", failed}, {"merges", merges}}, 2) + "\n");
  return all_ok ? 0 : 1;
}

}  // namespace pcglab::sweep
