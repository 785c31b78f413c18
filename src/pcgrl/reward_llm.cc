#include "pcgrl/reward_llm.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "core/check.h"
#include "core/files.h"
#include "pcgrl/prompt_files.h"
#include "pcgrl/reward_code.h"
#include "report/html.h"

namespace pcglab::pcgrl {
namespace {

// The placeholders each formatted file of the layout may use (Python str.format ignores unused
// values; an unknown field is an error). Files not listed are used as they are: the official code
// appends the tips and the example unformatted, and fills reward_function_inputs.txt with
// str.replace, so braces in them are literal.
const std::map<std::string, std::vector<std::string>, std::less<>>& formatted_files() {
  static const std::map<std::string, std::vector<std::string>, std::less<>> files{
      {"system.txt", {"i", "reward_signature"}},
      {"initial_user.txt",
       {"task", "few_shot_code_string", "reward_function_inputs", "thought_tips", "target_character"}},
      {"task.txt", {"target_character"}},
      {"feature/array.txt", {"tile_enum", "array_shape", "stats_keys"}},
      {"feature/stats.txt", {"stats_keys"}},
      {"pe/io.txt", {"curr_iteration_num", "max_iteration_num", "perc_iteration"}},
      {"pe/cot.txt", {"curr_iteration_num", "max_iteration_num", "perc_iteration"}},
      {"pe/got.txt", {"cot_prompt", "eval_result", "auxiliary_prompt"}},
      {"alignment_user.txt", {"reward_function", "rollout_result", "error_prompt"}},
      {"feedback_user.txt", {"evaluation_criteria", "reward_function_prompt", "content"}},
      {"evaluation/llm_evaluation.txt", {"evaluation_criteria", "content"}},
  };
  return files;
}

// Every formatted file renders with its placeholders set (catches an unknown field or a stray
// brace when the set is loaded, not in the middle of a run).
void check_renders(const std::map<std::string, std::string, std::less<>>& files, const std::string& origin) {
  for (const auto& [name, fields] : formatted_files()) {
    std::map<std::string, std::string> values;
    for (const auto& f : fields) values[f] = "";
    try {
      python_format(files.at(name), values, name);
    } catch (const InputError& e) {
      throw SetupError(fmt::format("prompt templates {}: {} (allowed placeholders in {}: {{{}}})", origin,
                                   e.what(), name, fmt::join(fields, "}, {")));
    }
  }
}

std::string replace_all(std::string text, std::string_view from, std::string_view to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

int line_of(std::string_view text, size_t pos) {
  return 1 +
         static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(pos), '\n'));
}

[[noreturn]] void format_error(std::string_view text, std::string_view name, size_t pos,
                               const std::string& why) {
  throw InputError(fmt::format("prompt template {}: line {}: {}", name, line_of(text, pos), why));
}

std::string fenced(const std::string& code) {
  return "```python\n" + code + "\n```";
}

// "\n\n## Thought tips\n<tips>\n": the official wraps the pe file's text so.
std::string thought_tips_section(const std::string& tips) {
  return "\n\n## Thought tips\n" + tips + "\n";
}

std::string iteration_tips(const PromptSet& prompts, const std::string& file, int current, int total) {
  return python_format(prompts.file(file),
                       {{"curr_iteration_num", std::to_string(current)},
                        {"max_iteration_num", std::to_string(total)},
                        {"perc_iteration", fmt::format("{:.1f}%", 100.0 * current / total)}},
                       file);
}

std::string auxiliary_text(const std::vector<const refine::ThoughtNode*>& nodes) {
  if (nodes.empty()) return "(no other reward functions yet)\n";
  std::string out;
  for (const auto* node : nodes) {
    out += fmt::format("### Reward function of iteration {}: accuracy {:.3f}", node->id, node->fitness);
    if (node->metadata.contains("scores")) out += " (" + got_score_line(node->metadata) + ")";
    out += "\n" + fenced(cap_fed_back_text(node->artifact)) + "\n\n";
  }
  return out;
}

std::string thought_tips(const PromptSet& prompts, const refine::GenerateRequest& r,
                         const GenerationSettings& s) {
  using refine::ThoughtStrategy;
  const int n = std::max(r.iterations, 1);
  if (r.strategy == ThoughtStrategy::kIo || r.iteration <= 1)
    return thought_tips_section(iteration_tips(prompts, "pe/io.txt", r.iteration, n));
  if (r.strategy == ThoughtStrategy::kTot) {
    const int b = std::max(s.breadth, 1);
    return thought_tips_section(
        iteration_tips(prompts, "pe/cot.txt", (r.iteration - 1) / b + 1, (n - 1) / b + 1));
  }
  const std::string cot = iteration_tips(prompts, "pe/cot.txt", r.iteration, n);
  if (r.strategy == ThoughtStrategy::kCot) return thought_tips_section(cot);
  const std::string eval = r.parent ? got_score_line(r.parent->metadata) : "(no previous reward function)";
  return thought_tips_section(python_format(
      prompts.file("pe/got.txt"),
      {{"cot_prompt", cot}, {"eval_result", eval}, {"auxiliary_prompt", auxiliary_text(r.auxiliary)}},
      "pe/got.txt"));
}

std::string few_shot(const PromptSet& prompts, const refine::ThoughtNode* parent) {
  if (!parent)
    return "## Example reward function\nThis one gives no reward at all; write yours in its place.\n" +
           fenced(python_strip(prompts.file("compute_reward_example.py"))) + "\n";
  std::string out = "## The previous reward function\n" + fenced(cap_fed_back_text(parent->artifact)) + "\n";
  if (python_strip(parent->feedback).empty())
    out += "\nImprove this reward function for the task.\n";
  else
    out += "\n## Feedback on the levels an agent trained with it made\n" +
           cap_fed_back_text(parent->feedback) +
           "\n\nUpdate the reward function according to this feedback.\n";
  return out;
}

std::string reward_function_inputs(const PromptSet& prompts) {
  // As the official get_input_prompt: str.replace, the array feature only, the stats arguments
  // renamed so the LLM does not use them.
  std::string text = prompts.file("reward_function_inputs.txt");
  const std::string array = python_format(
      prompts.file("feature/array.txt"),
      {{"tile_enum", tile_enum_text()}, {"array_shape", fmt::format("({}, {})", kMapSize, kMapSize)}},
      "feature/array.txt");
  text = replace_all(text, "{array_feature_prompt}", array);
  text = replace_all(text, "{stats_feature_prompt}",
                     "(no level statistics are given: ignore unused3 and unused4)");
  text = replace_all(text, "prev_stats", "unused3");
  return replace_all(text, "curr_stats", "unused4");
}

std::string system_message(const PromptSet& prompts) {
  // As the official: system.txt formatted ({i} kept, {reward_signature} the example), then the
  // JAX tips, a newline and the reward tips, as they are.
  return python_format(prompts.file("system.txt"),
                       {{"i", "{i}"}, {"reward_signature", prompts.file("compute_reward_example.py")}},
                       "system.txt") +
         prompts.file("jax_code_tips.txt") + "\n" + prompts.file("reward_code_tips.txt");
}

std::string first_line(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

// The extraction/validation/fix loop shared by generation and alignment: `trials` generation trials,
// each the opening messages from first(trial, last error) and up to `fixes` fix rounds.
GenerationResult code_loop(llm::Completer& completer, const LlmSettings& llm,
                           const GenerationSettings& settings,
                           const std::function<std::vector<llm::ChatMessage>(const std::string&)>& opening,
                           const std::function<void(const std::string&)>& validate, const StepCalls& calls,
                           const char* what) {
  PCGLAB_CHECK(settings.codegen_trials >= 1 && settings.codefix_trials >= 0)
      << "codegen_trials " << settings.codegen_trials << ", codefix_trials " << settings.codefix_trials;
  GenerationResult result;
  int call = 0;
  std::string last_error;
  for (int trial = 1; trial <= settings.codegen_trials; ++trial) {
    result.trials = trial;
    llm::ChatRequest request;
    request.model = llm.model;
    request.temperature = llm.temperature;
    request.top_p = llm.top_p;
    request.max_tokens = llm.max_tokens;
    request.seed = trial;
    request.messages = opening(last_error);
    for (int fix = 0; fix <= settings.codefix_trials; ++fix) {
      llm::CallContext context;
      context.item = calls.item;
      context.trial = trial;
      context.call = call++;
      context.on_attempt = calls.on_attempt;
      auto reply = completer.complete(request, context);
      if (!reply.ok())
        throw ItemFailure(ErrorKind::kLlm, fmt::format("{}: LLM call failed (trial {}, attempt {}): {}", what,
                                                       trial, fix + 1, reply.error().describe()));
      const std::string& content = reply.value().content;
      const RewardCode code = extract_reward_code(content);
      try {
        validate(code.code);
        result.code = code.code;
        if (calls.log)
          calls.log(fmt::format("{}: valid reward ({}) at trial {}, attempt {}", what, code.source, trial,
                                fix + 1));
        return result;
      } catch (const RewardError& e) {
        last_error = cap_fed_back_text(e.describe());
        result.errors.push_back(last_error);
        if (calls.log)
          calls.log(fmt::format("{}: trial {}, attempt {} rejected: {}", what, trial, fix + 1,
                                first_line(last_error)));
      }
      if (fix == settings.codefix_trials) break;
      ++result.fixes;
      request.messages.push_back({"assistant", cap_fed_back_text(content)});
      request.messages.push_back({"user", fix_message(last_error)});
    }
  }
  throw ItemFailure(ErrorKind::kBadInput,
                    fmt::format("{}: no valid reward function after {} generation trials of {} attempts; "
                                "last error: {}",
                                what, settings.codegen_trials, settings.codefix_trials + 1, last_error));
}

// numpy's right-aligned columns: every element as wide as the widest.
std::string map_rows(const Map& map, int width) {
  std::string out = "[";
  for (int r = 0; r < kMapSize; ++r) {
    if (r > 0) out += "\n ";
    out += '[';
    for (int c = 0; c < kMapSize; ++c) {
      if (c > 0) out += ' ';
      out += fmt::format(
          "{:>{}}", static_cast<int>(map[static_cast<size_t>(r) * kMapSize + static_cast<size_t>(c)]), width);
    }
    out += ']';
  }
  return out + "]";
}

}  // namespace

std::string python_format(std::string_view text, const std::map<std::string, std::string>& values,
                          std::string_view template_name) {
  auto fail = [&](size_t pos, const std::string& why) { format_error(text, template_name, pos, why); };
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (c == '}') {
      if (i + 1 < text.size() && text[i + 1] == '}') {
        out += '}';
        i += 2;
        continue;
      }
      fail(i, "single '}' (write '}}' for a literal brace)");
    }
    if (c != '{') {
      out += c;
      ++i;
      continue;
    }
    if (i + 1 < text.size() && text[i + 1] == '{') {
      out += '{';
      i += 2;
      continue;
    }
    const size_t end = text.find_first_of("{}", i + 1);
    if (end == std::string_view::npos) fail(i, "single '{' (write '{{' for a literal brace)");
    if (text[end] == '{') fail(end, "unexpected '{' in a field name (write '{{' for a literal brace)");
    const std::string field(text.substr(i + 1, end - i - 1));
    if (field.empty() || std::all_of(field.begin(), field.end(), [](char d) { return d >= '0' && d <= '9'; }))
      fail(i, fmt::format("positional field '{{{}}}': only named fields are supported", field));
    if (field.find_first_of("!:.[") != std::string::npos)
      fail(i,
           fmt::format("field '{{{}}}': conversions, format specs, attributes and indices are not supported",
                       field));
    const auto value = values.find(field);
    if (value == values.end()) {
      std::vector<std::string> names;
      names.reserve(values.size());
      for (const auto& [name, v] : values) names.push_back(name);
      fail(i, fmt::format("no value for field '{{{}}}' (values given: {})", field,
                          names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ", "))));
    }
    out += value->second;
    i = end + 1;
  }
  return out;
}

