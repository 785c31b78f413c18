// run_synthesis (poker/synth.h): the stages on the batch driver, and the export.
#include <fmt/format.h>

#include <atomic>
#include <mutex>

#include "core/check.h"
#include "core/cpython_random.h"
#include "core/error_kind.h"
#include "core/files.h"
#include "core/thread_pool.h"
#include "llm/template.h"
#include "poker/metrics.h"
#include "poker/synth.h"
#include "store/exchange_log.h"

namespace pcglab::poker {

extern const unsigned char kPokerSynthMutatePrompt[];
extern const unsigned long kPokerSynthMutatePrompt_size;
extern const unsigned char kPokerSynthSegmentPrompt[];
extern const unsigned long kPokerSynthSegmentPrompt_size;
extern const unsigned char kPokerSynthCompletePrompt[];
extern const unsigned long kPokerSynthCompletePrompt_size;

namespace {
namespace fs = std::filesystem;

constexpr const char* kScope = "poker-synth";

std::string prompt_text(const unsigned char* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}
const std::string& mutate_prompt() {
  static const std::string t = prompt_text(kPokerSynthMutatePrompt, kPokerSynthMutatePrompt_size);
  return t;
}
const std::string& segment_prompt() {
  static const std::string t = prompt_text(kPokerSynthSegmentPrompt, kPokerSynthSegmentPrompt_size);
  return t;
}
const std::string& complete_prompt() {
  static const std::string t = prompt_text(kPokerSynthCompletePrompt, kPokerSynthCompletePrompt_size);
  return t;
}

std::string describe(const SeedRun& r) {
  return r.type.empty() ? fmt::format("{} ({})", r.message, r.cause) : r.type + ": " + r.message;
}

// "" when every seed executed, else the first failing seed and why.
std::string first_failure(const std::vector<SeedRun>& runs) {
  for (const SeedRun& r : runs)
    if (!r.ok) return fmt::format("does not execute: seed {}: {}", r.seed, describe(r));
  return "";
}

std::vector<SeedResult> seed_results(const std::vector<SeedRun>& runs) {
  std::vector<SeedResult> out;
  for (const SeedRun& r : runs) {
    SeedResult s;
    if (r.ok)
      s.state = Json::parse(r.state.dump());
    else
      s.error = describe(r);
    out.push_back(std::move(s));
  }
  return out;
}

// Why a candidate is not the ground truth, seed by seed as judge_runs walks them ("" when it is).
std::string mismatch_reason(const std::vector<SeedRun>& truth, const std::vector<SeedRun>& candidate) {
  const Judgement j = judge_runs(seed_results(truth), seed_results(candidate));
  if (j.correct) return "";
  for (size_t i = 0; i < truth.size() && i < candidate.size(); ++i) {
    if (!truth[i].ok)
      return fmt::format("the ground truth does not execute: seed {}: {}", truth[i].seed, describe(truth[i]));
    if (!candidate[i].ok)
      return fmt::format("does not execute: seed {}: {}", candidate[i].seed, describe(candidate[i]));
    if (truth[i].state != candidate[i].state)
      return fmt::format("seed {}: the final state differs from the ground truth's", truth[i].seed);
  }
  return "the runs differ from the ground truth's";
}

std::string part_words(const Segment& s) {
  if (s.part == "Config") return "the Config";
  if (s.part == "Flow") return "the Flow";
  return fmt::format("the phase '{}'", s.name);
}

std::string description_hint(const Segment& s) {
  if (s.part == "Config") return "the new `script['Config'][...] = value` lines, one per entry";
  if (s.part == "Flow") return "the new `script['Flow'] = [...]` line";
  return "the phase's new description, in words";
}

OrderedJson read_json(const fs::path& path) {
  try {
    return OrderedJson::parse(read_file(path));
  } catch (const nlohmann::json::exception& e) {
    throw InputError(fmt::format("{}: {}", path.string(), e.what()));
  }
}

void write_json(const fs::path& path, const OrderedJson& value) {
  fs::create_directories(path.parent_path());
  write_file_atomic(path, value.dump(1) + "\n");
}

bool kept(const ItemOutcome& o) {
  return o.ok() && o.metadata.value("kept", false);
}

class Pipeline {
 public:
  explicit Pipeline(const SynthOptions& o)
      : o_(o), pool_(std::max(1, o.concurrency)), driver_(o.out, pool_, driver_options(o)) {
    seeds_text_ = fmt::format("{}", fmt::join(o.game_seeds, ","));
    run_text_ = fmt::format("timeout {} memory {} native {}", o.run.worker.limits.call_timeout_s,
                            o.run.worker.limits.memory_mb, o.run.native);
    const llm::ChatRequest& r = o.request;
    const auto opt = [](const auto& v) { return v ? fmt::format("{}", *v) : std::string("-"); };
    request_text_ = fmt::format("{} {} {} {} {}", r.model, opt(r.temperature), opt(r.top_p),
                                opt(r.max_tokens), opt(r.seed));
  }

