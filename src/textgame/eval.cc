#include "textgame/eval.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <regex>
#include <set>

#include "batch/item_outcome.h"
#include "core/check.h"
#include "core/files.h"
#include "store/run_store.h"

namespace pcglab::textgame {
namespace fs = std::filesystem;

const std::vector<std::string>& validity_check_names() {
  static const std::vector<std::string> names = {"TextGame", "getTaskDescription", "calculateScore",
                                                 "generatePossibleActions", "step"};
  return names;
}

namespace {

constexpr const char* kPromptSuffix = "_prompt_out.txt";
const std::vector<std::string> kMetrics = {"compliance", "alignment", "winnability"};

void add_error(EvalGame& game, const std::string& error) {
  game.status = "error";
  game.error += (game.error.empty() ? "" : "; ") + error;
}

// experiment_<e>_test_<n>_<p|n>_<model>_<reference>: the experiment, the test and the reference kind.
void parse_name(EvalGame& game) {
  static const std::regex pattern(R"(^experiment_(action|distractor|object)_test_(\d+)_([pn])_.*$)");
  std::smatch m;
  if (!std::regex_match(game.name, m, pattern)) return;
  game.experiment = m[1];
  game.test = std::stoi(m[2]);
  game.reference = m[3] == "p" ? "similar" : "dissimilar";
}

struct RunRecord {
  std::string mode = "unknown";
  int reflections = -1;
  std::map<std::string, ItemOutcome> outcomes;  // the generate stage's, by key
};

// The run's settings and the `generate` stage's outcomes: from logs/batch.sqlite when it exists
// (with the items' seconds), else from logs/generate.json.
RunRecord read_run_record(const fs::path& dir) {
  RunRecord r;
  const fs::path store_file = dir / "logs/batch.sqlite", log = dir / "logs/generate.json";
  if (fs::is_regular_file(store_file)) {
    store::RunStore store(store_file);
    for (const auto& [name, config] : store.runs()) {
      if (name != "textgame experiment" && name != "textgame generate") continue;
      const Json c = Json::parse(config, nullptr, false);
      if (!c.is_object()) continue;
      r.mode = c.value("validity", r.mode);
      if (c.contains("reflections") && c["reflections"].is_number_integer()) r.reflections = c["reflections"];
    }
    for (const store::StageOutcomeRow& row : store.outcomes("generate")) {
      try {
        r.outcomes[row.key] = ItemOutcome::from_json(parse_json(row.outcome, store_file.string()));
      } catch (const InputError& e) {
        throw SetupError(
            fmt::format("{}: the outcome of {} is malformed: {}", store_file.string(), row.key, e.what()));
      }
    }
    if (!r.outcomes.empty()) return r;
  }
  if (fs::is_regular_file(log)) {
    try {
      const Json j = read_json_file(log);
      for (const Json& o : j.at("outcomes")) {
        ItemOutcome outcome = ItemOutcome::from_json(o);
        outcome.seconds = std::nan("");  // the log keeps no times
        r.outcomes[outcome.key] = std::move(outcome);
      }
    } catch (const std::exception& e) {
      throw SetupError(
          fmt::format("{}: not a batch log of `textgame experiment`: {}", log.string(), e.what()));
    }
  }
  return r;
}

void read_reflection_record(EvalGame& game, const fs::path& dir) {
  const fs::path file = dir / "revised_games" / (game.name + "_generation_reflection.json");
  if (!fs::exists(file)) return;
  try {
    const Json r = read_json_file(file);
    const std::string where = file.string();
    game.stop = json_field<std::string>(r, "stop", where);
    game.final_file = json_field_or<std::string>(r, "final", "", where);
    game.reflections = json_field_or<int>(r, "reflections", 0, where);
    for (const Json& v : r.at("versions")) {
      EvalVersion version;
      version.version = json_field<int>(v, "version", where);
      version.file = json_field<std::string>(v, "file", where);
      version.error = json_field_or<std::string>(v, "error", "", where);
      version.prompt = json_field_or<std::string>(v, "reflection_prompt", "", where);
      version.response = json_field_or<std::string>(v, "reflection_response", "", where);
      if (v.contains("validity") && v["validity"].is_object()) {
        const Json& checks = v["validity"].at("checks");
        for (const std::string& c : validity_check_names())
          if (!checks.at(c).is_boolean())
            throw InputError(fmt::format("{}: check {} is not a boolean", where, c));
        if (!v["validity"].at("runnable").is_boolean())
          throw InputError(fmt::format("{}: runnable is not a boolean", where));
        version.validity = v["validity"];
      }
      game.versions.push_back(std::move(version));
    }
    game.has_record = true;
  } catch (const std::exception& e) {  // InputError or a JSON type/out_of_range error
    game.versions.clear();
    add_error(game, fmt::format("{}: malformed reflection record: {}", file.string(), e.what()));
  }
}

std::optional<EvalJudged> read_judged(EvalGame& game, const fs::path& judged_dir,
                                      const std::vector<std::string>& stems) {
  for (const std::string& stem : stems) {
    const fs::path folder = judged_dir / "judgements" / stem;
    if (!fs::is_directory(folder)) continue;
    EvalJudged judged;
    judged.stem = stem;
    for (const std::string& metric : kMetrics) {
      const fs::path file = folder / (metric + ".json");
      if (!fs::exists(file)) continue;
      try {
        const Json j = read_json_file(file);
        if (!j.contains("result") || !j["result"].is_object())
          throw InputError(fmt::format("{}: no `result` object", file.string()));
        judged.metrics[metric] = {file.string(), j["result"], j.value("judgements", Json::array())};
      } catch (const std::exception& e) {
        add_error(game, fmt::format("{}: malformed judgement: {}", file.string(), e.what()));
      }
    }
    return judged;
  }
  return std::nullopt;
}

std::optional<EvalValidityRun> read_validity_run(const fs::path& dir, const std::string& mode) {
  const fs::path log = dir / ("validity-" + mode) / "logs/validity.json";
  if (!fs::exists(log)) return std::nullopt;
  EvalValidityRun run;
  run.mode = mode;
  run.source = log.string();
  try {
    const Json j = read_json_file(log);
    for (const Json& o : j.at("outcomes")) {
      const Json& m = o.at("metadata");
      if (!m.contains("game") || !m.contains("checks")) continue;  // a game that never reported
      if (m.contains("validity") && m["validity"].is_string() && m["validity"] != mode)
        throw InputError(
            fmt::format("a {} verdict in the {} folder", m["validity"].get<std::string>(), mode));
      run.by_file[fs::path(m.at("game").get<std::string>()).filename().string()] = m;
    }
  } catch (const std::exception& e) {
    throw SetupError(fmt::format("{}: not a `textgame validity` log: {}", log.string(), e.what()));
  }
  return run;
}

std::string stem_of(const std::string& file) {
  return fs::path(file).stem().string();
}

}  // namespace

ExperimentEval read_experiment_folder(const fs::path& dir, const fs::path& judged_dir) {
  ExperimentEval eval;
  eval.dir = dir;
  eval.judged_dir = judged_dir.empty() ? dir / "judge" : judged_dir;
  const fs::path generated = dir / "generated_games";
  if (!fs::is_directory(generated))
    throw SetupError(fmt::format(
        "{}: not a `pcglab textgame experiment` folder: expected {} (with revised_games/, final_games/, "
        "logs/), written by `pcglab textgame experiment --out {}`",
        dir.string(), generated.string(), dir.string()));
  const RunRecord record = read_run_record(dir);
  eval.validity_mode = record.mode;
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(generated)) {
    const std::string f = entry.path().filename().string();
    if (f.size() > std::string(kPromptSuffix).size() && f.ends_with(kPromptSuffix))
      names.insert(f.substr(0, f.size() - std::string(kPromptSuffix).size()));
  }
  for (const auto& [key, outcome] : record.outcomes) names.insert(key);
  if (names.empty())
    throw SetupError(
        fmt::format("{}: no games: expected generated_games/<name>_prompt_out.txt files or "
                    "logs/generate.json from `pcglab textgame experiment`",
                    dir.string()));
  int most_versions = 0;
  for (const std::string& name : names) {
    EvalGame g;
    g.name = name;
    parse_name(g);
    const auto it = record.outcomes.find(name);
    if (it != record.outcomes.end()) {
      if (!it->second.ok()) add_error(g, it->second.message);
      if (std::isfinite(it->second.seconds)) g.seconds = it->second.seconds;
    }
    read_reflection_record(g, dir);
    most_versions = std::max(most_versions, static_cast<int>(g.versions.size()));
    g.before = read_judged(g, eval.judged_dir, {name + "_generation", name + "_generation_v0"});
    if (!g.final_file.empty()) g.after = read_judged(g, eval.judged_dir, {stem_of(g.final_file)});
    eval.games.push_back(std::move(g));
  }
  eval.max_reflections = record.reflections >= 0 ? record.reflections : std::max(0, most_versions - 1);
  // A game with neither a record nor a failure did not finish (killed, still running, another
  // shard's), unless the run asked for no reflections (then there is no record to read).
  for (EvalGame& g : eval.games)
    if (!g.has_record && g.status == "ok" && (record.reflections != 0 || most_versions > 0)) {
      g.status = "incomplete";
      g.error = fmt::format("{}: missing (the game did not finish; rerun the experiment to complete it)",
                            (dir / "revised_games" / (g.name + "_generation_reflection.json")).string());
    }
  for (const std::string mode : {"official", "fresh"})
    if (auto run = read_validity_run(dir, mode)) eval.other_validity.push_back(std::move(*run));
  return eval;
}

