// The IGE poker round in C++ (docs/poker.md, "The engine"): GameBase's default phases, its flow
// dispatch, the auto-mode bet phase, the showdown and the prize split, drawing from CPython's
// `random` stream (core/cpython_random.h) in the official call order, so a game written here gives the
// same final state as the same game in Python. Generated games run through the Python face
// (src/poker/python/GameBase.py); this class is the native reference the tests and the benchmarks
// use, and a game whose methods are C++ overrides it (tests: the spec's game 1).
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/cpython_random.h"
#include "core/json.h"
#include "poker/hand.h"

namespace pcglab::poker {

struct PokerConfig {
  int n_players = 4;
  int64_t min_bet = 2;
  int64_t max_bet = 1000;
  std::vector<std::string> suit = {"H", "D", "C", "S"};
  bool suit_have_rank = false;
  std::vector<std::string> value = {"2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14"};
  std::vector<std::string> categories = {"High Card",       "Pair",           "Two Pair",
                                         "Three of a Kind", "Straight",       "Flush",
                                         "Full House",      "Four of a Kind", "Straight Flush"};
  std::vector<std::string> flow = {"start", "shuffle", "blind", "deal2", "bet",  "flop3", "bet",
                                   "flop1", "bet",     "flop1", "bet",   "show", "prize"};
};

struct PlayerState {
  int64_t bet = 0;
  int64_t remain = 0;
  std::vector<std::string> hole;
  bool fold = false;
};

// The final `state` dictionary.
struct FinalState {
  std::vector<std::string> flow, deck, community, players;
  Json to_json() const;  // {"flow", "deck", "community", "players"}, in that order
};

// What the Python engine raises where this one throws (the exception's type name and text).
class GameException : public std::runtime_error {
 public:
  GameException(std::string type, const std::string& message)
      : std::runtime_error(message), type_(std::move(type)) {}
  const std::string& type() const { return type_; }

 private:
  std::string type_;
};

class Game {
 public:
  Game(PokerConfig config, int64_t seed);
  virtual ~Game() = default;

  FinalState play();  // play(auto=True)

  // Python's str() of the players, "p1: 0/9962/['Q8', 'I14']/False".
  std::vector<std::string> player_texts() const;

 protected:
  // GameBase's phases; `start` builds the deck value-major (for each value, each suit) and resets
  // holes and folds (GameBase itself has none: the template's start).
  virtual void start();
  virtual void shuffle();
  virtual void blind();
  virtual void dealx(int x);
  virtual void flopx(int x);
  virtual bool bet_done(const std::vector<size_t>& wait) const;
  virtual void show();
  virtual void prize();

  std::string pop_deck();  // deck.pop(); IndexError when empty
  std::vector<size_t> unfolded() const;

  PokerConfig config_;
  CPythonRandom rng_;
  std::vector<PlayerState> players_;  // p1..pN
  std::vector<std::string> deck_, community_;
  std::vector<size_t> winners_;
  bool have_winners_ = false;

 private:
  void step(size_t j);
  void bet_phase();
  HandRanker ranker_;
};

}  // namespace pcglab::poker