  SynthRun run();

 private:
  static batch::DriverOptions driver_options(const SynthOptions& o) {
    batch::DriverOptions d = o.driver;
    if (d.run_name.empty()) d.run_name = kScope;
    return d;
  }

  llm::Completer& completer() {
    std::lock_guard lock(mutex_);
    if (!stack_) {
      llm::CompleterStackOptions so = o_.stack;
      so.record = std::make_shared<store::ExchangeLog>(batch::Driver::store_path(o_.out, driver_.shard()));
      so.record_scope = kScope;
      stack_ = llm::make_completer_stack(so);
    }
    return stack_->completer();
  }

  std::string ask(const std::string& item, int call, const std::string& prompt, int64_t& requests) {
    llm::ChatRequest request = o_.request;
    request.messages = {{"user", prompt}};
    llm::CallContext context;
    context.item = item;
    context.call = call;
    context.on_attempt = [&requests](bool sent) { requests += sent; };
    const Result<llm::ChatResponse> reply = completer().complete(request, context);
    if (!reply.ok())
      throw ItemFailure(ErrorKind::kLlm, fmt::format("call {}: {}", call, reply.error().message));
    return reply.value().content;
  }

  std::vector<SeedRun> play(const std::string& key, const std::string& file) {
    return run_game(key + ".py", file, o_.game_seeds, o_.run);
  }

  // An item's work with the requests it sent counted, failed or not.
  ItemOutcome counted(const std::string& key, const std::function<ItemOutcome(int64_t&)>& work) {
    int64_t requests = 0;
    ItemOutcome out;
    try {
      out = work(requests);
    } catch (const ItemFailure& e) {
      out = ItemOutcome::failure(key, e.kind(), e.what());
    } catch (const InputError& e) {
      out = ItemOutcome::failure(key, ErrorKind::kBadInput, e.what());
    }
    out.requests = static_cast<int>(requests);
    requests_ += requests;
    return out;
  }

  batch::StageRun stage(const std::string& name, const fs::path& dir, const std::vector<batch::Item>& items,
                        const std::function<ItemOutcome(size_t, int64_t&)>& work) {
    batch::StageSpec spec;
    spec.name = name;
    spec.items = items;
    spec.output_dirs = {dir};
    batch::StageRun run = driver_.run(
        spec, [&](size_t i) { return counted(items[i].key, [&](int64_t& r) { return work(i, r); }); });
    failed_ += run.failed;
    return run;
  }

  batch::StageRun games_stage();
  batch::StageRun segments_stage(const std::vector<std::string>& keys);
  batch::StageRun mutate_stage(int round, const std::vector<std::string>& keys);
  batch::StageRun dialogues_stage(const std::vector<std::string>& keys);
  batch::StageRun complete_stage(const std::vector<std::string>& keys);
  std::vector<Segment> pool(const std::string& key, int rounds) const;
  void export_files(const batch::StageRun& dialogues, const batch::StageRun& complete, OrderedJson& summary);

  fs::path game_path(const std::string& key) const { return o_.out / "games" / (key + ".json"); }
  fs::path segments_path(const std::string& key) const { return o_.out / "segments" / (key + ".json"); }
  fs::path mutation_path(int round, const std::string& key) const {
    return o_.out / "mutations" / fmt::format("round-{}", round) / (key + ".json");
  }
  SynthGame game(const std::string& key) const {
    const OrderedJson j = read_json(game_path(key));
    return SynthGame::from_json(j.at("game"), game_path(key).string());
  }