std::string cap_fed_back_text(std::string_view text, size_t limit) {
  if (text.size() <= limit) return std::string(text);
  auto cut_line = [&](size_t cut) {
    return fmt::format(
        "\n[... pcglab cut {} of these {} bytes here: text fed back to the LLM is kept to {} bytes, its "
        "head and tail ...]\n",
        cut, text.size(), limit);
  };
  auto continuation = [&](size_t i) { return (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80; };
  // The line is longest when the cut count has as many digits as the text's size.
  const size_t room = limit - std::min(limit, cut_line(text.size()).size());
  size_t head = room / 2;  // bytes kept from the start: text[head] is the first byte cut
  while (head > 0 && continuation(head)) --head;
  size_t tail = text.size() - (room - room / 2);  // the first byte kept at the end
  while (tail < text.size() && continuation(tail)) ++tail;
  return std::string(text.substr(0, head)) + cut_line(tail - head) + std::string(text.substr(tail));
}

const Scenario& scenario_preset(int id) {
  static const std::array<Scenario, 3> presets{{
      {1,
       "The player has to pick up the key and then leave through the door. On the way to the key, the "
       "player must come across a BAT.",
       {true, false, false}},
      {2,
       "The player has to pick up the key and then leave through the door. On the way to the key, the "
       "player must come across an enemy, a BAT or a SCORPION; playing the level several times (taking "
       "other keys or paths), the player should be able to meet both kinds.",
       {true, true, false}},
      {3,
       "The player has to pick up the key and then leave through the door. On the way to the key, the "
       "player must come across an enemy, a BAT, a SCORPION or a SPIDER; playing the level several times "
       "(taking other keys or paths), the player should be able to meet all three kinds.",
       {true, true, true}},
  }};
  if (id < 1 || id > 3)
    throw SetupError(
        fmt::format("unknown scenario {}: the presets are 1 (bat), 2 (bat, scorpion) and 3 (bat, "
                    "scorpion, spider)",
                    id));
  return presets[static_cast<size_t>(id - 1)];
}

std::string scenario_criteria(const Scenario& scenario) {
  static constexpr const char* kNames[] = {"BAT", "SCORPION", "SPIDER"};
  std::vector<std::string> wanted, unwanted;
  for (size_t i = 0; i < 3; ++i) (scenario.important[i] ? wanted : unwanted).push_back(kNames[i]);
  std::string out = fmt::format(
      "Scenario {}: {}\n"
      "A level is judged by its solutions: walking paths (around walls) from the PLAYER to a KEY and from "
      "that KEY to the DOOR. An enemy is met when it is within 2 cells (a 5 x 5 window) of a cell of such a "
      "path. Enemies that must be met: {}.",
      scenario.id, scenario.text, fmt::join(wanted, ", "));
  if (!unwanted.empty()) out += fmt::format(" Enemies that must not be met: {}.", fmt::join(unwanted, ", "));
  out += " A level without any solution fails.";
  return out;
}

std::string tile_enum_text() {
  return "EMPTY = 1, WALL = 2, PLAYER = 3, BAT = 4, SCORPION = 5, SPIDER = 6, KEY = 7, DOOR = 8";
}

const std::vector<std::string>& prompt_file_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& p : kEmbeddedPrompts) out.emplace_back(p.name);
    return out;
  }();
  return names;
}

