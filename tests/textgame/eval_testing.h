// A hand-built experiment folder for `textgame eval` and `textgame report` whose shares are known
// (the files as `textgame experiment`, `textgame judge` and `textgame validity` write them; the
// integration test makes a real one):
//   g1 (action, test 1, similar):   v0 runnable and winnable (stop valid); judged before (compliance
//                                    object 1, action 0.5; won) and after (not won)
//   g2 (action, test 1, dissimilar): v0 fails in step, v1 runnable (valid); judged before (not won),
//                                    after (won, alignment 0.8); v1 holds hostile text
//   g3 (object, test 2, similar):   v0 and v1 fail, v2 unchanged (stopped, not checked); not judged
//   g4 (object, test 2, dissimilar): the generation failed (logs/generate.json: no-output)
// Validity by step (official): runnable 1/3, 2/3, 2/3; step 1/3, 2/3, 2/3; TextGame 2/3, 1, 1;
// winnable 1/3, 1/3, 1/3.
// Judged: winnability before 0.5 (2 games), after 0.5 (2); compliance_object before 1 (1), after
// none; alignment after 0.8 (1).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/files.h"
#include "core/json.h"

namespace pcglab::textgame::testing {

inline const std::string kHostileCode =
    "# </script><img src=x onerror=alert(1)> <b>bold</b>\nclass TextGame:\n    pass\n";

inline std::string eval_game_name(int n) {
  const char* names[] = {"experiment_action_test_1_p_m_ref-a", "experiment_action_test_1_n_m_ref-b",
                         "experiment_object_test_2_p_m_ref-c", "experiment_object_test_2_n_m_ref-d"};
  return names[n - 1];
}

inline OrderedJson eval_verdict(const std::string& file, bool runnable, bool winnable,
                                const std::string& failed = "") {
  OrderedJson checks = OrderedJson::object();
  bool ok = true;
  for (const char* c :
       {"TextGame", "getTaskDescription", "calculateScore", "generatePossibleActions", "step"}) {
    if (failed == c) ok = false;
    checks[c] = ok;
  }
  return {{"game", file},         {"checks", checks},
          {"runnable", runnable}, {"winnable", winnable},
          {"initial_actions", 3}, {"error", runnable ? "" : "File \"" + file + "\", line 3, in step\nboom"},
          {"sequences", 10},      {"seconds", 0.5}};
}

inline OrderedJson eval_version(const std::string& name, int k, const OrderedJson& validity,
                                const std::string& error = "") {
  const std::string file = name + "_generation_v" + std::to_string(k) + ".py";
  return {{"version", k},
          {"file", file},
          {"error", error},
          {"validity", validity},
          {"reflection_prompt", k ? "fix " + file : ""},
          {"reflection_response", k ? "```python\n...```" : ""}};
}

inline void write_judgement(const std::filesystem::path& judged, const std::string& stem,
                            const std::string& metric, const OrderedJson& result,
                            const OrderedJson& judgements = OrderedJson::array()) {
  std::filesystem::create_directories(judged / "judgements" / stem);
  write_file_atomic(
      judged / "judgements" / stem / (metric + ".json"),
      dump_json(
          OrderedJson{
              {"game", stem + ".py"}, {"metric", metric}, {"result", result}, {"judgements", judgements}},
          2));
}

inline void write_eval_folder(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  fs::create_directories(dir / "generated_games");
  fs::create_directories(dir / "revised_games");
  fs::create_directories(dir / "final_games");
  fs::create_directories(dir / "logs");
  for (int n = 1; n <= 4; ++n)
    write_file_atomic(dir / "generated_games" / (eval_game_name(n) + "_prompt_out.txt"), "prompt");
  const auto record = [&](int n, const std::string& stop, int final_version, const OrderedJson& versions,
                          const std::vector<std::string>& codes) {
    const std::string name = eval_game_name(n);
    write_file_atomic(dir / "generated_games" / (name + "_generation.py"), codes[0]);
    for (size_t k = 0; k < codes.size(); ++k)
      write_file_atomic(dir / "revised_games" / (name + "_generation_v" + std::to_string(k) + ".py"),
                        codes[k]);
    const std::string final_file = name + "_generation_v" + std::to_string(final_version) + "_final.py";
    write_file_atomic(dir / "final_games" / final_file, codes.back());
    write_file_atomic(dir / "revised_games" / (name + "_generation_reflection.json"),
                      dump_json(OrderedJson{{"name", name},
                                            {"stop", stop},
                                            {"valid", stop == "valid"},
                                            {"final", final_file},
                                            {"reflections", versions.size() - 1},
                                            {"versions", versions}},
                                2));
  };
  const std::string g1 = eval_game_name(1), g2 = eval_game_name(2), g3 = eval_game_name(3);
  record(1, "valid", 0,
         OrderedJson::array({eval_version(g1, 0, eval_verdict(g1 + "_generation_v0.py", true, true))}),
         {"class TextGame:\n    won = True\n"});
  record(2, "valid", 1,
         OrderedJson::array(
             {eval_version(g2, 0, eval_verdict(g2 + "_generation_v0.py", false, false, "step"), "boom"),
              eval_version(g2, 1, eval_verdict(g2 + "_generation_v1.py", true, false))}),
         {"class TextGame:\n    bug = 1\n    keep = 2\n", kHostileCode});
  record(3, "unchanged", 2,
         OrderedJson::array(
             {eval_version(g3, 0, eval_verdict(g3 + "_generation_v0.py", false, false, "TextGame"), "init"),
              eval_version(g3, 1, eval_verdict(g3 + "_generation_v1.py", false, false, "step"), "boom"),
              eval_version(g3, 2, OrderedJson(nullptr), "STOP: Code is the same as previous iteration.")}),
         {"a\n", "b\n", "b\n"});
  // The batch log: g4's generation failed.
  OrderedJson outcomes = OrderedJson::array();
  for (int n = 1; n <= 3; ++n)
    outcomes.push_back({{"key", eval_game_name(n)}, {"status", "ok"}, {"metadata", {}}});
  outcomes.push_back({{"key", eval_game_name(4)},
                      {"status", "error"},
                      {"kind", "no-output"},
                      {"message", "generation: the reply has no fenced code block"},
                      {"metadata", OrderedJson::object()}});
  write_file_atomic(
      dir / "logs/generate.json",
      dump_json(
          OrderedJson{{"stage", "generate"}, {"items", 4}, {"ok", 3}, {"failed", 1}, {"outcomes", outcomes}},
          2));
  // Judgements (`textgame judge ... --out DIR/judge`).
  const fs::path judged = dir / "judge";
  write_judgement(judged, g1 + "_generation", "compliance",
                  {{"object", 1.0}, {"action", 0.5}, {"distractor", nullptr}, {"passed", 2}, {"total", 3}},
                  OrderedJson::array({{{"category", "object"},
                                       {"requirement", "Door"},
                                       {"votes", 31},
                                       {"yes", 30},
                                       {"no", 1},
                                       {"other", 0},
                                       {"passed", true}}}));
  write_judgement(judged, g1 + "_generation", "winnability", {{"game_won", true}, {"ended", "game over"}});
  write_judgement(judged, g1 + "_generation_v0_final", "winnability",
                  {{"game_won", false}, {"ended", "done"}});
  write_judgement(judged, g2 + "_generation", "winnability", {{"game_won", false}, {"ended", "bug"}});
  write_judgement(
      judged, g2 + "_generation_v1_final", "winnability", {{"game_won", true}, {"ended", "game over"}},
      OrderedJson::array({{{"request", OrderedJson::object()},
                           {"turns", OrderedJson::array({{{"turn", 1},
                                                          {"reply", "open <door>"},
                                                          {"verdict", "action"},
                                                          {"observation", "The door opens."}}})}}}));
  write_judgement(judged, g2 + "_generation_v1_final", "alignment",
                  {{"paths", 20}, {"judged", 5}, {"yes", 4}, {"score", 0.8}});
}

}  // namespace pcglab::textgame::testing
