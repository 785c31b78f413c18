// The native poker core against CPython's `random` and the spec's golden states
// (shared/reference/ige_gamebase.md §8, §7, §12).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <random>

#include "core/cpython_random.h"
#include "core/json.h"
#include "poker/engine.h"
#include "poker/hand.h"

namespace pcglab::poker {
namespace {

TEST(CPythonRandom, MatchesPythonsRandomModule) {
  // Expected values printed by CPython 3.11.
  CPythonRandom r(1);
  EXPECT_EQ(r.random(), 0.13436424411240122);
  r.seed_int((int64_t{1} << 40) + 7);  // a two-word key
  EXPECT_EQ(r.getrandbits(32), 2635837658U);
  EXPECT_EQ(r.getrandbits(32), 3209733218U);
  EXPECT_EQ(r.getrandbits(32), 3500038837U);
  r.seed_int(-5);  // |seed|
  EXPECT_EQ(r.random(), 0.6229016948897019);
  r.seed_int(0);
  EXPECT_EQ(r.random(), 0.8444218515250481);
  r.seed_int(5);
  std::vector<int> x = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  r.shuffle(x);
  EXPECT_EQ(x, (std::vector<int>{2, 3, 1, 0, 8, 7, 6, 5, 4, 9}));
  EXPECT_EQ(r.randint(1, 10), 1);
  r.seed_int(9);
  EXPECT_EQ(r.sample_indices(6, 2), (std::vector<size_t>{3, 4}));          // pool branch
  EXPECT_EQ(r.sample_indices(30, 4), (std::vector<size_t>{11, 8, 4, 5}));  // set branch
  EXPECT_EQ(r.sample_indices(100, 10),                                     // setsize 85
            (std::vector<size_t>{86, 0, 43, 64, 59, 77, 10, 42, 70, 78}));
  EXPECT_EQ(r.randbelow(7), 5U);
}

RankingConfig standard_ranking(bool ranked_suits) {
  RankingConfig c;
  for (int v = 2; v <= 14; ++v) c.value.push_back(std::to_string(v));
  c.suit = {"A", "B", "C", "D", "E"};
  c.suit_have_rank = ranked_suits;
  c.categories = {"High Card", "Pair",       "Two Pair",       "Three of a Kind", "Straight",
                  "Flush",     "Full House", "Four of a Kind", "Straight Flush"};
  return c;
}

BestHand best_of(const HandRanker& r, const std::vector<std::string>& cards) {
  std::vector<RankedCard> ranked;
  for (const auto& c : cards) ranked.push_back(r.card(c));
  return r.best(ranked.data(), ranked.size());
}

TEST(HandRanker, ClassifiesAsTheEngine) {
  HandRanker r(standard_ranking(false));
  EXPECT_EQ(best_of(r, {"A14", "B2", "C3", "D4", "E5"}).category, Category::kHighCard);  // no wheel
  EXPECT_EQ(best_of(r, {"A10", "B11", "C12", "D13", "E14"}).category, Category::kStraight);
  EXPECT_EQ(best_of(r, {"A7", "B7", "C7", "D7", "E7"}).category, Category::kHighCard);  // five alike
  EXPECT_EQ(best_of(r, {"A7", "B7", "C7", "D9", "E9"}).category, Category::kFullHouse);
  EXPECT_EQ(best_of(r, {"A2", "A4", "A6", "A8", "A10"}).category, Category::kFlush);
  EXPECT_EQ(best_of(r, {"A2", "B2", "C6", "D6", "E10"}).category, Category::kTwoPair);
  EXPECT_TRUE(best_of(r, {"A2", "B2", "C6", "D6"}).none);  // fewer than 5 cards
}

TEST(HandRanker, TheConfiguredCategoryOrderRules) {
  RankingConfig c = standard_ranking(false);
  c.categories = {"Two Pair",       "Full House", "Three of a Kind",
                  "Four of a Kind", "Straight",   "Straight Flush",
                  "Flush",          "High Card",  "Pair"};  // the spec's game 1: Pair is top
  HandRanker r(c);
  const BestHand pair = best_of(r, {"A2", "B2", "C5", "D9", "E12"});
  const BestHand straight_flush = best_of(r, {"A3", "A4", "A5", "A6", "A7"});
  EXPECT_EQ(r.compare(pair, straight_flush), 1);
  // Of 7 cards holding a straight flush and pairs, the best 5 is a Pair.
  EXPECT_EQ(best_of(r, {"A3", "A4", "A5", "A6", "A7", "B7", "C2"}).category, Category::kPair);
}

TEST(HandRanker, EqualValuedGroupsAreDecidedByTheirFirstCard) {
  HandRanker r(standard_ranking(true));  // suits A < B < C < D < E
  const BestHand e_first = best_of(r, {"E7", "A7", "B2", "C3", "D4"});
  const BestHand b_d = best_of(r, {"B7", "D7", "A2", "B3", "C4"});
  const BestHand a_first = best_of(r, {"A7", "E7", "B2", "C3", "D4"});
  EXPECT_EQ(r.compare(e_first, b_d), 1);
  EXPECT_EQ(r.compare(a_first, b_d), -1);
  EXPECT_EQ(r.compare(e_first, e_first), 0);
}

TEST(HandRanker, WinnersTieAndTheLastWinsWithoutHands) {
  HandRanker r(standard_ranking(false));
  const BestHand a = best_of(r, {"A9", "B9", "C2", "D3", "E5"});
  const BestHand b = best_of(r, {"C9", "D9", "A2", "B3", "C5"});
  const BestHand low = best_of(r, {"A8", "B8", "C2", "D3", "E5"});
  EXPECT_EQ(r.winners({low, a, b}), (std::vector<size_t>{1, 2}));
  EXPECT_EQ(r.winners({BestHand{}, BestHand{}, BestHand{}}), (std::vector<size_t>{2}));
}

TEST(HandRanker, AMissingCategoryOrValueIsLeftToPython) {
  RankingConfig c = standard_ranking(false);
  c.categories.pop_back();
  EXPECT_THROW(HandRanker{c}, RankingUnavailable);
  HandRanker r(standard_ranking(true));
  EXPECT_THROW(r.card("A99"), RankingUnavailable);
  EXPECT_THROW(r.card("Z9"), RankingUnavailable);
}

// The spec's game 1 (§12) with its ground-truth methods written in C++.
class SpecGame1 : public Game {
 public:
  explicit SpecGame1(int64_t seed) : Game(config(), seed) {}
  static PokerConfig config() {
    PokerConfig c;
    c.n_players = 6;
    c.min_bet = 2;
    c.max_bet = 10000;
    c.suit = {"P", "J", "O", "Z", "I", "C", "Q"};
    c.value = {"6",  "11", "1",  "15", "8",  "4", "2", "7",  "14", "16",
               "18", "5",  "12", "13", "19", "3", "9", "17", "0"};
    c.categories = {"Two Pair",       "Full House", "Three of a Kind",
                    "Four of a Kind", "Straight",   "Straight Flush",
                    "Flush",          "High Card",  "Pair"};
    c.flow = {"start", "shuffle", "blind", "deal3", "bet", "flop3", "bet", "flop1", "show", "prize"};
    return c;
  }