PromptSet PromptSet::builtin() {
  PromptSet set;
  for (const auto& p : kEmbeddedPrompts) set.files_.emplace(p.name, p.text);
  set.origin_ = "built-in";
  check_renders(set.files_, set.origin_);
  return set;
}

PromptSet PromptSet::load(const std::filesystem::path& dir) {
  if (!std::filesystem::is_directory(dir))
    throw SetupError(
        fmt::format("prompt folder {}: not a folder (--prompts needs a folder laid out as the "
                    "official pcgrllm/prompt/scenario)",
                    dir.string()));
  PromptSet set;
  set.origin_ = dir.string();
  for (const auto& name : prompt_file_names()) {
    const auto path = dir / name;
    if (!std::filesystem::is_regular_file(path))
      throw SetupError(fmt::format("prompt folder {}: missing {} (every file of the layout is needed: {})",
                                   dir.string(), name, fmt::join(prompt_file_names(), ", ")));
    set.files_.emplace(name, as_setup_input([&] { return read_file(path); }));
  }
  check_renders(set.files_, set.origin_);
  return set;
}

const std::string& PromptSet::file(std::string_view name) const {
  const auto it = files_.find(name);
  PCGLAB_CHECK(it != files_.end()) << "no prompt file '" << name << "' in the layout";
  return it->second;
}

