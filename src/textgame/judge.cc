#include "textgame/judge.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <set>

#include "batch/driver.h"
#include "core/check.h"
#include "core/cpython_random.h"
#include "core/error_kind.h"
#include "core/files.h"
#include "core/rng.h"
#include "core/table.h"
#include "llm/template.h"

namespace pcglab::textgame {

extern const unsigned char kJudgeCompliancePrompt[];   // generated/embedded/kJudgeCompliancePrompt.cc
extern const unsigned char kJudgeAlignmentPrompt[];    // generated/embedded/kJudgeAlignmentPrompt.cc
extern const unsigned char kJudgeWinnabilityPrompt[];  // generated/embedded/kJudgeWinnabilityPrompt.cc

namespace {

namespace fs = std::filesystem;

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::vector<std::string> split_list(const std::string& value) {
  std::vector<std::string> out;
  if (lower(trim(value)) == "none") return out;
  size_t start = 0;
  while (start <= value.size()) {
    const size_t comma = value.find(',', start);
    const std::string part =
        trim(value.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (!part.empty()) out.push_back(part);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

std::vector<std::string> split_on(const std::string& text, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t at = text.find(sep, start);
    out.push_back(text.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos) break;
    start = at + 1;
  }
  return out;
}

// A generated game's name as the official reads it (bytes32/compliance.py, parse_game_file_name).
struct GeneratedName {
  std::string experiment;
  int test = 0;
};

GeneratedName parse_generated_name(const std::string& game_file_name) {
  const std::vector<std::string> parts = split_on(game_file_name, '_');
  const auto bad_name = [&](const std::string& why) {
    return InputError(fmt::format(
        "{}: {} (the official reads the experiment and the test from a generated game's name, split on '_': "
        "[1] object, action or distractor, [3] the test 1-16, [4] p or n)",
        game_file_name, why));
  };
  if (parts.size() < 5) throw bad_name("not enough '_'-separated parts");
  if (parts[1] != "object" && parts[1] != "action" && parts[1] != "distractor")
    throw bad_name("part 1 '" + parts[1] + "' is not an experiment");
  if (parts[4] != "p" && parts[4] != "n") throw bad_name("part 4 '" + parts[4] + "' is not p or n");
  GeneratedName name;
  name.experiment = parts[1];
  for (int t = 1; t <= 16; ++t)
    if (parts[3] == std::to_string(t)) name.test = t;
  if (name.test == 0) throw bad_name("part 3 '" + parts[3] + "' is not a test number 1-16");
  return name;
}

const char* embedded(const unsigned char* bytes) {
  return reinterpret_cast<const char*>(bytes);
}

// The first word of an action, as the official crawls group them.
std::string verb_of(const std::string& action) {
  const std::string t = trim(action);
  const size_t space = t.find_first_of(" \t");
  return space == std::string::npos ? t : t.substr(0, space);
}

llm::ChatRequest request_for(const JudgeSettings& settings, std::vector<llm::ChatMessage> messages) {
  llm::ChatRequest request;
  request.model = settings.model;
  request.messages = std::move(messages);
  request.temperature = settings.temperature;
  request.max_tokens = settings.max_tokens;
  request.seed = settings.seed;
  return request;
}

// One call; an LLM failure fails the item (ItemFailure, kind llm).
llm::ChatResponse complete_or_fail(llm::Completer& completer, const llm::ChatRequest& request,
                                   const llm::CallContext& context, int& requests) {
  Result<llm::ChatResponse> r = completer.complete(request, context);
  if (!r.ok()) throw ItemFailure(ErrorKind::kLlm, r.error().describe());
  requests += r.value().attempts;
  return std::move(r).value();
}

template <class T>
void shuffle(std::vector<T>& v, Rng& rng) {
  for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng.below(i)]);
}

}  // namespace

TaskSpec parse_task_spec(const std::string& text, const std::string& source) {
  TaskSpec spec;
  spec.text = text;
  bool has_task = false;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = trim(std::string_view(text).substr(start, end - start));
    start = end + 1;
    if (line.rfind('#', 0) != 0) continue;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = lower(trim(line.substr(1, colon - 1)));
    const std::string value = trim(line.substr(colon + 1));
    if (key == "task" || key == "task description") {
      spec.task = value;
      has_task = true;
    } else if (key == "task-critical objects") {
      spec.objects = split_list(value);
    } else if (key == "actions") {
      spec.actions = split_list(value);
    } else if (key == "distractor items") {
      spec.distractor_items = split_list(value);
    } else if (key == "distractor actions") {
      spec.distractor_actions = split_list(value);
    }
  }
  if (!has_task)
    throw InputError(source + ": not a task specification (no '# Task:' or '# Task Description:' line)");
  return spec;
}

