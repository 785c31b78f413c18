// Technical validity: the host side of the crawl. The crawl itself is pcglab's own Python
// (python/validity.py), loaded into a sandbox worker of the pool and called once per game; this
// file passes the options, turns the reply (or the worker's failure) into a ValidityResult and
// converts results to and from the JSON row of `pcglab textgame validity`.
#include "textgame/validity.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "core/check.h"
#include "sandbox/decoded_value.h"
#include "sandbox/worker_pool.h"
#include "textgame/host.h"

namespace pcglab::textgame {

extern const unsigned char kValidityPy[];  // generated/embedded/kValidityPy.cc

namespace {

constexpr const char* kCheckNames[] = {"TextGame", "getTaskDescription", "generatePossibleActions", "step",
                                       "calculateScore"};
constexpr const char* kScriptName = "pcglab_validity.py";
// The worker's wall clock beyond the crawl's own limit: the crawl stops itself at timeout_s and
// returns its flags; the worker is killed only when the game blocks the crawl's timer.
constexpr double kCallMarginS = 30;

sandbox::Dict options_dict(const ValidityOptions& options) {
  sandbox::List libraries;
  for (const auto& [name, source] : options.libraries) libraries.emplace_back(sandbox::List{name, source});
  return {{"mode", validity_mode_name(options.mode)}, {"seed", static_cast<int64_t>(options.seed)},
          {"max_steps", options.max_steps},           {"max_num_actions", options.max_num_actions},
          {"timeout_s", options.timeout_s},           {"strategy", options.replay ? "replay" : "fast"},
          {"processes", options.processes},           {"roots", options.roots},
          {"libraries", std::move(libraries)}};
}

ValidityResult empty_result(const std::string& filename) {
  ValidityResult r;
  r.game = filename;
  for (const char* name : kCheckNames) r.checks[name] = false;
  return r;
}

}  // namespace

const char* const kValidityTimeoutMessage =
    "Automatic evaluation timed out.  This could be due to an infinite loop in the code, waiting for user "
    "input outside the main() function, or some other issue or unusually-long-running procedure.";

const char* validity_mode_name(ValidityMode mode) {
  return mode == ValidityMode::kFresh ? "fresh" : "official";
}

ValidityMode parse_validity_mode(const std::string& text) {
  if (text == "official") return ValidityMode::kOfficial;
  if (text == "fresh") return ValidityMode::kFresh;
  throw SetupError(fmt::format("--validity {}: expected official or fresh", text));
}

std::string validity_script() {
  // The game loader the host uses (python/gameload.py) first, then the crawl.
  return game_loader_source() + "\n" + reinterpret_cast<const char*>(kValidityPy);
}

sandbox::WorkerConfig validity_worker_config(const ValidityOptions& options, sandbox::WorkerConfig base) {
  base.limits.call_timeout_s = options.timeout_s + kCallMarginS;
  base.limits.processes = std::max(base.limits.processes, options.processes + 8);
  return base;
}

ValidityResult check_validity(sandbox::WorkerPool& pool, const std::string& filename,
                              const std::string& source, const ValidityOptions& options) {
  PCGLAB_CHECK(pool.config().worker.limits.call_timeout_s >= options.timeout_s)
      << "the pool's call timeout is below the validity timeout: use validity_worker_config";
  const auto start = std::chrono::steady_clock::now();
  ValidityResult result = empty_result(filename);
  sandbox::Reply reply;
  {
    auto lease = pool.acquire();
    reply = lease->load(kScriptName, validity_script());
    if (reply.ok()) reply = lease->call("check_validity", {filename, source, options_dict(options)});
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!reply.ok()) {
    // The worker was killed (the game blocked the crawl's own timer, or hit the memory limit) or
    // pcglab's script failed: the flags reached are lost with the process.
    result.failure = reply.describe();
    result.timed_out = reply.failure.kind == ErrorKind::kTimeout;
    result.error = result.timed_out ? kValidityTimeoutMessage : result.failure;
    return result;
  }
  const OrderedJson j = sandbox::to_json(*reply.value);
  ValidityResult parsed = validity_from_json(Json::parse(j.dump()));
  parsed.game = filename;
  parsed.seconds = result.seconds;
  return parsed;
}

OrderedJson validity_json(const ValidityResult& r) {
  OrderedJson checks = OrderedJson::object();
  for (const char* name : kCheckNames) {
    const auto it = r.checks.find(name);
    checks[name] = it != r.checks.end() && it->second;
  }
  OrderedJson j = {{"game", r.game},
                   {"checks", checks},
                   {"runnable", r.runnable},
                   {"winnable", r.winnable},
                   {"initial_actions", r.initial_actions},
                   {"error", r.error},
                   {"sequences", r.sequences},
                   {"seconds", r.seconds},
                   {"steps", r.steps ? OrderedJson(*r.steps) : OrderedJson()},
                   {"cpu_seconds", r.cpu_seconds ? OrderedJson(*r.cpu_seconds) : OrderedJson()},
                   {"timed_out", r.timed_out}};
  if (!r.failure.empty()) j["failure"] = r.failure;
  return j;
}

ValidityResult validity_from_json(const Json& j) {
  ValidityResult r = empty_result(j.value("game", ""));
  if (j.contains("checks") && j["checks"].is_object())
    for (const char* name : kCheckNames) r.checks[name] = j["checks"].value(name, false);
  r.runnable = j.value("runnable", false);
  r.winnable = j.value("winnable", false);
  r.initial_actions = j.value("initial_actions", int64_t{0});
  r.error = j.value("error", "");
  r.sequences = j.value("sequences", int64_t{0});
  r.seconds = j.value("seconds", 0.0);
  if (j.contains("steps") && j["steps"].is_number()) r.steps = j["steps"].get<int64_t>();
  if (j.contains("cpu_seconds") && j["cpu_seconds"].is_number())
    r.cpu_seconds = j["cpu_seconds"].get<double>();
  r.timed_out = j.value("timed_out", false);
  r.failure = j.value("failure", "");
  return r;
}

}  // namespace pcglab::textgame
