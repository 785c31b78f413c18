#include "poker/run.h"

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <memory>
#include <thread>

#include <fmt/format.h>

#include "core/check.h"
#include "core/log.h"
#include "sandbox/decoded_value.h"
#include "sandbox/worker.h"

namespace pcglab::poker {

extern const unsigned char kGameBasePy[];     // generated/embedded/kGameBasePy.cc
extern const unsigned char kPokerRunnerPy[];  // generated/embedded/kPokerRunnerPy.cc

namespace fs = std::filesystem;

namespace {

constexpr const char* kRunnerFile = "pcglab_poker_runner.py";
constexpr std::string_view kCutLine = "[pcglab: round log cut here:";  // as GameBase.py's _RoundLog

std::string python_string(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\\' || c == '\'') out += '\\';
    out += c;
  }
  return out + "'";
}

SeedRun seed_failure(int64_t seed, const sandbox::Failure& f) {
  SeedRun r;
  r.seed = seed;
  r.kind = f.kind;
  r.cause = f.cause;
  r.message = f.message;
  return r;
}

// The round log the worker returned, with the cap enforced here too (the worker's copy of
// GameBase is the game's to change): at most `max_lines` lines and `max_bytes` bytes, then one line
// saying how many were left out. A value that is not a list of str gives no lines.
std::vector<std::string> decode_log(const sandbox::DecodedValue& v, const RunOptions& options) {
  std::vector<std::string> lines;
  if (!v.is<sandbox::List>()) return lines;
  const size_t max_lines = static_cast<size_t>(std::max(options.log_lines, 0));
  size_t room = static_cast<size_t>(std::max(options.log_bytes, 0));
  size_t kept = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    const sandbox::DecodedValue line = v[i];
    if (!line.is<std::string>()) continue;
    const std::string_view text = line.as_str();
    // The worker's own cut line (its last) is not counted against the cap.
    const bool cut_line = i + 1 == v.size() && text.size() <= 256 && text.starts_with(kCutLine);
    if (!cut_line && (kept >= max_lines || text.size() + 1 > room)) {
      lines.push_back(
          fmt::format("{} {} more lines not kept (at most {} lines "
                      "and {} bytes per round)]",
                      kCutLine, v.size() - i, options.log_lines, options.log_bytes));
      return lines;
    }
    if (cut_line) {
      lines.emplace_back(text);
      return lines;
    }
    room -= text.size() + 1;
    ++kept;
    lines.emplace_back(text);
  }
  return lines;
}

SeedRun decode_seed(int64_t seed, const sandbox::DecodedValue& v, const RunOptions& options) {
  SeedRun r;
  r.seed = seed;
  if (options.log && v.size() > 2) r.log = decode_log(v[2], options);
  if (v[0].as_bool()) {
    r.ok = true;
    r.state = sandbox::to_json(v[1]);
    return r;
  }
  const sandbox::DecodedValue e = v[1];
  r.kind = ErrorKind::kBadInput;
  r.cause = "exception";
  r.type = std::string(e[0].as_str());
  r.message = std::string(e[1].as_str());
  for (size_t i = 0; i < e[2].size(); ++i) r.frames.emplace_back(e[2][i].as_str());
  return r;
}

sandbox::List seed_list(const std::vector<int64_t>& seeds) {
  sandbox::List list;
  for (int64_t s : seeds) list.emplace_back(s);
  return list;
}

// run_seeds' arguments: the file, its code, the seeds and, in manual mode, the scripted decisions.
sandbox::List run_seeds_args(const std::string& filename, const std::string& code,
                             const std::vector<int64_t>& seeds, const RunOptions& options) {
  sandbox::List args{filename, code, seed_list(seeds)};
  if (options.actions) {
    sandbox::List lines;
    for (const auto& line : *options.actions) lines.emplace_back(line);
    args.emplace_back(std::move(lines));
  } else if (options.log) {
    args.emplace_back(sandbox::Value{});  // actions=None
  }
  if (options.log) args.emplace_back(sandbox::List{int64_t{options.log_lines}, int64_t{options.log_bytes}});
  return args;
}

}  // namespace

OrderedJson SeedRun::error_json() const {
  OrderedJson error = OrderedJson::object();
  error["kind"] = error_kind_name(kind);
  error["cause"] = cause;
  error["type"] = type;
  error["message"] = message;
  error["frames"] = frames;
  OrderedJson j = OrderedJson::object();
  j["seed"] = seed;
  j["error"] = std::move(error);
  return j;
}

const char* gamebase_source() {
  return reinterpret_cast<const char*>(kGameBasePy);
}

std::string native_module_dir() {
  const char* env = std::getenv("PCGLAB_POKER_PYTHON_DIR");
  const std::string dir = env != nullptr && *env != '\0' ? env : PCGLAB_POKER_PYTHON_DIR;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return "";
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with("_pcglab_poker") && name.ends_with(".so")) return dir;
  }
  return "";
}

sandbox::WorkerConfig poker_worker_config(sandbox::WorkerConfig base, bool native, bool preload_numpy) {
  std::string path_source = "import sys\n";
  const std::string dir = native ? native_module_dir() : "";
  if (!dir.empty()) {
    base.ro_binds.push_back(dir);
    path_source += "sys.path.insert(0, " + python_string(dir) + ")\n";
  } else {
    if (native)
      log_warn("poker: the native showdown (_pcglab_poker) is not built; hands are ranked in Python");
    path_source += "sys.modules['_pcglab_poker'] = None\n";  // GameBase takes its Python path
  }
  // GameBase needs no numpy, nor does the official one: a game that imports it gets it then.
  base.numpy = preload_numpy;
  base.preload.emplace_back("_pcglab_poker_path", path_source);
  base.preload.emplace_back("GameBase", gamebase_source(), "GameBase.py");
  return base;
}