std::vector<ComplianceQuestion> compliance_questions(const TaskSpec& spec) {
  std::vector<ComplianceQuestion> out;
  for (const std::string& o : spec.objects)
    out.push_back({"object", o, fmt::format("Does the simulation have the object {}?", o)});
  for (const std::string& a : spec.actions)
    out.push_back({"action", a, fmt::format("Does the simulation have the action {}?", a)});
  if (!spec.distractor_items.empty() || !spec.distractor_actions.empty())
    out.push_back({"distractor", "",
                   "Are the distractors required by the specification implemented in the simulation?"});
  return out;
}

OfficialQuestion official_compliance_question(const std::string& game_file_name, const std::string& form_csv,
                                              const std::string& form_source) {
  const GeneratedName name = parse_generated_name(game_file_name);
  const int test = name.test;
  const std::string row_name = "test_" + std::to_string(test);
  std::vector<std::string> lines = split_on(form_csv, '\n');
  if (lines.empty() || trim(lines[0]) != "test,object,action,distractor")
    throw InputError(form_source +
                     ": not an evaluation form (its header is not test,object,action,distractor)");
  for (size_t i = 1; i < lines.size(); ++i) {
    const std::vector<std::string> cells = split_on(trim(lines[i]), ',');
    if (cells.size() != 4 || cells[0] != row_name) continue;
    OfficialQuestion q;
    q.test = test;
    if (name.experiment == "object")
      q.question = {"object", cells[1], fmt::format("Does the simulation have the object {}?", cells[1])};
    else if (name.experiment == "action")
      q.question = {"action", cells[2], fmt::format("Does the simulation have the action {}?", cells[2])};
    else
      q.question = {"distractor", "",
                    "Are the distractors required by the specification implemented in the simulation?"};
    return q;
  }
  throw InputError(fmt::format("{}: no row {} (for {})", form_source, row_name, game_file_name));
}

Verdict parse_verdict(std::string_view reply) {
  const std::string l = lower(reply.substr(0, 3));
  if (l == "yes") return Verdict::kYes;
  if (l.rfind("no", 0) == 0) return Verdict::kNo;
  return Verdict::kOther;
}

const char* verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::kYes: return "yes";
    case Verdict::kNo: return "no";
    case Verdict::kOther: break;
  }
  return "other";
}

VoteCount count_votes(const std::vector<std::string>& replies) {
  VoteCount c;
  c.votes = static_cast<int>(replies.size());
  for (const std::string& r : replies) {
    switch (parse_verdict(r)) {
      case Verdict::kYes: ++c.yes; break;
      case Verdict::kNo: ++c.no; break;
      case Verdict::kOther: ++c.other; break;
    }
  }
  c.yes_share = c.votes == 0 ? 0.0 : static_cast<double>(c.yes) / c.votes;
  c.passed = c.yes_share > 0.5;
  return c;
}

JudgePrompts JudgePrompts::builtin() {
  JudgePrompts p;
  p.compliance = embedded(kJudgeCompliancePrompt);
  p.alignment = embedded(kJudgeAlignmentPrompt);
  p.winnability = embedded(kJudgeWinnabilityPrompt);
  return p;
}

