#include "poker/engine.h"

#include <fmt/format.h>

namespace pcglab::poker {
namespace {

std::string python_list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ", ";
    out += "'" + items[i] + "'";
  }
  return out + "]";
}

// The integer after "deal"/"flop" as the engine evaluates it (decimal digits, spaces ignored).
int phase_count(const std::string& name, const std::string& prefix) {
  const std::string rest = name.substr(name.rfind(prefix) + prefix.size());
  std::string digits;
  for (char c : rest) {
    if (c != ' ') digits += c;
  }
  if (digits.empty() || (digits.size() > 1 && digits[0] == '0'))
    throw GameException("SyntaxError", "invalid syntax");
  for (char c : digits) {
    if (c < '0' || c > '9') throw GameException("NameError", fmt::format("name '{}' is not defined", digits));
  }
  return std::stoi(digits);
}

}  // namespace

Json FinalState::to_json() const {
  Json j = Json::object();
  j["flow"] = flow;
  j["deck"] = deck;
  j["community"] = community;
  j["players"] = players;
  return j;
}

Game::Game(PokerConfig config, int64_t seed)
    : config_(std::move(config)),
      rng_(seed),
      ranker_(RankingConfig{config_.value, config_.suit, config_.suit_have_rank, config_.categories}) {
  players_.assign(static_cast<size_t>(config_.n_players), PlayerState{0, config_.max_bet, {}, false});
}

std::vector<std::string> Game::player_texts() const {
  std::vector<std::string> out;
  out.reserve(players_.size());
  for (size_t i = 0; i < players_.size(); ++i) {
    const PlayerState& p = players_[i];
    out.push_back(fmt::format("p{}: {}/{}/{}/{}", i + 1, p.bet, p.remain, python_list(p.hole),
                              p.fold ? "True" : "False"));
  }
  return out;
}

std::string Game::pop_deck() {
  if (deck_.empty()) throw GameException("IndexError", "pop from empty list");
  std::string card = std::move(deck_.back());
  deck_.pop_back();
  return card;
}

std::vector<size_t> Game::unfolded() const {
  std::vector<size_t> out;
  for (size_t i = 0; i < players_.size(); ++i) {
    if (!players_[i].fold) out.push_back(i);
  }
  return out;
}

void Game::start() {
  deck_.clear();
  for (const auto& v : config_.value) {
    for (const auto& s : config_.suit) deck_.push_back(s + v);
  }
  community_.clear();
  for (auto& p : players_) {
    p.hole.clear();
    p.fold = false;
  }
}

void Game::shuffle() {
  rng_.shuffle(deck_);
}

void Game::blind() {
  if (players_.size() < 2) throw GameException("ValueError", "Sample larger than population or is negative");
  const auto picked = rng_.sample_indices(players_.size(), 2);
  for (size_t i : picked) {
    players_[i].bet += config_.min_bet;
    players_[i].remain -= config_.min_bet;
  }
}

void Game::dealx(int x) {
  for (int r = 0; r < x; ++r) {
    for (auto& p : players_) p.hole.push_back(pop_deck());
  }
}

void Game::flopx(int x) {
  pop_deck();
  for (int r = 0; r < x; ++r) community_.push_back(pop_deck());
}

bool Game::bet_done(const std::vector<size_t>& wait) const {
  if (!wait.empty()) return false;
  const auto open = unfolded();
  for (size_t i : open) {
    if (players_[i].bet != players_[open[0]].bet) return false;
  }
  return true;
}

void Game::show() {
  std::vector<HandValue> hands;
  const auto open = unfolded();
  std::vector<RankedCard> cards;
  for (size_t i : open) {
    cards.clear();
    for (const auto& c : players_[i].hole) cards.push_back(ranker_.card(c));
    for (const auto& c : community_) cards.push_back(ranker_.card(c));
    hands.push_back(ranker_.hand_value(cards.data(), cards.size()));
  }
  winners_.clear();
  for (size_t w : ranker_.winners(hands)) winners_.push_back(open[w]);
  have_winners_ = true;
}

void Game::prize() {
  if (!have_winners_) throw GameException("AttributeError", "'CustomGame' object has no attribute 'winners'");
  if (winners_.empty()) throw GameException("ZeroDivisionError", "integer division or modulo by zero");
  int64_t pot = 0;
  for (const auto& p : players_) pot += p.bet;
  const auto n = static_cast<int64_t>(winners_.size());
  int64_t share = pot / n;
  if ((pot % n != 0) && ((pot < 0) != (n < 0))) --share;  // floor division
  for (size_t w : winners_) players_[w].remain += share;
  for (auto& p : players_) {
    p.bet = 0;
    p.fold = false;
  }
}

void Game::bet_phase() {
  std::vector<size_t> wait = unfolded();
  if (wait.size() == 1) return;
  int64_t bar = config_.min_bet;
  size_t i = 0;
  const size_t n = players_.size();
  size_t wait_front = 0;  // wait.pop(0) as an advancing front
  std::vector<size_t> rest;
  while (true) {
    PlayerState& p = players_[i];
    if (p.fold) {
      i = (i + 1) % n;
      continue;
    }
    if (rng_.random() < 0.2) {
      const int64_t target = bar + rng_.randint(1, 10) * config_.min_bet;
      p.remain -= target - p.bet;
      p.bet = target;
      bar = target;
    } else if (rng_.random() < 0.1) {
      p.fold = true;
    } else if (bar > p.bet) {
      p.remain -= bar - p.bet;
      p.bet = bar;
    }
    i = (i + 1) % n;
    while (players_[i].fold) i = (i + 1) % n;
    if (wait_front < wait.size()) ++wait_front;
    if (unfolded().size() == 1) break;
    rest.assign(wait.begin() + static_cast<std::ptrdiff_t>(wait_front), wait.end());
    if (bet_done(rest)) break;
  }
}

void Game::step(size_t j) {
  const std::string& f = config_.flow[j];
  if (f == "start") {
    start();
  } else if (f == "shuffle") {
    shuffle();
  } else if (f == "blind") {
    blind();
  } else if (f.starts_with("deal")) {
    dealx(phase_count(f, "deal"));
  } else if (f.starts_with("flop")) {
    flopx(phase_count(f, "flop"));
  } else if (f == "bet") {
    bet_phase();
  } else if (f == "show") {
    show();
  } else if (f == "prize") {
    prize();
  } else if (f == "switch") {
    for (auto& p : players_) {
      if (p.hole.empty()) throw GameException("IndexError", "range object index out of range");
      auto x = static_cast<size_t>(rng_.randbelow(p.hole.size()));
      if (x > deck_.size()) x = 0;
      if (x > 0) {
        for (size_t k : rng_.sample_indices(p.hole.size(), x)) p.hole[k] = pop_deck();
      }
    }
  }
}

FinalState Game::play() {
  if (config_.flow.empty()) throw GameException("AttributeError", "'CustomGame' object has no attribute 'j'");
  for (size_t j = 0; j < config_.flow.size(); ++j) step(j);
  return FinalState{config_.flow, deck_, community_, player_texts()};
}

}  // namespace pcglab::poker