 protected:
  void blind() override {
    const auto picked = rng_.sample_indices(players_.size(), 2);
    const int64_t amounts[2] = {config_.min_bet / 4, config_.min_bet};
    for (int k = 0; k < 2; ++k) {
      players_[picked[k]].bet += amounts[k];
      players_[picked[k]].remain -= amounts[k];
    }
  }
  void dealx(int x) override {
    Game::dealx(x);
    pop_deck();
  }
  void flopx(int x) override {
    pop_deck();
    for (int r = 0; r < x; ++r) {
      community_.push_back(pop_deck());
      pop_deck();
    }
  }
};

TEST(Game, SpecGame1GivesTheGoldenStates) {
  std::ifstream in(std::string(PCGLAB_SOURCE_DIR) + "/tests/data/poker/spec_game1_seeds1-3.json");
  const Json golden = Json::parse(in);
  ASSERT_EQ(golden.size(), 3U);
  for (int seed = 1; seed <= 3; ++seed) {
    SpecGame1 game(seed);
    EXPECT_EQ(game.play().to_json(), golden[static_cast<size_t>(seed - 1)]) << "seed " << seed;
  }
}

TEST(Game, EdgeCasesRaiseAsPython) {
  PokerConfig c;
  c.flow = {};
  EXPECT_THROW(Game(c, 1).play(), GameException);
  c.flow = {"start", "prize"};
  try {
    Game(c, 1).play();
    FAIL();
  } catch (const GameException& e) {
    EXPECT_EQ(e.type(), "AttributeError");
  }
  c.flow = {"start", "deal20"};  // 52 cards, 4 players: the deck runs out
  try {
    Game(c, 1).play();
    FAIL();
  } catch (const GameException& e) {
    EXPECT_EQ(e.type(), "IndexError");
  }
  c.flow = {"start", "shuffle", "deal 2", "flop3", "show", "prize", "dance"};
  const FinalState s = Game(c, 7).play();
  EXPECT_EQ(s.deck.size(), 52U - 8 - 4);
  EXPECT_EQ(s.flow.back(), "dance");
}

}  // namespace
}  // namespace pcglab::poker