JudgePrompts JudgePrompts::from_dir(const fs::path& dir) {
  JudgePrompts p;
  p.source = dir.string();
  const auto load = [&](const char* name, const std::vector<std::string>& needed) {
    const fs::path file = dir / name;
    std::string text;
    try {
      text = read_file(file);
    } catch (const std::exception& e) {
      throw SetupError(fmt::format("--prompts: cannot read {} ({})", file.string(), e.what()));
    }
    llm::require_placeholders(text, needed, "--prompts " + file.string());
    return text;
  };
  p.compliance = load("compliance.txt", {"spec", "code", "question"});
  p.alignment = load("alignment.txt", {"task", "path"});
  p.winnability = load("winnability.txt", {"task", "actions"});
  return p;
}

MetricResult judge_compliance(llm::Completer& completer, const JudgeSettings& settings,
                              const JudgePrompts& prompts, const TaskSpec& spec, const std::string& code,
                              const std::string& item) {
  return judge_compliance(completer, settings, prompts, spec, compliance_questions(spec), code, item);
}

MetricResult judge_compliance(llm::Completer& completer, const JudgeSettings& settings,
                              const JudgePrompts& prompts, const TaskSpec& spec,
                              const std::vector<ComplianceQuestion>& qs, const std::string& code,
                              const std::string& item) {
  PCGLAB_CHECK(settings.votes >= 1) << "votes " << settings.votes;
  MetricResult m;
  OrderedJson questions = OrderedJson::array();
  std::map<std::string, std::pair<int, int>> by_category;  // passed, asked
  int passed = 0;
  for (size_t q = 0; q < qs.size(); ++q) {
    const std::string prompt = llm::render_template(
        prompts.compliance, {{"spec", spec.text}, {"code", code}, {"question", qs[q].question}},
        prompts.source + "/compliance.txt");
    const llm::ChatRequest request = request_for(settings, {{"user", prompt}});
    std::vector<std::string> replies;
    OrderedJson votes = OrderedJson::array();
    std::string mode = "separate";
    llm::ChatRequest asked = request;  // the request of the votes (of vote 0 when n was ignored)
    if (settings.try_n && settings.votes > 1) {
      llm::ChatRequest n_request = request;
      n_request.n = settings.votes;
      llm::CallContext context;
      context.item = item;
      context.call = static_cast<int>(q) * settings.votes;
      const Result<llm::ChatResponse> r = completer.complete(n_request, context);
      if (r.ok()) {
        m.requests += r.value().attempts;
        asked = n_request;
        if (static_cast<int>(r.value().choices.size()) == settings.votes) {
          replies = r.value().choices;
          mode = "n";
        } else {
          replies = {r.value().content};  // the server ignored n: its one choice is vote 0
        }
      }
    }
    for (int v = static_cast<int>(replies.size()); v < settings.votes; ++v) {
      llm::CallContext context;
      context.item = item;
      context.trial = v;
      context.call = static_cast<int>(q) * settings.votes + v;
      replies.push_back(complete_or_fail(completer, request, context, m.requests).content);
    }
    for (const std::string& reply : replies)
      votes.push_back({{"reply", reply}, {"verdict", verdict_name(parse_verdict(reply))}});
    const VoteCount c = count_votes(replies);
    OrderedJson summary = {{"category", qs[q].category},
                           {"requirement", qs[q].requirement},
                           {"question", qs[q].question},
                           {"votes", c.votes},
                           {"yes", c.yes},
                           {"no", c.no},
                           {"other", c.other},
                           {"yes_share", c.yes_share},
                           {"passed", c.passed}};
    questions.push_back(summary);
    OrderedJson judgement = summary;
    judgement["mode"] = mode;  // n: one request of n choices; separate: a call per vote
    judgement["request"] = OrderedJson::parse(llm::request_json(asked));
    if (mode == "separate" && asked.n)  // vote 0 came from the n request; the others from this one
      judgement["vote_request"] = OrderedJson::parse(llm::request_json(request));
    judgement["replies"] = std::move(votes);
    m.judgements.push_back(std::move(judgement));
    auto& cat = by_category[qs[q].category];
    cat.first += c.passed ? 1 : 0;
    cat.second += 1;
    passed += c.passed ? 1 : 0;
  }
  for (const char* category : {"object", "action", "distractor"}) {
    const auto it = by_category.find(category);
    m.result[category] = it == by_category.end()
                             ? OrderedJson(nullptr)
                             : OrderedJson(static_cast<double>(it->second.first) / it->second.second);
  }
  m.result["passed"] = passed;
  m.result["total"] = static_cast<int>(qs.size());
  m.result["questions"] = std::move(questions);
  return m;
}

