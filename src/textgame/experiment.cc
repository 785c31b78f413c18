#include "textgame/experiment.h"

#include <fmt/format.h>

#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include "core/check.h"
#include "core/error_kind.h"
#include "core/files.h"
#include "core/thread_pool.h"
#include "store/exchange_log.h"

namespace pcglab::textgame {
namespace {
namespace fs = std::filesystem;

constexpr const char* kStage = "generate";
constexpr const char* kScope = "textgame-generate";

std::string trim(std::string s) {
  const auto not_space = [](unsigned char c) { return !std::isspace(c); };
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
  s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
  return s;
}

bool is_program_name(const std::string& name) {
  return name.size() > 3 && name.ends_with(".py") && name.find_first_of("/\\") == std::string::npos &&
         name.find("..") == std::string::npos;
}

std::string read_setup_file(const fs::path& path, const std::string& what) {
  if (!fs::is_regular_file(path))
    throw SetupError(
        fmt::format("{} {}: no such file (--corpus needs a BYTESIZED32 checkout's data/: "
                    "experiment_*.csv, test_prompts/, programs/)",
                    what, path.string()));
  return as_setup_input([&] { return read_file(path); });
}

std::string item_hash(const GenerationJob& job, const GenerationBatchOptions& o) {
  const GenerationSettings& s = o.settings;
  const auto opt = [](const auto& v) { return v ? fmt::format("{}", *v) : std::string("-"); };
  batch::ContentHash h;
  h.add(job.name)
      .add(job.spec)
      .add(job.reference)
      .add(std::to_string(job.trial))
      .add(o.prompts.generation_template())
      .add(o.prompts.reflection_template())
      .add(s.model)
      .add(opt(s.temperature))
      .add(opt(s.top_p))
      .add(opt(s.max_tokens))
      .add(opt(s.seed))
      .add(std::to_string(s.reflections))
      .add(s.reflections > 0 ? o.validity_settings : "");
  // Only when on, so the hashes of runs without it hold.
  if (s.official_budget && !s.max_tokens) h.add("official budget");
  return h.hex();
}

// out/results.json: every version's record keyed by its file name, as the official results file.
void write_results_json(const fs::path& out, const std::vector<GenerationJob>& jobs) {
  OrderedJson all = OrderedJson::object();
  for (const GenerationJob& job : jobs) {
    const fs::path record = out / "revised_games" / (job.name + "_generation_reflection.json");
    if (!fs::exists(record)) continue;
    const Json r = parse_json(read_file(record), record.string());
    for (const Json& v : r.at("versions"))
      all[v.at("file").get<std::string>()] =
          OrderedJson{{"validity", v.at("validity")},
                      {"error", v.at("error")},
                      {"reflection_prompt", v.at("reflection_prompt")},
                      {"reflection_response", v.at("reflection_response")}};
  }
  write_json_file(out / "results.json", all);
}

// Each experiment's calls are samples of their own (GenerationJob::trial).
int trial_of(const std::string& experiment) {
  const std::vector<std::string> all = {"action", "distractor", "object"};
  const auto it = std::find(all.begin(), all.end(), experiment);
  return it == all.end() ? static_cast<int>(all.size()) : static_cast<int>(it - all.begin());
}

}  // namespace

std::vector<ExperimentPair> read_experiment_file(const fs::path& csv) {
  const std::string text = read_setup_file(csv, "experiment file");
  std::string experiment = csv.filename().string();
  if (experiment.ends_with(".csv")) experiment.resize(experiment.size() - 4);
  std::vector<ExperimentPair> pairs;
  std::istringstream in(text);
  std::string line;
  int line_number = 0, test = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (trim(line).empty()) continue;
    const size_t comma = line.find(',');
    const std::string p = trim(line.substr(0, comma));
    const std::string n = comma == std::string::npos ? "" : trim(line.substr(comma + 1));
    if (!is_program_name(p) || !is_program_name(n))
      throw SetupError(fmt::format("{}:{}: expected two game file names (similar.py,dissimilar.py), got '{}'",
                                   csv.string(), line_number, trim(line)));
    ++test;
    pairs.push_back({experiment, test, 'p', p});
    pairs.push_back({experiment, test, 'n', n});
  }
  if (pairs.empty()) throw SetupError(fmt::format("{}: no rows", csv.string()));
  return pairs;
}

std::string generation_name(const ExperimentPair& pair, const std::string& model) {
  const std::string model_name =
      model.substr(model.rfind('/') == std::string::npos ? 0 : model.rfind('/') + 1);
  return fmt::format("{}_test_{}_{}_{}_{}", pair.experiment, pair.test, pair.kind, model_name,
                     pair.reference.substr(0, pair.reference.size() - 3));
}