std::string numpy_map_string(const Map& map) {
  int width = 1;
  for (uint8_t v : map) width = std::max(width, static_cast<int>(std::to_string(static_cast<int>(v)).size()));
  return map_rows(map, width);
}

std::string got_score_line(const OrderedJson& evaluation_metadata) {
  auto score = [&](const char* key) -> std::string {
    if (!evaluation_metadata.contains("scores")) return "n/a";
    const auto& scores = evaluation_metadata["scores"];
    if (!scores.is_object() || !scores.contains(key) || !scores[key].is_number()) return "n/a";
    return fmt::format("{:.3f}", scores[key].get<double>());
  };
  return fmt::format("Solvability: {}, Number of Solutions: {}, Reachable Important Tiles: {}",
                     score("solvability"), score("n_solutions"), score("reach_important"));
}

std::vector<llm::ChatMessage> generation_messages(const PromptSet& prompts, const Scenario& scenario,
                                                  const refine::GenerateRequest& request,
                                                  const GenerationSettings& settings) {
  const std::string task =
      python_format(prompts.file("task.txt"), {{"target_character", scenario.text}}, "task.txt");
  const std::string user = python_format(prompts.file("initial_user.txt"),
                                         {{"task", task},
                                          {"few_shot_code_string", few_shot(prompts, request.parent)},
                                          {"reward_function_inputs", reward_function_inputs(prompts)},
                                          {"thought_tips", thought_tips(prompts, request, settings)},
                                          {"target_character", scenario.text}},
                                         "initial_user.txt");
  return {{"system", system_message(prompts)}, {"user", user}};
}