MetricResult judge_winnability(llm::Completer& completer, const JudgeSettings& settings,
                               const JudgePrompts& prompts, GameSession& session, const std::string& item) {
  MetricResult m;
  const std::optional<std::string> first = session.new_game(settings.game_seed);
  const std::string task = session.task_description();
  std::vector<std::string> actions = session.possible_actions();
  std::string action_list;
  for (const std::string& a : actions) action_list += a + "\n";
  std::vector<llm::ChatMessage> messages = {
      {"system", llm::render_template(prompts.winnability, {{"task", task}, {"actions", trim(action_list)}},
                                      prompts.source + "/winnability.txt")},
      {"user", first.value_or("")}};
  int env_steps = 0, turns = 0;
  bool over = false, won = false;
  std::string ended = "turn limit";
  while (turns < 2 * settings.env_steps) {
    const llm::ChatRequest request = request_for(settings, messages);
    llm::CallContext context;
    context.item = item;
    context.call = turns;
    const llm::ChatResponse r = complete_or_fail(completer, request, context, m.requests);
    ++turns;
    const std::string reply = trim(r.content);
    const std::string l = lower(reply);
    OrderedJson judgement = {{"turn", turns}, {"reply", r.content}};
    messages.push_back({"assistant", r.content});
    std::string observation;
    if (l.rfind("think:", 0) == 0) {
      judgement["verdict"] = "think";
      observation = "OK.";
    } else if (l == "done" || l == "bug") {
      judgement["verdict"] = l;
      m.judgements.push_back(std::move(judgement));
      ended = l;
      break;
    } else {
      const StepResult s = session.step(reply);
      ++env_steps;
      if (settings.regenerate_actions) session.possible_actions();
      observation = s.observation;
      over = s.game_over;
      won = s.game_won;
      judgement["verdict"] = "action";
      judgement["observation"] = observation;
    }
    m.judgements.push_back(std::move(judgement));
    if (over) {
      ended = "game over";
      break;
    }
    if (env_steps >= settings.env_steps) {
      ended = "step limit";
      break;
    }
    messages.push_back({"user", observation});
  }
  // The whole conversation once, as the last request would have carried it.
  m.result = {
      {"game_won", won}, {"game_over", over}, {"env_steps", env_steps}, {"turns", turns}, {"ended", ended}};
  OrderedJson record = {{"request", OrderedJson::parse(llm::request_json(request_for(settings, messages)))},
                        {"turns", std::move(m.judgements)}};
  m.judgements = OrderedJson::array({std::move(record)});
  return m;
}

std::vector<CrawledPath> crawl_paths(GameSession& session, const JudgeSettings& settings) {
  std::vector<CrawledPath> paths;
  session.new_game(0);
  const std::vector<std::string> initial = session.possible_actions();
  // The official Pathcrawler's own generator: Python's random.Random(shuffle_seed), one for the crawl.
  CPythonRandom rng(settings.shuffle_seed);
  const auto max_paths = static_cast<size_t>(settings.max_paths);
  std::function<void(const CrawledPath&, int)> crawl = [&](const CrawledPath& prefix, int depth) {
    if (depth < 0 || paths.size() >= max_paths) return;
    const int64_t here = session.snapshot();
    std::vector<std::string> order = initial;
    rng.shuffle(order);
    std::map<std::string, int> per_verb;
    for (const std::string& action : order) {
      // The official check: a verb already run more than `cap` times is skipped (cap + 1 per verb);
      // the verb is the text before the first space, as `actionStr.split(" ")[0]`.
      int& count = per_verb[action.substr(0, action.find(' '))];
      if (count > settings.alignment_cap) continue;
      ++count;
      session.restore(here);
      session.possible_actions();
      CrawledPath path = prefix;
      path.actions.push_back(action);
      bool over = false;
      try {
        const StepResult s = session.step(action);
        path.observations.push_back(s.observation);
        over = s.game_over;
      } catch (const GameError& e) {
        if (e.info().cause != "exception") throw;                   // a lost worker fails the item
        path.observations.push_back("ERROR: " + e.info().message);  // the official "fail" strategy
        over = true;
      }
      paths.push_back(path);
      // As the official: the limit is checked after each path, so each open level adds one more
      // path after a deeper level reached it.
      if (paths.size() >= max_paths) break;
      if (!over) crawl(path, depth - 1);
    }
    session.drop_snapshot(here);
  };
  crawl(CrawledPath{}, settings.alignment_depth);
  return paths;
}