namespace {

// One game on a fresh worker (started by its constructor): the runner loaded, all seeds in one call,
// then each seed alone when that call was lost.
std::vector<SeedRun> play_on(sandbox::Worker& worker, const std::string& filename, const std::string& code,
                             const std::vector<int64_t>& seeds, const RunOptions& options) {
  std::vector<SeedRun> runs;
  const sandbox::Reply loaded = worker.load(kRunnerFile, reinterpret_cast<const char*>(kPokerRunnerPy));
  if (!loaded.ok()) {
    PCGLAB_CHECK(loaded.failure.kind != ErrorKind::kBadInput)
        << "the poker runner did not load: " << loaded.describe();
    for (int64_t s : seeds) runs.push_back(seed_failure(s, loaded.failure));
    return runs;
  }
  const sandbox::Reply all = worker.call("run_seeds", run_seeds_args(filename, code, seeds, options));
  if (all.ok()) {
    for (size_t i = 0; i < seeds.size(); ++i) runs.push_back(decode_seed(seeds[i], (*all.value)[i], options));
    return runs;
  }
  // The call was lost (a timeout, a limit, a crash, a value that cannot cross): each seed alone.
  for (int64_t s : seeds) {
    const sandbox::Reply one = worker.call("run_seeds", run_seeds_args(filename, code, {s}, options));
    runs.push_back(one.ok() ? decode_seed(s, (*one.value)[0], options) : seed_failure(s, one.failure));
  }
  return runs;
}

}  // namespace

std::vector<SeedRun> run_game(const std::string& filename, const std::string& code,
                              const std::vector<int64_t>& seeds, const RunOptions& options) {
  sandbox::Worker worker(poker_worker_config(options.worker, options.native, options.preload_numpy));
  return play_on(worker, filename, code, seeds, options);
}

std::jthread start_poker_zygote(const RunOptions& options) {
  sandbox::WorkerConfig config = poker_worker_config(options.worker, options.native, options.preload_numpy);
  config.isolation = sandbox::Isolation::kSandbox;  // only sandboxed workers have a zygote
  const char* env = std::getenv("PCGLAB_SANDBOX_ZYGOTE");
  if (!config.zygote || (env != nullptr && std::string(env) == "0")) return {};  // no zygote to start
  return std::jthread([config = std::move(config)] {
    try {
      sandbox::Worker worker(config);
      (void)worker.load("empty.py", "");  // waits for the zygote and the fork
    } catch (...) {
      // reported by the run that follows
    }
  });
}

std::vector<std::vector<SeedRun>> run_games(const std::vector<GameFile>& games,
                                            const std::vector<int64_t>& seeds, const RunOptions& options,
                                            int parallel) {
  if (games.empty()) return {};
  const sandbox::WorkerConfig config =
      poker_worker_config(options.worker, options.native, options.preload_numpy);
  std::vector<std::vector<SeedRun>> runs(games.size());
  const size_t lanes = std::clamp<size_t>(static_cast<size_t>(std::max(parallel, 1)), 1, games.size());
  std::vector<std::exception_ptr> errors(lanes);
  // Lane k plays games k, k + lanes, ...; each game's worker is started (forked by the zygote,
  // asynchronously) while the lane's previous game plays, so a game waits for no start-up but the
  // first.
  const auto lane = [&](size_t k) {
    try {
      std::unique_ptr<sandbox::Worker> next = std::make_unique<sandbox::Worker>(config);
      for (size_t g = k; g < games.size(); g += lanes) {
        const std::unique_ptr<sandbox::Worker> worker = std::move(next);
        if (g + lanes < games.size()) next = std::make_unique<sandbox::Worker>(config);
        runs[g] = play_on(*worker, games[g].filename, games[g].code, seeds, options);
      }
    } catch (...) {
      errors[k] = std::current_exception();
    }
  };
  std::vector<std::thread> threads;
  for (size_t k = 1; k < lanes; ++k) threads.emplace_back(lane, k);
  lane(0);
  for (auto& t : threads) t.join();
  for (const auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  return runs;
}

std::vector<int64_t> parse_seeds(const std::string& text) {
  std::vector<int64_t> seeds;
  const auto bad = [&text](const std::string& why) {
    return InputError(fmt::format("--seeds '{}': {} (write e.g. 1-40 or 1,5,9-12)", text, why));
  };
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = text.find(',', start);
    const std::string part =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const size_t dash = part.find('-', 1);
    try {
      size_t used = 0;
      const int64_t a = std::stoll(part.substr(0, dash), &used);
      if (used != (dash == std::string::npos ? part.size() : dash))
        throw bad("'" + part + "' is not a number or range");
      int64_t b = a;
      if (dash != std::string::npos) {
        const std::string hi = part.substr(dash + 1);
        b = std::stoll(hi, &used);
        if (used != hi.size()) throw bad("'" + part + "' is not a number or range");
      }
      if (b < a) throw bad("the range '" + part + "' runs backwards");
      if (b - a >= 1000000 || seeds.size() + static_cast<size_t>(b - a) >= 1000000)
        throw bad("more than 1,000,000 seeds");
      for (int64_t s = a; s <= b; ++s) seeds.push_back(s);
    } catch (const std::logic_error&) {
      throw bad("'" + part + "' is not a number or range");
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return seeds;
}

}  // namespace pcglab::poker
