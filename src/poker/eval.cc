#include "poker/eval.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <mutex>

#include "batch/driver.h"
#include "core/check.h"
#include "core/cpython_random.h"
#include "core/error_kind.h"
#include "core/files.h"
#include "core/log.h"
#include "llm/template.h"

namespace pcglab::poker {

extern const unsigned char kPokerInteractorPrompt[];
extern const unsigned long kPokerInteractorPrompt_size;
extern const unsigned char kPokerJudgePrompt[];
extern const unsigned long kPokerJudgePrompt_size;

namespace {
namespace fs = std::filesystem;

constexpr int kSeedCount = 40;
constexpr int kSeedRange = 10000;

llm::ChatResponse complete_or_fail(llm::Completer& completer, const llm::ChatRequest& request,
                                   const llm::CallContext& context, int& requests, const std::string& what) {
  Result<llm::ChatResponse> r = completer.complete(request, context);
  if (!r.ok()) throw ItemFailure(ErrorKind::kLlm, fmt::format("{}: {}", what, r.error().message));
  requests += r.value().attempts;
  return std::move(r).value();
}

llm::ChatRequest with_messages(const llm::ChatRequest& base, std::vector<llm::ChatMessage> messages) {
  llm::ChatRequest request = base;
  request.messages = std::move(messages);
  return request;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

}  // namespace

// ---- The GameRunner of real runs ----

std::string seed_error_text(const SeedRun& run) {
  std::string text = fmt::format("{} ({})", error_kind_name(run.kind), run.cause);
  if (!run.type.empty()) text += " " + run.type + ":";
  if (!run.message.empty()) text += " " + run.message;
  return text;
}

GameRunner sandbox_game_runner(RunOptions options) {
  return [options = std::move(options)](const std::string& game_file, const std::vector<int64_t>& seeds) {
    const std::vector<SeedRun> runs = run_game("CustomGame.py", game_file, seeds, options);
    std::vector<SeedResult> results;
    results.reserve(runs.size());
    for (const SeedRun& r : runs) {
      SeedResult s;
      if (r.ok) {
        s.state = Json::parse(r.state.dump());
      } else {
        s.error = seed_error_text(r);
      }
      results.push_back(std::move(s));
    }
    return results;
  };
}

// ---- Seeds ----

std::vector<int64_t> default_eval_seeds() {
  std::vector<int64_t> seeds;
  for (int64_t s = 1; s <= kSeedCount; ++s) seeds.push_back(s);
  return seeds;
}

std::vector<int64_t> sampled_eval_seeds(int64_t seed) {
  CPythonRandom random(seed);
  std::vector<int64_t> seeds;
  for (size_t i : random.sample_indices(kSeedRange, kSeedCount)) seeds.push_back(static_cast<int64_t>(i));
  return seeds;
}

// ---- The interaction ----

std::string flow_marker(const Script& script) {
  return script.contains("Flow") ? python_literal(script["Flow"]) : std::string("[]");
}

bool reply_completes_flow(std::string_view reply, const Script& script) {
  return reply.find(flow_marker(script)) != std::string_view::npos;
}

std::string_view interactor_prompt_template() {
  return {reinterpret_cast<const char*>(kPokerInteractorPrompt), kPokerInteractorPrompt_size};
}

std::string_view judge_prompt_template() {
  return {reinterpret_cast<const char*>(kPokerJudgePrompt), kPokerJudgePrompt_size};
}

std::string interactor_system_prompt(const Script& target) {
  return llm::render_template(interactor_prompt_template(), {{"script", script_to_yaml(target)}},
                              "poker/prompts/interactor.txt");
}

std::string judge_prompt(const Session& session) {
  std::string dialogue;
  for (const SessionTurn& t : session.turns) {
    if (!dialogue.empty()) dialogue += "\n\n";
    dialogue += (t.role == TurnRole::kUser ? "User: " : "Assistant: ") + t.text;
  }
  return llm::render_template(judge_prompt_template(), {{"dialogue", dialogue}}, "poker/prompts/judge.txt");
}

const char* interaction_end_name(InteractionEnd end) {
  return end == InteractionEnd::kFlow ? "flow" : "turn-limit";
}

namespace {

// The conversation as the simulated user sees it: its own messages as "assistant", the model's
// replies as "user", after an opening user message.
std::vector<llm::ChatMessage> interactor_messages(const std::string& system, const Session& session) {
  std::vector<llm::ChatMessage> messages = {
      {"system", system},
      {"user", "(The assistant is ready and waits for your first message about the game you want.)"}};
  for (const SessionTurn& t : session.turns)
    messages.push_back({t.role == TurnRole::kUser ? "assistant" : "user", t.text});
  return messages;
}

}  // namespace

InteractionResult run_interaction(llm::Completer& assistant, llm::Completer& user,
                                  const InteractionSettings& settings, const TestGame& game,
                                  const fs::path& session_file, const std::string& item) {
  InteractionResult result;
  result.session = Session::start(
      default_script(),
      Json{{"test", game.key}, {"model", settings.assistant.model}, {"user_model", settings.user.model}});
  const std::string system = interactor_system_prompt(game.script);
  for (int t = 0; t < settings.max_turns; ++t) {
    llm::CallContext context;
    context.item = item;
    context.call = 2 * t;
    const llm::ChatResponse said =
        complete_or_fail(user, with_messages(settings.user, interactor_messages(system, result.session)),
                         context, result.requests, fmt::format("turn {}: the simulated user", t + 1));
    result.session.add_user_turn(said.content);
    context.call = 2 * t + 1;
    const llm::ChatResponse reply = complete_or_fail(
        assistant, with_messages(settings.assistant, result.session.chat_messages(assistant_system_prompt())),
        context, result.requests, fmt::format("turn {}: the model under test", t + 1));
    result.session.add_assistant_turn(reply.content);
    if (!session_file.empty()) result.session.save(session_file);
    if (reply_completes_flow(reply.content, game.script)) {
      result.end = InteractionEnd::kFlow;
      return result;
    }
  }
  result.end = InteractionEnd::kTurnLimit;
  return result;
}

Session session_from_chat(const Json& chat, std::string_view where) {
  const Json* messages = &chat;
  if (chat.is_object()) {
    if (!chat.contains("messages")) throw InputError(fmt::format("{}: no field 'messages'", where));
    messages = &chat["messages"];
  }
  if (!messages->is_array()) throw InputError(fmt::format("{}: 'messages' is not a list", where));
  Session session = Session::start();
  for (size_t i = 0; i < messages->size(); ++i) {
    const Json& m = (*messages)[i];
    if (!m.is_object() || !m.contains("role") || !m["role"].is_string() || !m.contains("content") ||
        !m["content"].is_string())
      throw InputError(fmt::format("{}: messages[{}] is not {{\"role\", \"content\"}} text", where, i));
    const std::string role = m["role"].get<std::string>();
    if (role == "system") continue;
    if (role == "user") {
      session.add_user_turn(m["content"].get<std::string>());
    } else if (role == "assistant") {
      session.add_assistant_turn(m["content"].get<std::string>());
    } else {
      throw InputError(
          fmt::format("{}: messages[{}]: role \"{}\" is not system, user or assistant", where, i, role));
    }
  }
  return session;
}

// ---- Interaction quality ----

std::array<int, 6> parse_quality_reply(std::string_view reply) {
  std::array<int, 6> scores{};
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= reply.size()) {
    size_t end = reply.find('\n', start);
    if (end == std::string_view::npos) end = reply.size();
    std::string line = lower(std::string(reply.substr(start, end - start)));
    line.erase(
        std::remove_if(line.begin(), line.end(), [](char c) { return c == '*' || c == '_' || c == '#'; }),
        line.end());
    const size_t first = line.find_first_not_of(" \t-");
    lines.push_back(first == std::string::npos ? "" : line.substr(first));
    start = end + 1;
  }
  const std::vector<std::string>& aspects = quality_aspects();
  std::vector<std::string> missing;
  for (size_t a = 0; a < aspects.size(); ++a) {
    int found = 0;
    for (const std::string& line : lines) {
      if (!line.starts_with(aspects[a])) continue;
      size_t p = aspects[a].size();
      while (p < line.size() && (line[p] == ' ' || line[p] == '\t')) ++p;
      if (p >= line.size() || (line[p] != ':' && line[p] != '=')) continue;
      ++p;
      while (p < line.size() && (line[p] == ' ' || line[p] == '\t')) ++p;
      if (p < line.size() && line[p] >= '1' && line[p] <= '4' &&
          (p + 1 == line.size() || !std::isdigit(static_cast<unsigned char>(line[p + 1])))) {
        found = line[p] - '0';
        break;
      }
    }
    if (found == 0) missing.push_back(aspects[a]);
    scores[a] = found;
  }
  if (!missing.empty())
    throw InputError(fmt::format("the judge's reply gives no score 1-4 for {}", fmt::join(missing, ", ")));
  return scores;
}

}  // namespace pcglab::poker