std::vector<size_t> sample_paths_by_verb(const std::vector<CrawledPath>& paths, int samples, int64_t seed) {
  const auto want = static_cast<size_t>(std::max(samples, 0));
  std::vector<size_t> all(paths.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  if (paths.size() <= want) return all;
  std::vector<std::string> verbs;
  std::map<std::string, std::vector<size_t>> by_verb;
  for (size_t i = 0; i < paths.size(); ++i) {
    const std::string v = paths[i].actions.empty() ? "" : verb_of(paths[i].actions.back());
    if (!by_verb.count(v)) verbs.push_back(v);
    by_verb[v].push_back(i);
  }
  Rng rng(static_cast<uint64_t>(seed));
  const size_t per_verb = want / verbs.size();
  std::set<size_t> chosen;
  for (const std::string& v : verbs) {
    std::vector<size_t> group = by_verb[v];
    shuffle(group, rng);
    for (size_t k = 0; k < std::min(per_verb, group.size()); ++k) chosen.insert(group[k]);
  }
  std::vector<size_t> rest;
  for (size_t i : all)
    if (!chosen.count(i)) rest.push_back(i);
  shuffle(rest, rng);
  for (size_t k = 0; chosen.size() < want && k < rest.size(); ++k) chosen.insert(rest[k]);
  return {chosen.begin(), chosen.end()};
}

MetricResult judge_alignment(llm::Completer& completer, const JudgeSettings& settings,
                             const JudgePrompts& prompts, GameSession& session, const std::string& item) {
  MetricResult m;
  const std::vector<CrawledPath> paths = crawl_paths(session, settings);
  const std::string task = session.task_description();
  const std::vector<size_t> sample =
      sample_paths_by_verb(paths, settings.alignment_samples, settings.sample_seed);
  int yes = 0;
  for (size_t k = 0; k < sample.size(); ++k) {
    const CrawledPath& path = paths[sample[k]];
    std::string text;
    for (size_t s = 0; s < path.actions.size(); ++s)
      text += fmt::format("> {}\n{}\n\n", path.actions[s], path.observations[s]);
    const llm::ChatRequest request = request_for(
        settings, {{"user", llm::render_template(prompts.alignment, {{"task", task}, {"path", trim(text)}},
                                                 prompts.source + "/alignment.txt")}});
    llm::CallContext context;
    context.item = item;
    context.call = static_cast<int>(k);
    const llm::ChatResponse r = complete_or_fail(completer, request, context, m.requests);
    const Verdict v = parse_verdict(r.content);
    yes += v == Verdict::kYes ? 1 : 0;
    m.judgements.push_back({{"path", path.actions},
                            {"request", OrderedJson::parse(llm::request_json(request))},
                            {"reply", r.content},
                            {"verdict", verdict_name(v)}});
  }
  m.result = {
      {"paths", paths.size()},
      {"judged", sample.size()},
      {"yes", yes},
      {"score", sample.empty() ? 0.0 : static_cast<double>(yes) / static_cast<double>(sample.size())}};
  return m;
}

const std::vector<std::string>& judge_metric_names() {
  static const std::vector<std::string> names = {"compliance", "alignment", "winnability"};
  return names;
}

namespace {

std::string settings_json(const JudgeRun& run) {
  const JudgeSettings& s = run.settings;
  OrderedJson j = {{"model", s.model},
                   {"temperature", s.temperature},
                   {"votes", s.votes},
                   {"try_n", s.try_n},
                   {"alignment_depth", s.alignment_depth},
                   {"alignment_cap", s.alignment_cap},
                   {"shuffle_seed", s.shuffle_seed},
                   {"alignment_samples", s.alignment_samples},
                   {"sample_seed", s.sample_seed},
                   {"max_paths", s.max_paths},
                   {"env_steps", s.env_steps},
                   {"game_seed", s.game_seed},
                   {"regenerate_actions", s.regenerate_actions}};
  if (s.max_tokens) j["max_tokens"] = *s.max_tokens;
  if (s.seed) j["seed"] = *s.seed;
  return dump_json(j);
}

// With an evaluation form: --spec itself, or when it is a folder its test_N.py for the game's test.
fs::path official_spec_file(const JudgeRun& run, const fs::path& game) {
  if (!fs::is_directory(run.spec)) return run.spec;
  return run.spec / fmt::format("test_{}.py", parse_generated_name(game.filename().string()).test);
}

Json metric_cell(const OrderedJson& metadata, const char* field) {
  if (!metadata.contains(field) || metadata[field].is_null()) return Json(nullptr);
  return Json::parse(metadata[field].dump());
}

}  // namespace

JudgeReport run_judge(const JudgeRun& run, llm::Completer& completer, ThreadPool& pool) {
  return run_judge(
      run, [&completer](const fs::path&) -> llm::Completer& { return completer; }, pool);
}

JudgeReport run_judge(const JudgeRun& run, const JudgeCompleterFactory& make_completer, ThreadPool& pool) {
  for (const std::string& m : run.metrics)
    if (std::find(judge_metric_names().begin(), judge_metric_names().end(), m) == judge_metric_names().end())
      throw SetupError(fmt::format("--metrics: unknown metric '{}' (compliance, alignment, winnability)", m));
  if (run.metrics.empty()) throw SetupError("--metrics: name at least one metric");
  const bool needs_spec =
      std::find(run.metrics.begin(), run.metrics.end(), "compliance") != run.metrics.end();
  std::string spec_text, form_text;
  TaskSpec spec;
  if (needs_spec && !run.eval_form.empty()) {
    try {
      form_text = read_file(run.eval_form);
    } catch (const InputError& e) {
      throw SetupError(fmt::format("--eval-form: {}", e.what()));
    }
    if (run.spec.empty())
      throw SetupError(
          "--eval-form needs --spec: a spec file, or a folder of test_N.py (data/test_prompts/)");
  } else if (needs_spec) {
    if (run.spec.empty()) throw SetupError("compliance needs --spec SPEC.py (the task specification)");
    try {
      spec_text = read_file(run.spec);
      spec = parse_task_spec(spec_text, run.spec.string());
    } catch (const InputError& e) {
      throw SetupError(fmt::format("--spec: {}", e.what()));
    }
  }
  std::set<std::string> stems;
  for (const fs::path& g : run.games)
    if (!stems.insert(g.stem().string()).second)
      throw SetupError(fmt::format("two games named {}: their results would share out/judgements/{}/",
                                   g.filename().string(), g.stem().string()));

  batch::DriverOptions options;
  options.run_name = "textgame judge";
  options.config = run.merge_config.empty() ? settings_json(run) : run.merge_config;
  options.progress = run.progress;
  options.shard = run.shard;
  batch::Driver driver(run.out, pool, options);
  batch::StageSpec stage;
  stage.name = "judge";
  stage.output_dirs = {run.out / "judgements"};
  struct Task {
    fs::path game;
    std::string metric;
  };
  std::vector<Task> tasks;
  const std::string prompts_text = run.prompts.compliance + run.prompts.alignment + run.prompts.winnability;
  for (const fs::path& g : run.games) {
    for (const std::string& metric : run.metrics) {
      batch::Item item;
      item.key = g.stem().string() + "/" + metric;
      item.outputs = {run.out / "judgements" / g.stem() / (metric + ".json")};
      try {
        batch::ContentHash h;
        // The settings alone (not the merge record, which names paths): hashes of earlier runs hold.
        h.add("textgame judge 1").add(metric).add(settings_json(run)).add(prompts_text).add(read_file(g));
        if (metric == "compliance") h.add(spec_text).add(form_text);
        if (metric == "compliance" && !form_text.empty()) h.add(read_file(official_spec_file(run, g)));
        item.hash = h.hex();
      } catch (const InputError&) {  // unreadable: always run (it fails, naming why)
      }
      stage.items.push_back(std::move(item));
      tasks.push_back({g, metric});
    }
  }
  const batch::StageRun result = driver.run(stage, [&](size_t i) {
    const Task& t = tasks[i];
    const std::string& key = stage.items[i].key;
    const GameSource game = read_game(t.game, run.corpus);
    llm::Completer& completer = make_completer(batch::Driver::store_path(run.out, driver.shard()));
    MetricResult m;
    if (t.metric == "compliance") {
      if (form_text.empty()) {
        m = judge_compliance(completer, run.settings, run.prompts, spec, game.source, key);
      } else {
        const OfficialQuestion q =
            official_compliance_question(t.game.filename().string(), form_text, run.eval_form.string());
        const fs::path spec_file = official_spec_file(run, t.game);
        const TaskSpec game_spec = parse_task_spec(read_file(spec_file), spec_file.string());
        m = judge_compliance(completer, run.settings, run.prompts, game_spec, {q.question}, game.source, key);
      }
    } else {
      sandbox::Worker worker(run.worker);
      GameSession session(worker, game);
      m = t.metric == "winnability" ? judge_winnability(completer, run.settings, run.prompts, session, key)
                                    : judge_alignment(completer, run.settings, run.prompts, session, key);
    }
    OrderedJson file = {
        {"game", game.filename}, {"metric", t.metric}, {"result", m.result}, {"judgements", m.judgements}};
    fs::create_directories(stage.items[i].outputs[0].parent_path());
    write_file_atomic(stage.items[i].outputs[0], dump_json(file, 2) + "\n");
    ItemOutcome outcome = ItemOutcome::success(key, m.result);
    outcome.requests = m.requests;
    return outcome;
  });

  JudgeReport report;
  report.columns = {"game",
                    "compliance_object",
                    "compliance_action",
                    "compliance_distractor",
                    "compliance_passed",
                    "alignment",
                    "winnability",
                    "error"};
  std::map<std::string, const ItemOutcome*> by_key;
  for (const ItemOutcome& o : result.outcomes) by_key[o.key] = &o;
  report.failed = result.failed;
  for (const fs::path& g : run.games) {
    std::vector<Json> row(report.columns.size(), Json(nullptr));
    row[0] = g.filename().string();
    std::string errors;
    bool ours = false;
    for (const std::string& metric : run.metrics) {
      const auto it = by_key.find(g.stem().string() + "/" + metric);
      if (it == by_key.end()) continue;  // another shard's
      ours = true;
      const ItemOutcome& o = *it->second;
      if (!o.ok()) {
        errors += (errors.empty() ? "" : "; ") + metric + ": " + o.message;
        continue;
      }
      if (metric == "compliance") {
        row[1] = metric_cell(o.metadata, "object");
        row[2] = metric_cell(o.metadata, "action");
        row[3] = metric_cell(o.metadata, "distractor");
        row[4] = fmt::format("{}/{}", o.metadata.value("passed", 0), o.metadata.value("total", 0));
      } else if (metric == "alignment") {
        row[5] = metric_cell(o.metadata, "score");
      } else {
        row[6] = metric_cell(o.metadata, "game_won");
      }
    }
    row[7] = errors;
    if (ours || driver.shard().all()) report.rows.push_back(std::move(row));
  }
  if (!driver.shard().all()) return report;  // concurrent shards: the merge writes the tables
  Table table{report.columns, report.rows};
  write_file_atomic(run.out / "results.md", format_table(table, OutputFormat::kMd));
  write_file_atomic(run.out / "results.csv", format_table(table, OutputFormat::kCsv));
  write_file_atomic(run.out / "results.json", format_table(table, OutputFormat::kJson));
  return report;
}

}  // namespace pcglab::textgame