namespace pcglab::poker {
namespace {

// The bit-mask walk against the straightforward one on random hands: random configs (1-12 suits,
// ranked or not, so card ranks tie or invert across values; duplicated values; shuffled category
// orders), 5-9 cards with duplicates.
TEST(HandRanker, TheFastWalkEqualsTheReferenceWalk) {
  std::mt19937_64 rng(26);
  const std::vector<std::string> names = {"Straight Flush", "Four of a Kind", "Full House",
                                          "Flush",          "Straight",       "Three of a Kind",
                                          "Two Pair",       "Pair",           "High Card"};
  const auto below = [&rng](size_t n) { return static_cast<size_t>(rng() % n); };
  for (int c = 0; c < 20000; ++c) {
    RankingConfig config;
    const size_t suits = 1 + below(12), values = 2 + below(12);
    for (size_t s = 0; s < suits; ++s) config.suit.push_back(std::string(1, static_cast<char>('A' + s)));
    for (size_t v = 0; v < values; ++v) config.value.push_back(std::to_string(v * 3 % 17));
    if (below(10) == 0) config.value.push_back(config.value[0]);
    config.suit_have_rank = below(2) == 0;
    config.categories = names;
    std::shuffle(config.categories.begin(), config.categories.end(), rng);
    HandRanker r(config);
    std::vector<RankedCard> cards;
    const size_t n = 5 + below(5);
    for (size_t k = 0; k < n; ++k)
      cards.push_back(r.card(config.suit[below(suits)] + config.value[below(values)]));
    const BestHand fast = r.best(cards.data(), n), ref = r.best_reference(cards.data(), n);
    ASSERT_EQ(fast.cards, ref.cards) << "case " << c;
    ASSERT_EQ(fast.category, ref.category) << "case " << c;
    ASSERT_EQ(fast.key, ref.key) << "case " << c;
  }
}

}  // namespace
}  // namespace pcglab::poker