std::optional<Json> verdict_at(const EvalGame& game, int step) {
  std::optional<Json> verdict;
  for (const EvalVersion& v : game.versions)
    if (v.version <= step && v.validity) verdict = *v.validity;
  return verdict;
}

std::optional<Json> verdict_at(const EvalGame& game, int step, const EvalValidityRun& run) {
  std::optional<Json> verdict;
  for (const EvalVersion& v : game.versions) {
    if (v.version > step) continue;
    const auto it = run.by_file.find(v.file);
    if (it != run.by_file.end()) verdict = it->second;
  }
  return verdict;
}

namespace {

Json flag(const std::optional<Json>& verdict, const std::string& check) {
  if (!verdict) return nullptr;
  if (check == "runnable" || check == "winnable") return verdict->value(check, false);
  return (*verdict)["checks"].value(check, false);
}

Json rounded(double v) {
  return std::round(v * 1e4) / 1e4;
}

std::optional<double> metric_value(const std::optional<EvalJudged>& judged, const std::string& metric,
                                   const std::string& field) {
  if (!judged) return std::nullopt;
  const auto it = judged->metrics.find(metric);
  if (it == judged->metrics.end() || !it->second.result.contains(field)) return std::nullopt;
  const Json& v = it->second.result[field];
  if (v.is_boolean()) return v.get<bool>() ? 1.0 : 0.0;
  if (v.is_number()) return v.get<double>();
  return std::nullopt;
}

struct JudgedColumn {
  std::string name, metric, field;
};
const std::vector<JudgedColumn>& judged_columns() {
  static const std::vector<JudgedColumn> c = {{"compliance_object", "compliance", "object"},
                                              {"compliance_action", "compliance", "action"},
                                              {"compliance_distractor", "compliance", "distractor"},
                                              {"alignment", "alignment", "score"},
                                              {"winnability", "winnability", "game_won"}};
  return c;
}

Json opt(const std::optional<double>& v) {
  return v ? Json(*v) : Json(nullptr);
}

Table games_table(const ExperimentEval& eval) {
  Table t;
  t.columns = {"game", "experiment", "task", "reference", "status", "runnable_generation", "runnable_final"};
  for (const std::string& c : validity_check_names()) t.columns.push_back(c);
  for (const char* c : {"winnable_final", "reflections", "stop"}) t.columns.push_back(c);
  for (const JudgedColumn& c : judged_columns()) t.columns.push_back(c.name);
  t.columns.push_back("seconds");
  t.columns.push_back("error");
  for (const EvalGame& g : eval.games) {
    const std::optional<Json> first = verdict_at(g, 0), last = verdict_at(g, eval.max_reflections);
    std::vector<Json> row = {g.name,
                             g.experiment.empty() ? Json(nullptr) : Json(g.experiment),
                             g.test ? Json(g.test) : Json(nullptr),
                             g.reference.empty() ? Json(nullptr) : Json(g.reference),
                             g.status,
                             flag(first, "runnable"),
                             flag(last, "runnable")};
    for (const std::string& c : validity_check_names()) row.push_back(flag(last, c));
    row.push_back(flag(last, "winnable"));
    row.push_back(g.has_record ? Json(g.reflections) : Json(nullptr));
    row.push_back(g.stop.empty() ? Json(nullptr) : Json(g.stop));
    for (const JudgedColumn& c : judged_columns())
      row.push_back(opt(metric_value(g.after, c.metric, c.field)));
    row.push_back(g.seconds ? Json(rounded(*g.seconds)) : Json(nullptr));
    row.push_back(g.error.empty() ? Json(nullptr) : Json(g.error));
    t.add_row(std::move(row));
  }
  return t;
}

using VerdictAt = std::function<std::optional<Json>(const EvalGame&, int)>;

Table validity_table(const ExperimentEval& eval, const VerdictAt& at) {
  Table t;
  t.columns = {"check", "generation"};
  for (int k = 1; k <= eval.max_reflections; ++k) t.columns.push_back(fmt::format("reflection_{}", k));
  t.columns.push_back("paper_gpt4_generation");
  t.columns.push_back("paper_gpt4_after_reflection");
  std::vector<std::string> rows = validity_check_names();
  rows.push_back("runnable");
  rows.push_back("winnable");
  for (const std::string& check : rows) {
    std::vector<Json> row = {check};
    for (int k = 0; k <= eval.max_reflections; ++k) {
      int passed = 0, judged = 0;
      for (const EvalGame& g : eval.games) {
        const std::optional<Json> v = at(g, k);
        if (!v) continue;
        ++judged;
        passed += flag(v, check).get<bool>() ? 1 : 0;
      }
      row.push_back(judged ? rounded(static_cast<double>(passed) / judged) : Json(nullptr));
    }
    row.push_back(check == "runnable" ? Json(kPaperRunnableGeneration) : Json(nullptr));
    row.push_back(check == "runnable" ? Json(kPaperRunnableAfterReflection) : Json(nullptr));
    t.add_row(std::move(row));
  }
  std::vector<Json> count = {"games"};
  for (int k = 0; k <= eval.max_reflections; ++k) {
    int judged = 0;
    for (const EvalGame& g : eval.games) judged += at(g, k) ? 1 : 0;
    count.push_back(judged);
  }
  count.push_back(96);  // the paper's 96 GPT-4 games
  count.push_back(96);
  t.add_row(std::move(count));
  return t;
}

Table judged_table(const ExperimentEval& eval) {
  Table t;
  t.columns = {"metric", "before_reflection", "games_before", "after_reflection", "games_after"};
  for (const JudgedColumn& c : judged_columns()) {
    std::vector<Json> row = {c.name};
    for (const bool after : {false, true}) {
      double sum = 0;
      int n = 0;
      for (const EvalGame& g : eval.games)
        if (const auto v = metric_value(after ? g.after : g.before, c.metric, c.field)) {
          sum += *v;
          ++n;
        }
      row.push_back(n ? rounded(sum / n) : Json(nullptr));
      row.push_back(n);
    }
    t.add_row(std::move(row));
  }
  return t;
}

std::string table_note(const ExperimentEval& eval, const std::string& name) {
  if (name == "games")
    return fmt::format(
        "One row per generated game. Validity columns in the {} mode (the experiment's reflection records); "
        "`runnable_final` and the five checks after the last reflection. Judged metrics of the final game "
        "from {} (empty: not judged).",
        eval.validity_mode, (eval.judged_dir / "judgements").string());
  if (name == "judged")
    return "Mean over the judged games: before reflection = the generation (`<name>_generation.py` or "
           "`_v0`), "
           "after = the final game. Winnability is the share of games won.";
  const std::string mode = name.substr(std::string("validity_").size());
  return fmt::format(
      "Validity mode: {}. Share of games passing each check at generation and after each reflection step (a "
      "game that stopped keeps its last verdict). `paper_gpt4_*`: the published reference (BYTESIZED32 "
      "paper, GPT-4: 28% runnable in one shot, 57% after reflection), not pcglab's numbers.",
      mode);
}

}  // namespace

