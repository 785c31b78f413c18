// run_eval: the evaluation's three stages on the batch driver (poker/eval.h).
#include <fmt/format.h>

#include <functional>
#include <map>
#include <sstream>

#include "batch/driver.h"
#include "core/check.h"
#include "core/error_kind.h"
#include "core/files.h"
#include "core/log.h"
#include "poker/eval.h"

namespace pcglab::poker {
namespace {
namespace fs = std::filesystem;

constexpr const char* kRunName = "poker eval";

std::string request_settings(const llm::ChatRequest& r) {
  OrderedJson j{{"model", r.model}};
  if (r.temperature) j["temperature"] = *r.temperature;
  if (r.top_p) j["top_p"] = *r.top_p;
  if (r.max_tokens) j["max_tokens"] = *r.max_tokens;
  if (r.seed) j["seed"] = *r.seed;
  return j.dump();
}

std::string seeds_json(const std::vector<int64_t>& seeds) {
  return OrderedJson(seeds).dump();
}

std::string read_or_empty(const fs::path& path) {
  try {
    return fs::exists(path) ? read_file(path) : std::string();
  } catch (const InputError&) {
    return {};
  }
}

// The lines of the dialogues file (non-blank ones, in order).
std::vector<std::string> dialogue_lines(const fs::path& path, size_t games) {
  const std::string text = as_setup_input([&] { return read_file(path); });
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (line.find_first_not_of(" \t\r") != std::string::npos) lines.push_back(line);
  if (lines.size() != games)
    throw SetupError(
        fmt::format("--dialogues {}: {} dialogues for {} test games (one line per game, in the "
                    "test file's order)",
                    path.string(), lines.size(), games));
  return lines;
}

std::map<std::string, const ItemOutcome*> by_key(const batch::StageRun& run) {
  std::map<std::string, const ItemOutcome*> out;
  for (const ItemOutcome& o : run.outcomes) out[o.key] = &o;
  return out;
}

const ItemOutcome* find(const std::map<std::string, const ItemOutcome*>& m, const std::string& key) {
  const auto it = m.find(key);
  return it == m.end() ? nullptr : it->second;
}

// Fails the item with the earlier stage's error.
[[noreturn]] void fail_after(const ItemOutcome* earlier, const std::string& stage) {
  if (!earlier) throw ItemFailure(ErrorKind::kNoOutput, fmt::format("no {} outcome", stage));
  throw ItemFailure(earlier->kind, fmt::format("no dialogue ({} failed: {})", stage, earlier->message));
}

OrderedJson score_json(const DialogueScore& s, const std::vector<int64_t>& seeds) {
  OrderedJson turns = OrderedJson::array();
  for (TurnVerdict v : s.turns) turns.push_back(std::string(turn_verdict_name(v)));
  return OrderedJson{{"turns", turns},
                     {"counted", s.counted},
                     {"func_exec", s.func_exec},
                     {"func_correct", s.func_correct},
                     {"F-ESR", s.f_esr},
                     {"F-Acc", s.f_acc},
                     {"exec", s.whole.exec},
                     {"correct", s.whole.correct},
                     {"seeds", seeds}};
}

struct Stages {
  batch::StageRun interact, score, judge;
};

}  // namespace

EvalReport run_eval(const EvalRun& run, const EvalCompleterFactory& completers, ThreadPool& pool) {
  if (run.seeds.empty()) throw SetupError("--seeds: no seed");
  const std::vector<TestGame> games = read_test_set(run.test);
  const std::vector<std::string> recorded =
      run.dialogues.empty() ? std::vector<std::string>{} : dialogue_lines(run.dialogues, games.size());

  batch::DriverOptions options;
  options.run_name = kRunName;
  options.config = run.merge_config;
  options.progress = run.progress;
  options.shard = run.shard;
  batch::Driver driver(run.out, pool, options);
  const fs::path store = batch::Driver::store_path(run.out, driver.shard());
  const auto session_file = [&](const std::string& key) { return run.out / "sessions" / (key + ".json"); };

  // Stage 1: the dialogue of each game (or the recorded one).
  batch::StageSpec interact;
  interact.name = "interact";
  interact.output_dirs = {run.out / "sessions"};
  for (size_t i = 0; i < games.size(); ++i) {
    const TestGame& g = games[i];
    batch::Item item;
    item.key = g.key;
    item.outputs = {session_file(g.key)};
    batch::ContentHash h;
    h.add("poker eval interact 1").add(g.ok() ? g.script.dump() + "\n" + g.code : "error: " + g.error);
    if (recorded.empty()) {
      h.add(request_settings(run.interaction.assistant))
          .add(request_settings(run.interaction.user))
          .add(std::to_string(run.interaction.max_turns))
          .add(assistant_system_prompt())
          .add(interactor_prompt_template());
    } else {
      h.add("recorded").add(recorded[i]);
    }
    item.hash = h.hex();
    interact.items.push_back(std::move(item));
  }
  fs::create_directories(run.out / "sessions");
  Stages stages;
  stages.interact = driver.run(interact, [&](size_t i) -> ItemOutcome {
    const TestGame& g = games[i];
    if (!g.ok()) throw ItemFailure(ErrorKind::kBadInput, g.error);
    if (!recorded.empty()) {
      const std::string where = fmt::format("{} line {}", run.dialogues.filename().string(), i + 1);
      Json chat;
      try {
        chat = Json::parse(recorded[i]);
      } catch (const Json::parse_error& e) {
        throw ItemFailure(ErrorKind::kBadInput, fmt::format("{}: not JSON ({})", where, e.what()));
      }
      const Session session = session_from_chat(chat, where);
      session.save(session_file(g.key));
      size_t turns = 0;
      for (const SessionTurn& t : session.turns) turns += t.role == TurnRole::kAssistant ? 1 : 0;
      return ItemOutcome::success(g.key, OrderedJson{{"turns", turns}, {"end", "recorded"}});
    }
    llm::Completer& assistant = completers(EvalRole::kAssistant, store);
    llm::Completer& user = completers(EvalRole::kUser, store);
    const InteractionResult r =
        run_interaction(assistant, user, run.interaction, g, session_file(g.key), g.key);
    size_t turns = 0;
    for (const SessionTurn& t : r.session.turns) turns += t.role == TurnRole::kAssistant ? 1 : 0;
    ItemOutcome outcome =
        ItemOutcome::success(g.key, OrderedJson{{"turns", turns}, {"end", interaction_end_name(r.end)}});
    outcome.requests = r.requests;
    return outcome;
  });
  const auto interacted = by_key(stages.interact);

  // Stages 2 and 3 take the dialogue stage 1 wrote: one item per game, hashed (and so reusable)
  // only when its dialogue exists; an item without one fails with the dialogue's error.
  const auto stage_after_interact =
      [&](const std::string& name, const fs::path& dir, const std::string& tag,
          const std::function<void(const TestGame&, batch::ContentHash&)>& hash) {
        batch::StageSpec spec;
        spec.name = name;
        spec.output_dirs = {dir};
        for (const TestGame& g : games) {
          batch::Item item;
          item.key = g.key;
          item.outputs = {dir / (g.key + ".json")};
          const ItemOutcome* before = find(interacted, g.key);
          if (before && before->ok()) {
            batch::ContentHash h;
            h.add(tag).add(read_or_empty(session_file(g.key)));
            hash(g, h);
            item.hash = h.hex();
          }
          spec.items.push_back(std::move(item));
        }
        fs::create_directories(dir);
        return spec;
      };
  const auto dialogue_of = [&](const TestGame& g) {
    const ItemOutcome* before = find(interacted, g.key);
    if (!before || !before->ok()) fail_after(before, "interact");
    return Session::load(session_file(g.key));
  };

  // Stage 2: the code metrics of each dialogue.
  const GameRunner runner = sandbox_game_runner(run.engine);
  const batch::StageSpec score = stage_after_interact(
      "score", run.out / "scores", "poker eval score 1", [&](const TestGame& g, batch::ContentHash& h) {
        h.add(g.code)
            .add(seeds_json(run.seeds))
            .add(gamebase_source())
            .add(fmt::format("{} {} {}", run.engine.native, run.engine.worker.limits.call_timeout_s,
                             run.engine.worker.limits.memory_mb));
      });
  stages.score = driver.run(score, [&](size_t i) -> ItemOutcome {
    const TestGame& g = games[i];
    const Session session = dialogue_of(g);
    ScoredDialogue dialogue{g.key, g.code, {}};
    for (const SessionTurn& t : session.turns)
      if (t.role == TurnRole::kAssistant) dialogue.assistant_turns.push_back(t.text);
    const DialogueScore s = score_dialogue(dialogue, runner, run.seeds);
    const OrderedJson j = score_json(s, run.seeds);
    write_json_file(score.items[i].outputs[0], OrderedJson{{"game", g.key}, {"score", j}});
    OrderedJson meta = j;
    meta.erase("seeds");
    return ItemOutcome::success(g.key, meta);
  });

  // Stage 3: the interaction-quality judge.
  if (!run.no_judge) {
    const batch::StageSpec judge = stage_after_interact(
        "judge", run.out / "judge", "poker eval judge 1", [&](const TestGame&, batch::ContentHash& h) {
          h.add(request_settings(run.judge)).add(std::to_string(run.judge_runs)).add(judge_prompt_template());
        });
    stages.judge = driver.run(judge, [&](size_t i) -> ItemOutcome {
      const TestGame& g = games[i];
      const Session session = dialogue_of(g);
      const llm::ChatRequest request = [&] {
        llm::ChatRequest r = run.judge;
        r.messages = {{"user", judge_prompt(session)}};
        return r;
      }();
      llm::Completer& completer = completers(EvalRole::kJudge, store);
      OrderedJson runs = OrderedJson::array(), scores = OrderedJson::array();
      int requests = 0, errors = 0;
      for (int k = 0; k < run.judge_runs; ++k) {
        llm::CallContext context;
        context.item = g.key;
        context.call = k;
        context.trial = k;
        Result<llm::ChatResponse> reply = completer.complete(request, context);
        if (!reply.ok()) {
          throw ItemFailure(ErrorKind::kLlm, fmt::format("judge run {}: {}", k + 1, reply.error().message));
        }
        requests += reply.value().attempts;
        OrderedJson entry{{"run", k + 1}, {"reply", reply.value().content}};
        try {
          const std::array<int, 6> s = parse_quality_reply(reply.value().content);
          OrderedJson named = OrderedJson::object();
          for (size_t a = 0; a < s.size(); ++a) named[quality_aspects()[a]] = s[a];
          entry["scores"] = named;
          scores.push_back(s);
        } catch (const InputError& e) {
          entry["error"] = e.what();
          scores.push_back(nullptr);
          ++errors;
        }
        runs.push_back(std::move(entry));
      }
      write_json_file(
          judge.items[i].outputs[0],
          OrderedJson{
              {"game", g.key}, {"request", OrderedJson::parse(llm::request_json(request))}, {"runs", runs}});
      ItemOutcome outcome = ItemOutcome::success(g.key, OrderedJson{{"scores", scores}, {"errors", errors}});
      outcome.requests = requests;
      return outcome;
    });
  }

  // The tables.
  EvalReport report;
  report.failed = stages.interact.failed + stages.score.failed + stages.judge.failed;
  const auto scored = by_key(stages.score);
  const auto judged = by_key(stages.judge);
  report.game_columns = {"game", "turns", "end", "counted", "F-ESR", "F-Acc", "ESR", "Acc"};
  for (const std::string& a : quality_aspects()) report.game_columns.push_back(a);
  report.game_columns.push_back("judge_errors");
  report.game_columns.push_back("error");
  std::vector<DialogueScore> dialogue_scores;
  std::vector<double> sums(quality_aspects().size(), 0.0);
  int judged_runs = 0;
  for (const TestGame& g : games) {
    const ItemOutcome* i = find(interacted, g.key);
    if (!i) continue;  // another shard's
    std::vector<Json> row(report.game_columns.size(), Json(nullptr));
    row[0] = g.key;
    std::string error;
    if (i->ok()) {
      row[1] = i->metadata.value("turns", 0);
      row[2] = i->metadata.value("end", std::string());
    } else {
      error = "interact: " + i->message;
    }
    const ItemOutcome* s = find(scored, g.key);
    if (s && s->ok()) {
      DialogueScore d;
      d.key = g.key;
      d.counted = s->metadata.value("counted", 0);
      d.f_esr = s->metadata.value("F-ESR", 0.0);
      d.f_acc = s->metadata.value("F-Acc", 0.0);
      d.whole.exec = s->metadata.value("exec", false);
      d.whole.correct = s->metadata.value("correct", false);
      dialogue_scores.push_back(d);
      row[3] = d.counted;
      row[4] = d.f_esr;
      row[5] = d.f_acc;
      row[6] = d.whole.exec ? 1 : 0;
      row[7] = d.whole.correct ? 1 : 0;
    } else if (s && i->ok()) {
      error += (error.empty() ? "" : "; ") + std::string("score: ") + s->message;
    }
    const ItemOutcome* j = find(judged, g.key);
    if (j && j->ok()) {
      std::vector<double> game_sums(quality_aspects().size(), 0.0);
      int n = 0;
      const OrderedJson runs = j->metadata.value("scores", OrderedJson::array());
      for (const auto& sc : runs) {
        if (!sc.is_array() || sc.size() != game_sums.size()) continue;
        ++n;
        for (size_t a = 0; a < game_sums.size(); ++a) game_sums[a] += sc[a].get<double>();
      }
      for (size_t a = 0; a < game_sums.size(); ++a) {
        sums[a] += game_sums[a];
        if (n > 0) row[8 + a] = game_sums[a] / n * 100.0 / 4.0;
      }
      judged_runs += n;
      const int errors = j->metadata.value("errors", 0);
      row[14] = errors;
      report.judge_errors += static_cast<size_t>(errors);
    } else if (j && i->ok()) {
      error += (error.empty() ? "" : "; ") + std::string("judge: ") + j->message;
    }
    row[15] = error;
    report.games.push_back(std::move(row));
  }
  report.row.model = run.model_name.empty() ? run.interaction.assistant.model : run.model_name;
  report.row.metrics = aggregate_metrics(dialogue_scores);
  if (!run.no_judge && judged_runs > 0) {
    std::vector<double> quality;
    for (double s : sums) quality.push_back(s / judged_runs * 100.0 / 4.0);
    report.row.quality = quality;
  }
  if (!driver.shard().all()) return report;  // concurrent shards: the merge writes the tables

  for (const auto& [format, ext] : {std::pair{OutputFormat::kMd, "md"}, std::pair{OutputFormat::kCsv, "csv"},
                                    std::pair{OutputFormat::kJson, "json"}}) {
    write_file_atomic(run.out / fmt::format("result.{}", ext), format_result_table({report.row}, format));
    write_file_atomic(run.out / fmt::format("games.{}", ext),
                      format_table(Table{report.game_columns, report.games}, format));
  }
  OrderedJson settings{
      {"test", run.test.string()},    {"model", run.interaction.assistant.model}, {"seeds", run.seeds},
      {"seeds_from", run.seeds_text}, {"dialogues", dialogue_scores.size()},      {"games", games.size()}};
  if (run.dialogues.empty()) {
    settings["user_model"] = run.interaction.user.model;
    settings["max_turns"] = run.interaction.max_turns;
  } else {
    settings["recorded_dialogues"] = run.dialogues.string();
  }
  if (!run.no_judge) {
    settings["judge_model"] = run.judge.model;
    settings["judge_runs"] = run.judge_runs;
  }
  write_json_file(run.out / "run.json", settings);
  return report;
}

}  // namespace pcglab::poker
