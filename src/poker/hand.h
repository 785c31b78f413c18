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

// A card as the ranker sees it.
struct RankedCard {
  int value_id = 0;  // equal iff the value texts are equal
  int suit_id = 0;   // equal iff the suit characters are equal
  int value_rank = 0;
  double rank = 0;  // value rank + suit rank / 10, as Python computes it
};

struct BestHand {
  bool none = true;                // fewer than 5 cards: (None, None)
  std::array<uint8_t, 5> cards{};  // positions in the card list (hole first)
  Category category = Category::kHighCard;
  std::array<double, 5> key{};  // card ranks in the tie-break order
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
  // cmp_hand: 1, -1 or 0.
  int compare(const BestHand& a, const BestHand& b) const;
  // get_winners over the unfolded players' hands, in order: their positions.
  std::vector<size_t> winners(const std::vector<BestHand>& hands) const;

  const RankingConfig& config() const { return config_; }
  int category_rank(Category category) const { return category_rank_[static_cast<int>(category)]; }

 private:
  static std::array<double, 5> tie_key(const RankedCard* five);
  RankingConfig config_;
  std::unordered_map<std::string, std::pair<int, int>> value_;  // text -> (id, rank)
  std::unordered_map<std::string, int> suit_rank_;
  mutable std::unordered_map<std::string, int> suit_id_;
  std::array<int, kCategories> category_rank_{};
};

}  // namespace pcglab::poker
