#include "textgame/play.h"

#include <istream>
#include <ostream>

#include <fmt/format.h>

#include "core/check.h"

namespace pcglab::textgame {

namespace {

constexpr const char* kRule = "----------------------------------------";

std::string rtrim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ' || s.back() == '\t'))
    s.pop_back();
  return s;
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    start = end + 1;
  }
  return lines;
}

// An observation as compared: each line without trailing white space and with tabs expanded to
// 8 columns (the corpus's playthrough files lost their trailing spaces, and one its tabs, to an
// editor), without trailing empty lines.
std::string normalize(const std::string& text) {
  std::string out;
  for (const std::string& line : split_lines(text)) {
    std::string expanded;
    for (const char c : line) {
      if (c == '\t')
        expanded.append(8 - expanded.size() % 8, ' ');
      else
        expanded += c;
    }
    out += rtrim(std::move(expanded));
    out += '\n';
  }
  return rtrim(std::move(out));
}

}  // namespace

void play(GameSession& session, int64_t seed, std::istream& in, std::ostream& out) {
  const std::optional<std::string> initial = session.new_game(seed);
  session.possible_actions();
  const std::string task = session.task_description();
  out << session.take_output();  // what the game printed, where main() would show it
  out << "Task Description: " << task << "\n\n";
  out << "Initial Observation: " << initial.value_or("") << "\n\n";
  out << "Type 'help' for a list of possible actions.\n\n" << std::flush;
  while (true) {
    std::string action;
    while (action.empty() || action == "help") {
      out << "> " << std::flush;
      if (!std::getline(in, action)) {
        out << "\n" << std::flush;
        return;
      }
      if (!action.empty() && action.back() == '\r') action.pop_back();
      if (action == "help") {
        const std::string keys = session.actions_text();
        out << "Possible actions: " << keys << "\n\n";
        action.clear();
      } else if (action == "exit" || action == "quit") {
        return;
      }
    }
    const StepResult r = session.step(action);
    session.possible_actions();
    out << session.take_output();
    out << "Observation: " << r.observation << "\n\n";
    out << "Current step: " << r.num_steps_text << "\n";
    out << "Score: " << r.score_text << "\n";
    out << "Reward: " << r.reward_text << "\n";
    out << "Game Over: " << r.game_over_text << "\n";
    out << "Game Won: " << r.game_won_text << "\n\n";
    out << kRule << "\n" << std::flush;
    if (r.game_over) return;
  }
}

Playthrough parse_playthrough(const std::string& text, const std::string& name) {
  const std::vector<std::string> lines = split_lines(text);
  Playthrough p;
  size_t i = 0;
  // The header: "Task Description: ...", "Initial Observation: ..." up to the `help` hint.
  for (; i < lines.size() && !starts_with(lines[i], ">"); ++i) {
    if (!starts_with(lines[i], "Initial Observation: ")) continue;
    std::string obs = lines[i].substr(std::string("Initial Observation: ").size());
    for (++i; i < lines.size() && !starts_with(lines[i], ">") && !starts_with(lines[i], "Type 'help'"); ++i)
      obs += "\n" + lines[i];
    p.initial_observation = rtrim(obs);
    --i;
  }
  while (i < lines.size()) {
    if (!starts_with(lines[i], "> ")) {
      ++i;  // the closing ">" (the prompt of an action never typed), blank lines
      continue;
    }
    if (lines[i] == "> help" || lines[i] == "> ") {
      ++i;  // main() printed the possible actions or asked again: no step
      continue;
    }
    PlaythroughStep step;
    step.action = lines[i].substr(2);
    step.line = static_cast<int>(i) + 1;
    ++i;
    std::string obs;
    bool found = false;
    for (; i < lines.size() && !starts_with(lines[i], "> ") && lines[i] != ">"; ++i) {
      const std::string& line = lines[i];
      if (!found) {
        for (const char* prefix : {"Observation: ", "Observaton: ", "Observation:", "Observaton:"}) {
          if (starts_with(line, prefix)) {
            obs = line.substr(std::string(prefix).size());
            found = true;
            break;
          }
        }
        continue;
      }
      if (starts_with(line, "Current step: ")) {
        for (++i; i < lines.size() && !starts_with(lines[i], "> ") && lines[i] != ">"; ++i) {
          if (starts_with(lines[i], "Game Won: ")) step.game_won = lines[i].substr(10) == "True";
        }
        break;
      }
      obs += "\n" + line;
    }
    if (!found)
      throw InputError(fmt::format("{}: line {}: the action `{}` is followed by no \"Observation: \" line",
                                   name, step.line, step.action));
    step.observation = rtrim(obs);
    p.steps.push_back(std::move(step));
  }
  return p;
}

ReplayResult replay(GameSession& session, int64_t seed, const Playthrough& playthrough) {
  ReplayResult r;
  const std::optional<std::string> initial = session.new_game(seed);
  session.possible_actions();
  if (playthrough.initial_observation &&
      normalize(initial.value_or("")) != normalize(*playthrough.initial_observation)) {
    r.diverged_at = 0;
    r.expected = *playthrough.initial_observation;
    r.actual = rtrim(initial.value_or(""));
    return r;
  }
  for (const PlaythroughStep& step : playthrough.steps) {
    const StepResult s = session.step(step.action);
    session.possible_actions();
    session.take_output();  // a replay compares observations only
    ++r.steps;
    r.game_over = s.game_over;
    r.game_won = s.game_won;
    r.expected_won = step.game_won;
    if (normalize(s.observation) != normalize(step.observation)) {
      r.diverged_at = r.steps;
      r.action = step.action;
      r.expected = step.observation;
      r.actual = rtrim(s.observation);
      return r;
    }
  }
  r.matched = true;
  return r;
}

}  // namespace pcglab::textgame