fs::path corpus_data_dir(const fs::path& corpus) {
  return fs::is_directory(corpus / "data") ? corpus / "data" : corpus;
}

std::vector<GenerationJob> experiment_jobs(const fs::path& corpus,
                                           const std::vector<std::string>& experiments,
                                           const std::string& model) {
  if (!fs::is_directory(corpus)) throw SetupError(fmt::format("--corpus {}: not a folder", corpus.string()));
  const fs::path data = corpus_data_dir(corpus);
  std::map<std::string, std::string> specs, programs;  // read once each
  std::vector<GenerationJob> jobs;
  std::set<std::string> names;
  for (const std::string& e : experiments) {
    for (const ExperimentPair& pair : read_experiment_file(data / fmt::format("experiment_{}.csv", e))) {
      const std::string spec_file = fmt::format("test_{}.py", pair.test);
      if (!specs.count(spec_file))
        specs[spec_file] = read_setup_file(data / "test_prompts" / spec_file, "task specification");
      if (!programs.count(pair.reference))
        programs[pair.reference] = read_setup_file(data / "programs" / pair.reference, "reference game");
      GenerationJob job{generation_name(pair, model), specs[spec_file], programs[pair.reference],
                        trial_of(e)};
      if (!names.insert(job.name).second) throw SetupError(fmt::format("--experiments: {} twice", job.name));
      jobs.push_back(std::move(job));
    }
  }
  return jobs;
}

GenerationBatch run_generation_batch(const std::vector<GenerationJob>& jobs, const GenerationBatchOptions& o,
                                     const ValidityCheck& validity) {
  ThreadPool pool(std::max(1, o.concurrency));
  batch::DriverOptions driver_options = o.driver;
  if (driver_options.run_name.empty()) driver_options.run_name = kScope;
  batch::Driver driver(o.out, pool, driver_options);

  batch::StageSpec spec;
  spec.name = kStage;
  spec.output_dirs = {o.out / "generated_games", o.out / "revised_games", o.out / "final_games"};
  for (const GenerationJob& job : jobs) {
    batch::Item item;
    item.key = job.name;
    item.hash = item_hash(job, o);
    item.outputs = generation_outputs(o.out, job.name, o.settings.reflections);
    spec.items.push_back(std::move(item));
  }

  // The completer stack, built when the first game needs it: a run whose games all finished sends
  // nothing and needs no server. Its record is the driver's store, so a killed game's finished calls
  // are replayed.
  std::mutex mutex;
  std::optional<llm::CompleterStack> stack;
  auto completer = [&]() -> llm::Completer& {
    std::lock_guard lock(mutex);
    if (!stack) {
      llm::CompleterStackOptions so = o.stack;
      so.record = std::make_shared<store::ExchangeLog>(batch::Driver::store_path(o.out, driver.shard()));
      so.record_scope = kScope;
      stack = llm::make_completer_stack(so);
    }
    return stack->completer();
  };

  GenerationBatch batch;
  std::vector<std::optional<GenerationResult>> results(jobs.size());
  std::atomic<int64_t> batch_requests{0};  // of the games that failed
  batch.stage = driver.run(spec, [&](size_t i) -> ItemOutcome {
    GenerationResult r;
    try {
      generate_game(completer(), validity, o.prompts, o.settings, jobs[i], o.out, spec.items[i].key, r);
    } catch (const ItemFailure& e) {
      ItemOutcome failed = ItemOutcome::failure(spec.items[i].key, e.kind(), e.what());
      failed.requests = static_cast<int>(r.requests);
      batch_requests += r.requests;
      return failed;
    }
    OrderedJson meta{{"stop", stop_reason_name(r.stop)},
                     {"valid", r.valid},
                     {"reflections", r.versions.empty() ? 0 : r.versions.size() - 1},
                     {"final", r.final_file}};
    ItemOutcome outcome = ItemOutcome::success(spec.items[i].key, std::move(meta));
    outcome.requests = static_cast<int>(r.requests);
    results[i] = std::move(r);
    return outcome;
  });
  batch.requests = batch_requests;
  for (auto& r : results)
    if (r) {
      batch.requests += r->requests;
      batch.results.push_back(std::move(*r));
    }
  if (driver.shard().all() && o.settings.reflections > 0) write_results_json(o.out, jobs);
  return batch;
}

}  // namespace pcglab::textgame
