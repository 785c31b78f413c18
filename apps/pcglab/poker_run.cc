// `pcglab poker run GAME.py --seeds 1-40 [--format json]`: a CustomGame file (`from GameBase import
// *` and `class CustomGame(GameBase)`, the official run template without its seed and play lines)
// played once per seed in the sandbox; each seed's final `state`, or its error (poker/run.h).
// `--actions FILE` plays in manual mode with the file's lines as the decisions; `--log` adds each
// seed's round log (GameBase's log lines, capped).
#include <iostream>
#include <memory>

#include "command.h"
#include "core/check.h"
#include "core/files.h"
#include "core/json.h"
#include "llm_options.h"
#include "poker/run.h"

namespace pcglab::cli {
namespace {

struct PokerRunOptions {
  std::string game;
  std::string seeds = "1-40";
  double timeout = 10;
  int memory = 1024;
  bool python_showdown = false;
  std::string actions;
  bool log = false;
  SandboxOptions sandbox;
};

int run_poker(const PokerRunOptions& o, const GlobalOptions& global) {
  const std::string code = as_setup_input([&] { return read_file(o.game); });
  const std::vector<int64_t> seeds = as_setup_input([&] { return poker::parse_seeds(o.seeds); });
  poker::RunOptions run;
  run.worker.limits.call_timeout_s = o.timeout;
  run.worker.limits.memory_mb = o.memory;
  run.native = !o.python_showdown;
  run.log = o.log;
  {
    // The poker zygote starts while the sandbox check runs (each starts an interpreter of its own).
    const std::jthread zygote = poker::start_poker_zygote(run);
    run.worker.isolation = o.sandbox.isolation(run.worker);
  }
  if (!o.actions.empty()) {
    const std::string text = as_setup_input([&] { return read_file(o.actions); });
    run.actions.emplace();
    size_t start = 0;
    while (start < text.size()) {
      size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      std::string line = text.substr(start, end - start);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      run.actions->push_back(std::move(line));
      start = end + 1;
    }
  }
  const std::string filename = std::filesystem::path(o.game).filename().string();
  const std::vector<poker::SeedRun> runs = poker::run_game(filename, code, seeds, run);
  bool all_ok = true;
  const OutputFormat format = global.output_format();
  OrderedJson array = OrderedJson::array();
  for (const auto& r : runs) {
    all_ok = all_ok && r.ok;
    OrderedJson item = r.ok ? r.state : r.error_json();
    if (o.log) item["log"] = r.log;
    if (format == OutputFormat::kJson) {
      array.push_back(item);
    } else if (format == OutputFormat::kJsonl) {
      std::cout << item.dump() << "\n";
    } else if (r.ok) {
      std::cout << "seed " << r.seed << ": " << r.state.dump() << "\n";
    } else {
      std::cout << "seed " << r.seed << ": error (" << r.cause << ") "
                << (r.type.empty() ? r.message : r.type + ": " + r.message);
      for (const auto& f : r.frames) std::cout << " [" << f << "]";
      std::cout << "\n";
    }
    if (o.log && format != OutputFormat::kJson && format != OutputFormat::kJsonl) {
      for (const auto& line : r.log) std::cout << (line.empty() ? "" : "  ") << line << "\n";
    }
  }
  if (format == OutputFormat::kJson) std::cout << array.dump(1) << "\n";
  return all_ok ? kExitOk : kExitItemsFailed;
}

Action setup_poker_run(CLI::App& cmd, const GlobalOptions& global) {
  auto o = std::make_shared<PokerRunOptions>();
  cmd.add_option("game", o->game, "The game file: `from GameBase import *` and `class CustomGame(GameBase)`")
      ->required();
  cmd.add_option("--seeds", o->seeds, "The seeds, in order: 1-40, 7, or 1,5,9-12")->capture_default_str();
  cmd.add_option("--timeout", o->timeout,
                 "Wall-clock seconds the seeds' call may take (each seed's, on a retry)")
      ->check(number_in(0.01, 86400.0))
      ->capture_default_str();
  cmd.add_option("--memory", o->memory, "Memory limit of the sandbox worker, MB")
      ->check(number_in(64, 1 << 20))
      ->capture_default_str();
  cmd.add_flag("--python-showdown", o->python_showdown,
               "Rank hands in Python only (the reference path), not in the native _pcglab_poker");
  cmd.add_option("--actions", o->actions,
                 "Manual mode: play(auto=False), each decision input() asks for read from the next line "
                 "of this file (bet: c, f, r X; switch: indices like 0,2 or an empty line); every seed "
                 "starts from the first line. Default: auto mode")
      ->capture_default_str();
  cmd.add_flag("--log", o->log,
               "Also give each seed's round log (GameBase's log lines, at most 4000 lines and 256 KiB a "
               "seed): a `log` array in each seed's JSON object, or the lines after each seed's line");
  add_sandbox_options(cmd, o->sandbox, "the game");
  return [o, &global] { return run_poker(*o, global); };
}

}  // namespace

PCGLAB_REGISTER_COMMAND("poker", "run",
                        "Play a CustomGame file once per seed (play(auto=True)) and print each final state",
                        setup_poker_run);

}  // namespace pcglab::cli
