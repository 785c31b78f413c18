// Small text games and scripted parts for the generation and reflection tests: games of our own (the
// corpus games are another repository's code), a reply that fences a game, a validity check that
// judges a game by a marker in its code (the real crawl is textgame/validity.h's, tested on its own),
// and a tiny corpus laid out as a BYTESIZED32 checkout's data/.
#pragma once

#include <atomic>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/files.h"
#include "textgame/generation.h"

namespace pcglab::textgame::testing {

// A whole TextGame that can be won in two steps ("take key", "open door"); `marker` lands in a
// comment so versions differ, and `bug` puts a call to an undefined name in step().
inline std::string tiny_game(const std::string& marker, bool bug = false) {
  std::string code = "# " + marker + "\n" + R"(import random


class TextGame:
    def __init__(self, randomSeed):
        self.random = random.Random(randomSeed)
        self.score = 0
        self.numSteps = 0
        self.gameOver = False
        self.gameWon = False
        self.hasKey = False
        self.doorOpen = False
        self.possibleActions = {}
        self.calculateScore()

    def getTaskDescription(self):
        return "Your task is to open the locked door."

    def generatePossibleActions(self):
        self.possibleActions = {"look": ["look"], "take key": ["take", "key"], "open door": ["open", "door"]}
        return self.possibleActions

    def step(self, actionStr):
        if actionStr not in self.possibleActions:
            return "I don't understand that.", self.score, 0, self.gameOver, self.gameWon
        self.numSteps += 1
        verb = self.possibleActions[actionStr][0]
)";
  code += bug ? "        undefined_helper(verb)\n" : "";
  code += R"(        if verb == "take":
            self.hasKey = True
            observation = "You take the key."
        elif verb == "open" and self.hasKey:
            self.doorOpen = True
            observation = "The door opens."
        else:
            observation = "Nothing happens."
        before = self.score
        self.calculateScore()
        return observation, self.score, self.score - before, self.gameOver, self.gameWon

    def calculateScore(self):
        self.score = int(self.hasKey) + int(self.doorOpen)
        if self.doorOpen:
            self.gameOver = True
            self.gameWon = True
)";
  return code;
}

// An LLM reply with `code` in a ```python block, text around it, and a short block before it.
inline std::string fenced_reply(const std::string& code) {
  return "Here is the game.\n```\nls\n```\nThe program:\n```python\n" + code + "```\nEnjoy!";
}

// A validity check that fails a game whose code calls undefined_helper (the error names the
// version's file, as the real crawl's traceback does) and counts its calls.
struct ScriptedValidity {
  std::atomic<int> calls{0};
  ValidityCheck check() {
    return [this](const std::string& filename, const std::string& source) {
      ++calls;
      ValidityResult v;
      v.game = filename;
      v.checks = {{"TextGame", true},
                  {"getTaskDescription", true},
                  {"generatePossibleActions", true},
                  {"calculateScore", true},
                  {"step", true}};
      v.initial_actions = 3;
      v.runnable = source.find("undefined_helper(") == std::string::npos;
      v.winnable = v.runnable;
      if (!v.runnable) {
        v.checks["step"] = false;
        v.error = "File \"" + filename + "\", line 27, in step\nname 'undefined_helper' is not defined";
      }
      return v;
    };
  }
};

// A spec in the format of data/test_prompts/test_N.py.
inline std::string tiny_spec(int n) {
  return "# Task: Open a locked door number " + std::to_string(n) +
         ".\n# Environment: a hallway\n# Task-critical Objects: Door, Key\n# High-level object classes: "
         "Container (Door)\n# Critical properties: isOpen (Door)\n# Actions: look, take, open\n# Distractor "
         "Items: Umbrella\n# Distractor Actions: none\n# High-level solution procedure: take key, open "
         "door\n";
}

// DIR/data/ with experiment_{action,distractor,object}.csv of `rows` rows each, test_prompts/ and
// programs/ (tiny games named as the CSVs say).
inline void write_tiny_corpus(const std::filesystem::path& dir, int rows) {
  const std::filesystem::path data = dir / "data";
  std::filesystem::create_directories(data / "test_prompts");
  std::filesystem::create_directories(data / "programs");
  for (const std::string e : {"action", "distractor", "object"}) {
    std::string csv;
    for (int r = 1; r <= rows; ++r) {
      const std::string p = e + "-similar-" + std::to_string(r) + ".py",
                        n = e + "-dissimilar-" + std::to_string(r) + ".py";
      csv += p + "," + n + "\n";
      write_file_atomic(data / "programs" / p, tiny_game("reference " + p));
      write_file_atomic(data / "programs" / n, tiny_game("reference " + n));
    }
    write_file_atomic(data / ("experiment_" + e + ".csv"), csv);
  }
  for (int r = 1; r <= rows; ++r)
    write_file_atomic(data / "test_prompts" / ("test_" + std::to_string(r) + ".py"), tiny_spec(r));
}

}  // namespace pcglab::textgame::testing