std::string fix_message(const std::string& error) {
  return "Running the reward function above failed:\n\n" + cap_fed_back_text(error) +
         "\n\nFix the cause, keeping to the JAX rules, and write the complete corrected function in one "
         "```python code block.";
}

std::string alignment_message(const PromptSet& prompts, const std::string& code,
                              const std::string& stats_line, const std::string& error_prompt) {
  return python_format(prompts.file("alignment_user.txt"),
                       {{"reward_function", cap_fed_back_text(code)},
                        {"rollout_result", stats_line},
                        {"error_prompt", error_prompt}},
                       "alignment_user.txt");
}

std::vector<llm::ChatMessage> feedback_messages(const PromptSet& prompts, const Scenario& scenario,
                                                const std::string& code, const std::vector<Map>& levels,
                                                const std::vector<std::string>& images) {
  PCGLAB_CHECK(images.empty() || images.size() == levels.size())
      << images.size() << " images for " << levels.size() << " levels";
  std::string content = "Available tiles: " + tile_enum_text() + "\n\n";
  std::vector<std::string> urls;
  if (images.empty()) {
    for (size_t k = 0; k < levels.size(); ++k)
      content += fmt::format("Level Id {}:\n{}\n\n", k, numpy_map_string(levels[k]));
  } else {
    content +=
        fmt::format("The {} levels are the attached images, in order (Level Id 0 first).\n", images.size());
    for (const auto& png : images) urls.push_back("data:image/png;base64," + report::base64(png));
  }
  const std::string user = python_format(prompts.file("feedback_user.txt"),
                                         {{"evaluation_criteria", scenario_criteria(scenario)},
                                          {"reward_function_prompt", fenced(cap_fed_back_text(code))},
                                          {"content", content}},
                                         "feedback_user.txt");
  return {{"system", prompts.file("feedback_system.txt")}, {"user", user, std::move(urls)}};
}

GenerationResult generate_reward(llm::Completer& completer, const LlmSettings& llm, const PromptSet& prompts,
                                 const Scenario& scenario, const refine::GenerateRequest& request,
                                 const GenerationSettings& settings,
                                 const std::function<void(const std::string&)>& validate,
                                 const StepCalls& calls) {
  std::vector<llm::ChatMessage> opening = generation_messages(prompts, scenario, request, settings);
  // Each generation trial starts again from the same two messages (the official resets the error
  // with each trial); the seed (the trial number) makes the new sample differ.
  return code_loop(
      completer, llm, settings, [&](const std::string&) { return opening; }, validate, calls,
      "reward generation");
}

GenerationResult align_reward(llm::Completer& completer, const LlmSettings& llm, const PromptSet& prompts,
                              const Scenario& scenario, const std::string& code,
                              const std::string& stats_line, const GenerationSettings& settings,
                              const std::function<void(const std::string&)>& validate,
                              const StepCalls& calls) {
  (void)scenario;  // the official alignment message carries no scenario
  return code_loop(
      completer, llm, settings,
      [&](const std::string& last_error) {
        // {error_prompt}: empty, or in a later generation trial the error the previous trial ended on.
        const std::string error_prompt =
            last_error.empty()
                ? std::string()
                : "\nThe previous attempt to adjust this function failed with this error; avoid it:\n" +
                      cap_fed_back_text(last_error) + "\n";
        return std::vector<llm::ChatMessage>{
            {"user", alignment_message(prompts, code, stats_line, error_prompt)}};
      },
      validate, calls, "self-alignment");
}

std::string level_feedback(llm::Completer& completer, const LlmSettings& llm, const PromptSet& prompts,
                           const Scenario& scenario, const std::string& code, const std::vector<Map>& levels,
                           const std::vector<std::string>& images, const StepCalls& calls) {
  llm::ChatRequest request;
  request.model = llm.model;
  request.temperature = llm.temperature;
  request.top_p = llm.top_p;
  request.max_tokens = llm.max_tokens;
  request.seed = 42;
  request.messages = feedback_messages(prompts, scenario, code, levels, images);
  llm::CallContext context;
  context.item = calls.item;
  context.trial = 0;
  context.call = 0;
  context.on_attempt = calls.on_attempt;
  auto reply = completer.complete(request, context);
  if (!reply.ok())
    throw ItemFailure(ErrorKind::kLlm, "feedback: LLM call failed: " + reply.error().describe());
  if (python_strip(reply.value().content).empty())
    throw ItemFailure(ErrorKind::kLlm, "feedback: the LLM's reply is empty");
  if (calls.log) calls.log(fmt::format("feedback: {} characters", reply.value().content.size()));
  return reply.value().content;
}

}  // namespace pcglab::pcgrl