namespace pcglab::poker {
namespace {

// hand_value (the direct method) against the reference walk: 120,000 random hands over random
// configs (3-8 suits, ranked or not; 2-30 values (5-7 in a third of them, for straight flushes), some listed
// twice, so value ranks have gaps and decks hold the same card twice; shuffled category orders), 5-10 cards,
// seven most often. The category and key must be the walk's, and so must the showdown: winners and every
// pairwise comparison of 2-6 hands sharing a community.
TEST(HandRanker, TheDirectMethodEqualsTheReferenceWalk) {
  std::mt19937_64 rng(2611);
  const std::vector<std::string> names = {"Straight Flush", "Four of a Kind", "Full House",
                                          "Flush",          "Straight",       "Three of a Kind",
                                          "Two Pair",       "Pair",           "High Card"};
  const auto below = [&rng](size_t n) { return static_cast<size_t>(rng() % n); };
  int hands = 0;
  std::array<int, 3> paths{};
  std::array<int, kCategories> categories{};
  for (int c = 0; hands < 120000; ++c) {
    RankingConfig config;
    const size_t suits = 3 + below(6), values = c % 3 == 0 ? 5 + below(3) : 2 + below(29);
    for (size_t s = 0; s < suits; ++s) config.suit.push_back(std::string(1, static_cast<char>('A' + s)));
    for (size_t v = 0; v < values; ++v) config.value.push_back(std::to_string(v * 7 % 31));
    if (below(8) == 0) config.value.push_back(config.value[below(values)]);
    if (below(8) == 0) config.value.insert(config.value.begin(), config.value[below(values)]);
    config.suit_have_rank = below(2) == 0;
    config.categories = names;
    if (c % 4 != 0) std::shuffle(config.categories.begin(), config.categories.end(), rng);
    HandRanker r(config);
    std::vector<std::string> deck;
    for (const auto& s : config.suit) {
      for (const auto& v : config.value) deck.push_back(s + v);
    }
    std::shuffle(deck.begin(), deck.end(), rng);
    const size_t players = 2 + below(5);
    const size_t hole = below(4) == 0 ? below(4) : 2, shared = below(4) == 0 ? 3 + below(6 - hole) : 5;
    if (deck.size() < players * hole + shared) continue;
    if (c % 5 == 1 && values >= 5 && shared == 5) {  // a straight flush on the board, often
      const size_t first = below(values - 4), suit = below(suits);
      for (size_t k = 0; k < 5; ++k) {
        const auto at = std::find(deck.begin(), deck.end(), config.suit[suit] + config.value[first + k]);
        std::iter_swap(at, deck.begin() + static_cast<std::ptrdiff_t>(players * hole + k));
      }
    }
    std::vector<RankedCard> community;
    for (size_t k = 0; k < shared; ++k) community.push_back(r.card(deck[players * hole + k]));
    std::vector<HandValue> direct, walked;
    for (size_t p = 0; p < players; ++p) {
      std::vector<RankedCard> cards;
      for (size_t k = 0; k < hole; ++k) cards.push_back(r.card(deck[p * hole + k]));
      cards.insert(cards.end(), community.begin(), community.end());
      RankPath path = RankPath::kWalk;
      direct.push_back(r.hand_value(cards.data(), cards.size(), &path));
      const BestHand ref = r.best_reference(cards.data(), cards.size());
      walked.push_back(ref);
      ++paths[static_cast<size_t>(path)];
      ++hands;
      ASSERT_EQ(direct.back().none, ref.none) << "case " << c << " player " << p;
      if (ref.none) continue;
      ++categories[static_cast<size_t>(ref.category)];
      ASSERT_EQ(direct.back().category, ref.category) << "case " << c << " player " << p;
      ASSERT_EQ(direct.back().key, ref.key) << "case " << c << " player " << p;
    }
    if (direct[0].none) continue;
    ASSERT_EQ(r.winners(direct), r.winners(walked)) << "case " << c;
    for (size_t a = 0; a < players; ++a) {
      for (size_t b = 0; b < players; ++b)
        ASSERT_EQ(r.compare(direct[a], direct[b]), r.compare(walked[a], walked[b])) << "case " << c;
    }
  }
  // Every category was met, and most hands took the direct method.
  for (int n : categories) EXPECT_GT(n, 100);
  EXPECT_GT(paths[static_cast<size_t>(RankPath::kDirect)], hands * 8 / 10);
  EXPECT_GT(paths[static_cast<size_t>(RankPath::kCategoryWalk)], 0);
}

// Seven cards from a standard deck under the spec's game 1 order and the standard one: the direct
// method ranks them all without walking, and agrees with the reference walk.
TEST(HandRanker, SevenCardHandsOfAStandardDeckNeedNoWalk) {
  for (const bool game1 : {true, false}) {
    RankingConfig c = standard_ranking(true);
    c.suit = {"A", "B", "C", "D"};
    if (game1)
      c.categories = {"Two Pair",       "Full House", "Three of a Kind",
                      "Four of a Kind", "Straight",   "Straight Flush",
                      "Flush",          "High Card",  "Pair"};
    HandRanker r(c);
    std::vector<RankedCard> deck;
    for (const auto& s : c.suit) {
      for (const auto& v : c.value) deck.push_back(r.card(s + v));
    }
    std::mt19937_64 rng(game1 ? 1 : 2);
    int walked = 0;
    for (int h = 0; h < 20000; ++h) {
      std::shuffle(deck.begin(), deck.end(), rng);
      RankPath path = RankPath::kWalk;
      const HandValue v = r.hand_value(deck.data(), 7, &path);
      walked += path == RankPath::kDirect ? 0 : 1;
      const BestHand ref = r.best_reference(deck.data(), 7);
      ASSERT_EQ(v.category, ref.category) << h;
      ASSERT_EQ(v.key, ref.key) << h;
    }
    EXPECT_LT(walked, 20000 / 100) << (game1 ? "game 1's order" : "the standard order");
  }
}

}  // namespace
}  // namespace pcglab::poker
