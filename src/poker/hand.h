// Hand ranking as the IGE engine does it (docs/poker.md, "Hand ranking"): the best of every
// 5-card combination of hole + community under a configured category order, value order and suit
// ranks, ties broken by the engine's grouping rule, the first of equal hands kept; the showdown's
// winners. A hand the native ranker cannot rank exactly as Python would (a value or suit missing
// from the config, a category missing from the order, an empty card) throws RankingUnavailable: the
// caller then takes the Python path, which raises the official exception or ranks the hand.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace pcglab::poker {

enum class Category : uint8_t {
  kStraightFlush,
  kFourOfAKind,
  kFullHouse,
  kFlush,
  kStraight,
  kThreeOfAKind,
  kTwoPair,
  kPair,
  kHighCard
};
inline constexpr int kCategories = 9;
const char* category_name(Category category);  // "Straight Flush", ..., "High Card"

struct RankingConfig {
  std::vector<std::string> value;       // low -> high; rank = 1 + last position
  std::vector<std::string> suit;        // low -> high
  bool suit_have_rank = false;          // false: every suit ranks 1
  std::vector<std::string> categories;  // card_combinations_rank, low -> high
};

class RankingUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A card as the ranker sees it (made by HandRanker::card).
struct RankedCard {
  int value_id = 0;  // equal iff the value texts are equal
  int suit_id = 0;   // equal iff the suit characters are equal
  int value_rank = 0;
  int suit_rank = 1;  // 1 when suits have no rank
  double rank = 0;    // value rank + suit rank / 10, as Python computes it
};

// What the showdown compares: the best 5 cards' category and tie-break key.
struct HandValue {
  bool none = true;  // fewer than 5 cards: (None, None)
  Category category = Category::kHighCard;
  std::array<double, 5> key{};  // card ranks in the tie-break order
};

// The same with the 5 cards `evaluate` returns.
struct BestHand : HandValue {
  std::array<uint8_t, 5> cards{};  // positions in the card list (hole first)
};

// How hand_value ranked a hand (for tests and benchmarks).
enum class RankPath : uint8_t {
  kDirect,        // from value and suit counts and masks alone
  kCategoryWalk,  // the best category directly, its key by walking that category's combinations
  kWalk           // the fast walk (best), or the reference walk it takes
};

class HandRanker {
 public:
  explicit HandRanker(RankingConfig config);  // RankingUnavailable when a category is missing

  // The card "S12" (suit = first code point, value = the rest).
  RankedCard card(std::string_view text) const;
  // Category of 5 cards (the engine's first-rule-that-holds order).
  static Category classify(const RankedCard* five);
  // The best of every 5-card combination of `cards` (hole first), as `evaluate` returns it.
  BestHand best(const RankedCard* cards, size_t n) const;
  // The same by the straightforward walk (classify and tie-break every combination): the reference
  // `best` is tested against, and the path it takes for hands its bit masks cannot order exactly.
  BestHand best_reference(const RankedCard* cards, size_t n) const;
  // The category and key of `best` without walking the combinations: which categories some
  // 5-subset reaches and the best key of the best one, from the hand's value counts, value masks and
  // suit masks (docs/poker.md, "Hand ranking"). Exactly `best`'s category and key. Takes the walk
  // for what it does not model: more than 16 cards, a card listed twice, a value rank above 63, a
  // suit rank above 10 (card ranks of different values can then tie or invert) or more than 16
  // suits; and walks one category's combinations for High Card whose top cards share a suit.
  HandValue hand_value(const RankedCard* cards, size_t n, RankPath* path = nullptr) const;
  // cmp_hand: 1, -1 or 0.
  int compare(const HandValue& a, const HandValue& b) const;
  // get_winners over the unfolded players' hands, in order: their positions.
  template <class Hand>
  std::vector<size_t> winners(const std::vector<Hand>& hands) const {
    std::vector<size_t> result;
    const HandValue* top = nullptr;
    for (size_t i = 0; i < hands.size(); ++i) {
      const int c = top == nullptr || top->none ? 1 : compare(hands[i], *top);
      if (c == 1) {
        top = &hands[i];
        result = {i};
      } else if (c == 0) {
        result.push_back(i);
      }
    }
    return result;
  }
  std::vector<size_t> winners(const std::vector<BestHand>& hands) const { return winners<BestHand>(hands); }

  const RankingConfig& config() const { return config_; }
  int category_rank(Category category) const { return category_rank_[static_cast<int>(category)]; }

 private:
  static std::array<double, 5> tie_key(const RankedCard* five);
  // The best key among the combinations of `category` (walked), or none when there is none.
  bool walk_category(const RankedCard* cards, size_t n, Category category, std::array<double, 5>* key) const;
  RankingConfig config_;
  std::array<Category, kCategories> by_rank_{};  // categories from the highest configured rank down
  bool direct_ = false;                          // the config allows hand_value's direct method
  std::unordered_map<std::string, std::pair<int, int>> value_;  // text -> (id, rank)
  std::unordered_map<std::string, int> suit_rank_;
  mutable std::unordered_map<std::string, int> suit_id_;
  std::array<int, kCategories> category_rank_{};
};

}  // namespace pcglab::poker