std::vector<std::pair<std::string, Table>> eval_tables(const ExperimentEval& eval) {
  std::vector<std::pair<std::string, Table>> tables;
  tables.emplace_back("games", games_table(eval));
  tables.emplace_back("validity_" + eval.validity_mode,
                      validity_table(eval, [](const EvalGame& g, int k) { return verdict_at(g, k); }));
  for (const EvalValidityRun& run : eval.other_validity) {
    if (run.mode == eval.validity_mode) continue;
    tables.emplace_back("validity_" + run.mode, validity_table(eval, [&run](const EvalGame& g, int k) {
                          return verdict_at(g, k, run);
                        }));
  }
  tables.emplace_back("judged", judged_table(eval));
  return tables;
}

namespace {

OrderedJson rows_json(const Table& t) {
  OrderedJson rows = OrderedJson::array();
  for (const auto& r : t.rows) {
    OrderedJson o = OrderedJson::object();
    for (size_t c = 0; c < t.columns.size(); ++c) o[t.columns[c]] = OrderedJson::parse(r[c].dump());
    rows.push_back(std::move(o));
  }
  return rows;
}

OrderedJson judged_json(const std::optional<EvalJudged>& judged) {
  if (!judged) return nullptr;
  OrderedJson o = {{"game", judged->stem}};
  for (const JudgedColumn& c : judged_columns()) {
    const auto v = metric_value(judged, c.metric, c.field);
    o[c.name] = v ? OrderedJson(*v) : OrderedJson(nullptr);
  }
  return o;
}

}  // namespace