  const SynthVariants& variants() const { return o_.variants ? *o_.variants : builtin_variants(); }

  const SynthOptions& o_;
  ThreadPool pool_;
  batch::Driver driver_;
  std::mutex mutex_;
  std::optional<llm::CompleterStack> stack_;
  std::atomic<int64_t> requests_{0};
  size_t failed_ = 0;
  std::string seeds_text_, run_text_, request_text_;
};

batch::StageRun Pipeline::games_stage() {
  std::vector<batch::Item> items;
  for (int i = 0; i < o_.seed_games; ++i) items.push_back({fmt::format("g{:03}", i), "", {}});
  for (int i = 0; i < o_.complete; ++i) items.push_back({fmt::format("c{:03}", i), "", {}});
  for (batch::Item& item : items) {
    item.hash = batch::ContentHash()
                    .add("games")
                    .add(std::to_string(o_.seed))
                    .add(item.key)
                    .add(variants().text)
                    .add(seeds_text_)
                    .add(run_text_)
                    .hex();
    item.outputs = {game_path(item.key)};
  }
  return stage("games", o_.out / "games", items, [&](size_t i, int64_t&) {
    const std::string& key = items[i].key;
    const SynthGame g = make_game(o_.seed, key, variants());
    const std::string reason = first_failure(play(key, g.game_file()));
    write_json(game_path(key),
               OrderedJson{{"kept", reason.empty()}, {"reason", reason}, {"game", g.to_json()}});
    return ItemOutcome::success(key, OrderedJson{{"kept", reason.empty()}, {"reason", reason}});
  });
}

batch::StageRun Pipeline::segments_stage(const std::vector<std::string>& keys) {
  std::vector<batch::Item> items;
  for (const std::string& key : keys)
    items.push_back({key,
                     batch::ContentHash().add("segments").add(read_file(game_path(key))).hex(),
                     {segments_path(key)}});
  return stage("segments", o_.out / "segments", items, [&](size_t i, int64_t&) {
    const std::string& key = items[i].key;
    OrderedJson list = OrderedJson::array();
    for (const Segment& s : split_segments(game(key))) list.push_back(s.to_json());
    write_json(segments_path(key), OrderedJson{{"key", key}, {"segments", list}});
    return ItemOutcome::success(key, OrderedJson{{"segments", list.size()}});
  });
}

// The game's seed segments and the mutations kept in rounds 1..rounds, in that order.
std::vector<Segment> Pipeline::pool(const std::string& key, int rounds) const {
  std::vector<Segment> out;
  const fs::path seg = segments_path(key);
  const OrderedJson segments = read_json(seg);
  for (const auto& s : segments.at("segments")) out.push_back(Segment::from_json(s, seg.string()));
  for (int r = 1; r <= rounds; ++r) {
    const fs::path m = mutation_path(r, key);
    if (!fs::exists(m)) continue;
    const OrderedJson j = read_json(m);
    if (j.value("kept", false)) out.push_back(Segment::from_json(j.at("segment"), m.string()));
  }
  return out;
}

OrderedJson pool_json(const std::vector<Segment>& pool) {
  OrderedJson list = OrderedJson::array();
  for (const Segment& s : pool) list.push_back(s.to_json());
  return list;
}

batch::StageRun Pipeline::mutate_stage(int round, const std::vector<std::string>& keys) {
  const std::string name = fmt::format("mutate-{}", round);
  std::vector<batch::Item> items;
  std::vector<std::vector<Segment>> pools;
  for (const std::string& key : keys) {
    pools.push_back(pool(key, round - 1));
    items.push_back({key,
                     batch::ContentHash()
                         .add(name)
                         .add(std::to_string(o_.seed))
                         .add(read_file(game_path(key)))
                         .add(pool_json(pools.back()).dump())
                         .add(mutate_prompt())
                         .add(request_text_)
                         .add(seeds_text_)
                         .add(run_text_)
                         .hex(),
                     {mutation_path(round, key)}});
  }
  return stage(name, mutation_path(round, "x").parent_path(), items, [&, round](size_t i, int64_t& requests) {
    const std::string& key = items[i].key;
    const std::vector<Segment>& candidates = pools[i];
    if (candidates.empty()) throw ItemFailure(ErrorKind::kNoOutput, "the game has no segment to mutate");
    CPythonRandom rng(synth_rng_seed(o_.seed, key + "/" + name));
    const Segment& from = candidates[rng.randbelow(candidates.size())];
    const SynthGame base = game(key);
    const SynthGame current = with_segment(base, from);
    const std::string prompt = llm::render_template(mutate_prompt(),
                                                    {{"script", script_as_edits(current.script)},
                                                     {"part", part_words(from)},
                                                     {"description", from.description},
                                                     {"code", from.code},
                                                     {"description_hint", description_hint(from)},
                                                     {"method", from.method}},
                                                    "synth_mutate.txt");
    const std::string reply = ask(name + "/" + key, 0, prompt, requests);
    Segment mutated;
    try {
      mutated = parse_mutation_reply(reply, from, fmt::format("{}/round-{}", key, round));
    } catch (const InputError& e) {
      throw ItemFailure(ErrorKind::kNoOutput,
                        fmt::format("the reply does not follow the format: {}", e.what()));
    }
    std::string reason;
    if (mutated.description == from.description && mutated.code == from.code) reason = "nothing changed";
    if (reason.empty()) {
      try {
        reason = first_failure(play(key, with_segment(base, mutated).game_file()));
      } catch (const InputError& e) {
        reason = fmt::format("does not apply: {}", e.what());
      }
    }
    write_json(mutation_path(round, key),
               OrderedJson{{"key", key},
                           {"round", round},
                           {"from", from.id},
                           {"kept", reason.empty()},
                           {"reason", reason},
                           {"segment", reason.empty() ? mutated.to_json() : OrderedJson()},
                           {"reply", reply}});
    return ItemOutcome::success(key,
                                OrderedJson{{"kept", reason.empty()}, {"reason", reason}, {"from", from.id}});
  });
}

fs::path segment_dialogue_path(const fs::path& out, const std::string& key) {
  return out / "dialogues" / "segment" / (key + ".json");
}
fs::path complete_dialogue_path(const fs::path& out, const std::string& key) {
  return out / "dialogues" / "complete" / (key + ".json");
}

batch::StageRun Pipeline::dialogues_stage(const std::vector<std::string>& keys) {
  std::vector<batch::Item> items;
  std::vector<std::vector<Segment>> pools;
  for (const std::string& key : keys) {
    pools.push_back(pool(key, o_.rounds));
    items.push_back({key,
                     batch::ContentHash()
                         .add("dialogues")
                         .add(std::to_string(o_.seed))
                         .add(std::to_string(o_.segment_dialogues))
                         .add(read_file(game_path(key)))
                         .add(pool_json(pools.back()).dump())
                         .add(segment_prompt())
                         .add(request_text_)
                         .hex(),
                     {segment_dialogue_path(o_.out, key)}});
  }
  return stage("dialogues", o_.out / "dialogues" / "segment", items, [&](size_t i, int64_t& requests) {
    const std::string& key = items[i].key;
    const std::vector<Segment>& all = pools[i];
    std::vector<size_t> chosen;
    const size_t n = static_cast<size_t>(o_.segment_dialogues);
    if (n == 0 || n >= all.size()) {
      for (size_t k = 0; k < all.size(); ++k) chosen.push_back(k);
    } else {
      CPythonRandom rng(synth_rng_seed(o_.seed, key + "/dialogues"));
      chosen = rng.sample_indices(all.size(), n);
      std::sort(chosen.begin(), chosen.end());
    }
    const SynthGame base = game(key);
    OrderedJson dialogues = OrderedJson::array(), rejected = OrderedJson::array();
    int kept_count = 0;
    for (size_t call = 0; call < chosen.size(); ++call) {
      const Segment& s = all[chosen[call]];
      const SynthGame g = with_segment(base, s);
      const std::string prompt = llm::render_template(segment_prompt(),
                                                      {{"script", script_as_edits(g.script)},
                                                       {"part", part_words(s)},
                                                       {"description", s.description},
                                                       {"code", s.code}},
                                                      "synth_segment.txt");
      const std::string reply = ask("dialogues/" + key, static_cast<int>(call), prompt, requests);
      std::string reason;
      OrderedJson messages = OrderedJson::array();
      try {
        const std::vector<llm::ChatMessage> m = parse_dialogue_reply(reply);
        for (const auto& x : m) messages.push_back(OrderedJson{{"role", x.role}, {"content", x.content}});
        reason = check_dialogue(m);
      } catch (const InputError& e) {
        reason = fmt::format("the reply does not follow the format: {}", e.what());
      }
      if (reason.empty())
        ++kept_count;
      else
        rejected.push_back(OrderedJson{{"segment", s.id}, {"reason", reason}});
      dialogues.push_back(OrderedJson{{"segment", s.id},
                                      {"kept", reason.empty()},
                                      {"reason", reason},
                                      {"messages", messages},
                                      {"reply", reply}});
    }
    write_json(segment_dialogue_path(o_.out, key), OrderedJson{{"key", key}, {"dialogues", dialogues}});
    return ItemOutcome::success(key, OrderedJson{{"kept", kept_count}, {"rejected", rejected}});
  });
}

batch::StageRun Pipeline::complete_stage(const std::vector<std::string>& keys) {
  std::vector<batch::Item> items;
  for (const std::string& key : keys)
    items.push_back({key,
                     batch::ContentHash()
                         .add("complete")
                         .add(read_file(game_path(key)))
                         .add(complete_prompt())
                         .add(request_text_)
                         .add(seeds_text_)
                         .add(run_text_)
                         .hex(),
                     {complete_dialogue_path(o_.out, key)}});
  return stage("complete", o_.out / "dialogues" / "complete", items, [&](size_t i, int64_t& requests) {
    const std::string& key = items[i].key;
    const SynthGame truth = game(key);
    const std::string prompt = llm::render_template(
        complete_prompt(), {{"script", script_as_edits(truth.script)}, {"code", truth.game_file()}},
        "synth_complete.txt");
    const std::string reply = ask("complete/" + key, 0, prompt, requests);
    std::string reason, file;
    OrderedJson messages = OrderedJson::array();
    try {
      const std::vector<llm::ChatMessage> m = parse_dialogue_reply(reply);
      for (const auto& x : m) messages.push_back(OrderedJson{{"role", x.role}, {"content", x.content}});
      reason = check_dialogue(m, &file);
    } catch (const InputError& e) {
      reason = fmt::format("the reply does not follow the format: {}", e.what());
    }
    if (reason.empty()) {
      const std::vector<SeedRun> expected = play(key, truth.game_file());
      reason = mismatch_reason(expected, file == truth.game_file() ? expected : play(key, file));
    }
    write_json(complete_dialogue_path(o_.out, key), OrderedJson{{"key", key},
                                                                {"kept", reason.empty()},
                                                                {"reason", reason},
                                                                {"messages", messages},
                                                                {"reply", reply}});
    return ItemOutcome::success(key, OrderedJson{{"kept", reason.empty()}, {"reason", reason}});
  });
}

// {"items", "ok", "errors": [{"key", "message"}], "kept", "rejected": [{"key", "reason"}]} of a stage whose
// items are kept or rejected one by one.
OrderedJson stage_summary(const batch::StageRun& run,
                          const std::function<bool(const std::string&)>& select = {}) {
  OrderedJson errors = OrderedJson::array(), rejected = OrderedJson::array();
  int items = 0, kept_count = 0;
  for (const ItemOutcome& o : run.outcomes) {
    if (select && !select(o.key)) continue;
    ++items;
    if (!o.ok()) {
      errors.push_back(OrderedJson{{"key", o.key}, {"message", o.message}});
    } else if (o.metadata.contains("kept") && o.metadata["kept"].is_boolean()) {
      if (o.metadata["kept"].get<bool>())
        ++kept_count;
      else
        rejected.push_back(OrderedJson{{"key", o.key}, {"reason", o.metadata.value("reason", "")}});
    }
  }
  return OrderedJson{{"items", items}, {"errors", errors}, {"kept", kept_count}, {"rejected", rejected}};
}

std::vector<std::string> kept_keys(const batch::StageRun& run, char prefix) {
  std::vector<std::string> keys;
  for (const ItemOutcome& o : run.outcomes)
    if (!o.key.empty() && o.key[0] == prefix && kept(o)) keys.push_back(o.key);
  return keys;
}

std::vector<std::string> ok_keys(const batch::StageRun& run) {
  std::vector<std::string> keys;
  for (const ItemOutcome& o : run.outcomes)
    if (o.ok()) keys.push_back(o.key);
  return keys;
}

void Pipeline::export_files(const batch::StageRun& dialogues, const batch::StageRun& complete,
                            OrderedJson& summary) {
  std::string train, train_complete;
  int lines = 0, complete_lines = 0;
  for (const std::string& key : ok_keys(dialogues)) {
    const OrderedJson file = read_json(segment_dialogue_path(o_.out, key));
    for (const auto& d : file.at("dialogues")) {
      if (!d.at("kept").get<bool>()) continue;
      std::vector<llm::ChatMessage> m;
      for (const auto& x : d.at("messages")) m.push_back({x.at("role"), x.at("content")});
      train += chat_record(m).dump() + "\n";
      ++lines;
    }
  }
  for (const std::string& key : kept_keys(complete, 'c')) {
    std::vector<llm::ChatMessage> m;
    const OrderedJson file = read_json(complete_dialogue_path(o_.out, key));
    for (const auto& x : file.at("messages")) m.push_back({x.at("role"), x.at("content")});
    train_complete += chat_record(m).dump() + "\n";
    ++complete_lines;
  }
  write_file_atomic(o_.out / "train.jsonl", train);
  write_file_atomic(o_.out / "train_complete.jsonl", train_complete);
  summary["export"] = OrderedJson{{"train.jsonl", lines}, {"train_complete.jsonl", complete_lines}};
  write_json(o_.out / "summary.json", summary);
}

SynthRun Pipeline::run() {
  OrderedJson summary{{"seed", o_.seed}, {"game_seeds", seeds_text_}};
  const batch::StageRun games = games_stage();
  summary["games"] =
      OrderedJson{{"seed", stage_summary(games, [](const std::string& k) { return k[0] == 'g'; })},
                  {"complete", stage_summary(games, [](const std::string& k) { return k[0] == 'c'; })}};
  const batch::StageRun segments = segments_stage(kept_keys(games, 'g'));
  const std::vector<std::string> seed_keys = ok_keys(segments);
  int pairs = 0;
  for (const ItemOutcome& o : segments.outcomes) pairs += o.ok() ? o.metadata.value("segments", 0) : 0;
  summary["segments"] = OrderedJson{{"games", seed_keys.size()}, {"pairs", pairs}};
  summary["mutations"] = OrderedJson::array();
  for (int round = 1; round <= o_.rounds; ++round) {
    OrderedJson s = stage_summary(mutate_stage(round, seed_keys));
    summary["mutations"].push_back(OrderedJson{{"round", round},
                                               {"items", s["items"]},
                                               {"kept", s["kept"]},
                                               {"rejected", s["rejected"]},
                                               {"errors", s["errors"]}});
  }
  const batch::StageRun dialogues = dialogues_stage(seed_keys);
  OrderedJson ds = stage_summary(dialogues);
  int segment_kept = 0;
  OrderedJson segment_rejected = OrderedJson::array();
  for (const ItemOutcome& o : dialogues.outcomes) {
    if (!o.ok()) continue;
    segment_kept += o.metadata.value("kept", 0);
    for (const auto& r : o.metadata.at("rejected")) segment_rejected.push_back(r);
  }
  summary["dialogues"] = OrderedJson{{"items", ds["items"]},
                                     {"errors", ds["errors"]},
                                     {"kept", segment_kept},
                                     {"rejected", segment_rejected}};
  const batch::StageRun complete = complete_stage(kept_keys(games, 'c'));
  summary["complete"] = stage_summary(complete);
  if (driver_.shard().all()) export_files(dialogues, complete, summary);
  SynthRun result;
  result.summary = std::move(summary);
  result.requests = requests_;
  result.failed = failed_;
  return result;
}

}  // namespace

SynthRun run_synthesis(const SynthOptions& options) {
  if (options.game_seeds.empty()) throw SetupError("poker synth: no seeds to run the games on");
  Pipeline pipeline(options);
  return pipeline.run();
}

}  // namespace pcglab::poker