OrderedJson eval_json(const ExperimentEval& eval) {
  const auto tables = eval_tables(eval);
  OrderedJson modes = OrderedJson::array({eval.validity_mode});
  for (const EvalValidityRun& run : eval.other_validity)
    if (run.mode != eval.validity_mode) modes.push_back(run.mode);
  OrderedJson games = rows_json(tables[0].second);
  for (size_t i = 0; i < eval.games.size(); ++i) {
    const EvalGame& g = eval.games[i];
    OrderedJson versions = OrderedJson::array();
    for (const EvalVersion& v : g.versions)
      versions.push_back({{"version", v.version},
                          {"file", v.file},
                          {"runnable", v.validity ? OrderedJson(v.validity->value("runnable", false))
                                                  : OrderedJson(nullptr)},
                          {"error", v.error}});
    games[i]["versions"] = std::move(versions);
    games[i]["judged_before"] = judged_json(g.before);
    games[i]["judged_after"] = judged_json(g.after);
  }
  OrderedJson summary = OrderedJson::object();
  for (size_t t = 1; t < tables.size(); ++t) summary[tables[t].first] = rows_json(tables[t].second);
  return {{"dir", eval.dir.string()}, {"validity_modes", modes}, {"games", games}, {"summary", summary}};
}

std::string format_eval(const ExperimentEval& eval, OutputFormat format, const std::string& table) {
  const auto tables = eval_tables(eval);
  std::string names;
  bool found = table.empty();
  for (const auto& [name, t] : tables) {
    names += (names.empty() ? "" : ", ") + name;
    found = found || name == table;
  }
  if (!found) throw SetupError(fmt::format("--table {}: no such table here (tables: {})", table, names));
  if (format == OutputFormat::kJsonl && table.empty())
    throw SetupError(fmt::format("--format jsonl prints one table: name it with --table ({})", names));
  if (format == OutputFormat::kJson && table.empty()) return dump_json(eval_json(eval), 2) + "\n";
  std::string out;
  for (const auto& [name, t] : tables) {
    if (!table.empty() && name != table) continue;
    if (!table.empty()) return format_table(t, format);
    if (!out.empty()) out += "\n";
    if (format == OutputFormat::kMd)
      out += fmt::format("## {}\n\n{}\n\n{}", name, table_note(eval, name), format_table(t, format));
    else
      out += fmt::format("# {}\n{}", name, format_table(t, format));
  }
  return out;
}

}  // namespace pcglab::textgame
