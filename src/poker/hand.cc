#include "poker/hand.h"

#include <algorithm>
#include <bit>

namespace pcglab::poker {
namespace {

constexpr std::array<const char*, kCategories> kNames = {
    "Straight Flush",  "Four of a Kind", "Full House", "Flush",    "Straight",
    "Three of a Kind", "Two Pair",       "Pair",       "High Card"};

// Length of the first UTF-8 code point: a suit is Python's c[0], one code point.
size_t utf8_first(std::string_view text) {
  const auto lead = static_cast<unsigned char>(text[0]);
  size_t len = 1;
  if (lead >= 0xF0)
    len = 4;
  else if (lead >= 0xE0)
    len = 3;
  else if (lead >= 0xC0)
    len = 2;
  return std::min(len, text.size());
}

// Bits set in a 16-bit mask, by table (std::popcount is a library call without -mpopcnt).
constexpr std::array<uint8_t, 256> kBits8 = [] {
  std::array<uint8_t, 256> t{};
  for (int i = 0; i < 256; ++i)
    t[static_cast<size_t>(i)] = static_cast<uint8_t>((i & 1) + t[static_cast<size_t>(i >> 1)]);
  return t;
}();
inline int bits16(uint16_t x) {
  return kBits8[x & 0xFFU] + kBits8[x >> 8];
}

}  // namespace

const char* category_name(Category category) {
  return kNames[static_cast<int>(category)];
}

HandRanker::HandRanker(RankingConfig config) : config_(std::move(config)) {
  for (size_t i = 0; i < config_.value.size(); ++i) {
    auto [it, added] = value_.try_emplace(config_.value[i], static_cast<int>(value_.size()), 0);
    it->second.second = static_cast<int>(i) + 1;
  }
  for (size_t i = 0; i < config_.suit.size(); ++i) suit_rank_[config_.suit[i]] = static_cast<int>(i) + 1;
  category_rank_.fill(0);
  for (size_t i = 0; i < config_.categories.size(); ++i) {
    for (int c = 0; c < kCategories; ++c) {
      if (config_.categories[i] == kNames[c]) category_rank_[c] = static_cast<int>(i) + 1;
    }
  }
  for (int c = 0; c < kCategories; ++c) {
    if (category_rank_[c] == 0) throw RankingUnavailable(std::string("category missing: ") + kNames[c]);
  }
}

RankedCard HandRanker::card(std::string_view text) const {
  if (text.empty()) throw RankingUnavailable("empty card");
  const size_t s = utf8_first(text);
  const std::string suit(text.substr(0, s));
  const auto v = value_.find(std::string(text.substr(s)));
  if (v == value_.end()) throw RankingUnavailable("value not in the config");
  RankedCard c;
  c.value_id = v->second.first;
  c.value_rank = v->second.second;
  int suit_rank = 1;
  if (config_.suit_have_rank) {
    const auto r = suit_rank_.find(suit);
    if (r == suit_rank_.end()) throw RankingUnavailable("suit not in the config");
    suit_rank = r->second;
  }
  c.suit_id = suit_id_.try_emplace(suit, static_cast<int>(suit_id_.size())).first->second;
  c.rank = static_cast<double>(c.value_rank) + static_cast<double>(suit_rank) / 10;
  return c;
}

Category HandRanker::classify(const RankedCard* f) {
  int equal_pairs = 0;
  for (int i = 0; i < 5; ++i) {
    for (int j = i + 1; j < 5; ++j) equal_pairs += f[i].value_id == f[j].value_id ? 1 : 0;
  }
  const bool flush = f[0].suit_id == f[1].suit_id && f[0].suit_id == f[2].suit_id &&
                     f[0].suit_id == f[3].suit_id && f[0].suit_id == f[4].suit_id;
  bool straight = false;
  if (equal_pairs == 0) {
    int lo = f[0].value_rank, hi = f[0].value_rank;
    for (int i = 1; i < 5; ++i) {
      lo = std::min(lo, f[i].value_rank);
      hi = std::max(hi, f[i].value_rank);
    }
    straight = hi - lo == 4;
  }
  if (flush && straight) return Category::kStraightFlush;
  switch (equal_pairs) {  // 4+1: 6, 3+2: 4, 3+1+1: 3, 2+2+1: 2, 2+1+1+1: 1, five alike: 10
    case 6: return Category::kFourOfAKind;
    case 4: return Category::kFullHouse;
    default: break;
  }
  if (flush) return Category::kFlush;
  if (straight) return Category::kStraight;
  if (equal_pairs == 3) return Category::kThreeOfAKind;
  if (equal_pairs == 2) return Category::kTwoPair;
  if (equal_pairs == 1) return Category::kPair;
  return Category::kHighCard;
}

std::array<double, 5> HandRanker::tie_key(const RankedCard* f) {
  // Groups by value in order of first appearance; by size (largest first), then by the group's best
  // card rank (higher first, stable); cards inside a group in hand order.
  std::array<int, 5> group{};  // group of each card
  std::array<int, 5> size{};   // size of each group
  std::array<double, 5> best{};
  std::array<int, 5> first{};  // first card of each group
  int groups = 0;
  for (int i = 0; i < 5; ++i) {
    int g = 0;
    while (g < groups && f[first[g]].value_id != f[i].value_id) ++g;
    if (g == groups) {
      first[groups] = i;
      size[groups] = 0;
      best[groups] = f[i].rank;
      ++groups;
    }
    group[i] = g;
    ++size[g];
    best[g] = std::max(best[g], f[i].rank);
  }
  // Stable insertion sort of the groups (std::stable_sort may allocate a buffer).
  std::array<int, 5> order{0, 1, 2, 3, 4};
  const auto before = [&](int x, int y) {
    return size[x] != size[y] ? size[x] > size[y] : best[x] > best[y];
  };
  for (int k = 1; k < groups; ++k) {
    const int g = order[k];
    int m = k;
    while (m > 0 && before(g, order[m - 1])) {
      order[m] = order[m - 1];
      --m;
    }
    order[m] = g;
  }
  std::array<double, 5> key{};
  int k = 0;
  for (int gi = 0; gi < groups; ++gi) {
    for (int i = 0; i < 5; ++i) {
      if (group[i] == order[gi]) key[k++] = f[i].rank;
    }
  }
  return key;
}

BestHand HandRanker::best_reference(const RankedCard* cards, size_t n) const {
  BestHand result;
  if (n < 5) return result;
  if (n > 255) throw RankingUnavailable("too many cards");
  std::array<uint8_t, 5> idx{0, 1, 2, 3, 4};
  std::array<RankedCard, 5> five{};
  int best_rank = 0;
  while (true) {
    for (int i = 0; i < 5; ++i) five[i] = cards[idx[i]];
    const Category c = classify(five.data());
    const int rank = category_rank(c);
    if (rank >= best_rank) {
      const auto key = tie_key(five.data());
      if (rank > best_rank || key > result.key) {
        result.none = false;
        result.cards = idx;
        result.category = c;
        result.key = key;
        best_rank = rank;
      }
    }
    int i = 4;  // next combination in lexicographic order
    while (i >= 0 && idx[i] == n - 5 + static_cast<size_t>(i)) --i;
    if (i < 0) break;
    ++idx[i];
    for (int j = i + 1; j < 5; ++j) idx[j] = static_cast<uint8_t>(idx[j - 1] + 1);
  }
  return result;
}

// The fast walk, for up to 16 cards. Per hand: each card's same-value and same-suit masks and its
// ordinal among the hand's distinct card ranks (3 bits with <= 7 cards, 4 with more). Per
// combination: the category from popcounts, and only for a combination whose category ties the best
// so far, its tie-break key as one integer (the ordinals in the engine's group order), so equal keys
// and their order are exactly those of the card ranks. A hand where two cards of different values
// have equal card ranks (11 or more ranked suits) takes the reference walk: there the engine's
// stable group order depends on first appearance, which the rank-order scan below does not model.
BestHand HandRanker::best(const RankedCard* cards, size_t n) const {
  if (n < 5 || n > 8) return best_reference(cards, n);
  std::array<uint16_t, 16> same_value{}, same_suit{};
  std::array<int, 16> ordinal{};
  std::array<uint8_t, 16> by_rank{};  // positions by card rank, high first (equal ranks: hand order)
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < n; ++j) {
      if (cards[i].value_id == cards[j].value_id) same_value[i] |= static_cast<uint16_t>(1U << j);
      if (cards[i].suit_id == cards[j].suit_id) same_suit[i] |= static_cast<uint16_t>(1U << j);
      if (cards[i].value_id != cards[j].value_id && cards[i].rank == cards[j].rank)
        return best_reference(cards, n);
    }
    by_rank[i] = static_cast<uint8_t>(i);
  }
  // Stable insertion sort by rank, high first; then each card's ordinal among the distinct ranks.
  for (size_t k = 1; k < n; ++k) {
    const uint8_t c = by_rank[k];
    size_t m = k;
    while (m > 0 && cards[c].rank > cards[by_rank[m - 1]].rank) {
      by_rank[m] = by_rank[m - 1];
      --m;
    }
    by_rank[m] = c;
  }
  for (size_t r = n, level = 0; r-- > 0;) {
    if (r + 1 < n && cards[by_rank[r]].rank != cards[by_rank[r + 1]].rank) ++level;
    ordinal[by_rank[r]] = static_cast<int>(level);
  }
  const int bits = 3;
  // Pass 1: every combination's category (in itertools.combinations order) and the best category.
  struct Combo {
    std::array<uint8_t, 5> idx;
    uint16_t m;
    int equal_pairs;
    Category c;
  };
  std::array<Combo, 56> combos{};  // C(8, 5)
  size_t count = 0;
  int best_rank = 0;
  std::array<uint8_t, 5> idx{0, 1, 2, 3, 4};
  while (true) {
    uint16_t m = 0;
    for (uint8_t i : idx) m = static_cast<uint16_t>(m | (1U << i));
    int counted = 0;
    for (uint8_t i : idx) counted += bits16(static_cast<uint16_t>(same_value[i] & m));
    const int equal_pairs = (counted - 5) / 2;
    const bool flush = (same_suit[idx[0]] & m) == m;
    bool straight = false;
    if (equal_pairs == 0) {
      int lo = cards[idx[0]].value_rank, hi = lo;
      for (int k = 1; k < 5; ++k) {
        lo = std::min(lo, cards[idx[k]].value_rank);
        hi = std::max(hi, cards[idx[k]].value_rank);
      }
      straight = hi - lo == 4;
    }
    Category c = Category::kHighCard;
    if (flush && straight)
      c = Category::kStraightFlush;
    else if (equal_pairs == 6)
      c = Category::kFourOfAKind;
    else if (equal_pairs == 4)
      c = Category::kFullHouse;
    else if (flush)
      c = Category::kFlush;
    else if (straight)
      c = Category::kStraight;
    else if (equal_pairs == 3)
      c = Category::kThreeOfAKind;
    else if (equal_pairs == 2)
      c = Category::kTwoPair;
    else if (equal_pairs == 1)
      c = Category::kPair;
    combos[count++] = Combo{idx, m, equal_pairs, c};
    best_rank = std::max(best_rank, category_rank(c));
    int i = 4;
    while (i >= 0 && idx[i] == n - 5 + static_cast<size_t>(i)) --i;
    if (i < 0) break;
    ++idx[i];
    for (int j = i + 1; j < 5; ++j) idx[j] = static_cast<uint8_t>(idx[j - 1] + 1);
  }
  // Pass 2: among the combinations of the best category, the first with the highest key.
  std::array<uint8_t, 5> best_idx{};
  uint64_t best_key = 0;
  bool found = false;
  Category best_category = Category::kHighCard;
  for (size_t k = 0; k < count; ++k) {
    const Combo& combo = combos[k];
    if (category_rank(combo.c) != best_rank) continue;
    const uint16_t m = combo.m;
    const int equal_pairs = combo.equal_pairs;
    {
      uint64_t key = 0;
      if (equal_pairs == 0) {  // five single cards: by rank
        for (size_t r = 0; r < n; ++r) {
          if ((m >> by_rank[r] & 1U) != 0) key = key << bits | static_cast<uint64_t>(ordinal[by_rank[r]]);
        }
      } else {
        // The group sizes of each pattern, largest first: 2+1+1+1, 2+2+1, 3+1+1, 3+2, 4+1, 5.
        static constexpr std::array<std::array<int, 3>, 11> kSizes = {{{1, 0, 0},
                                                                       {2, 1, 0},
                                                                       {2, 1, 0},
                                                                       {3, 1, 0},
                                                                       {3, 2, 0},
                                                                       {0, 0, 0},
                                                                       {4, 1, 0},
                                                                       {0, 0, 0},
                                                                       {0, 0, 0},
                                                                       {0, 0, 0},
                                                                       {5, 0, 0}}};
        uint16_t emitted = 0;
        for (int size : kSizes[static_cast<size_t>(equal_pairs)]) {
          if (size == 0) break;
          for (size_t r = 0; r < n; ++r) {
            const uint8_t i = by_rank[r];
            if ((m >> i & 1U) == 0 || (emitted >> i & 1U) != 0) continue;
            const auto group = static_cast<uint16_t>(same_value[i] & m);
            if (bits16(group) != size) continue;
            for (uint16_t g = group; g != 0; g = static_cast<uint16_t>(g & (g - 1)))
              key = key << bits | static_cast<uint64_t>(ordinal[std::countr_zero(static_cast<unsigned>(g))]);
            emitted = static_cast<uint16_t>(emitted | group);
          }
        }
      }
      if (!found || key > best_key) {
        found = true;
        best_key = key;
        best_idx = combo.idx;
        best_category = combo.c;
      }
    }
  }
  BestHand result;
  result.none = false;
  result.cards = best_idx;
  result.category = best_category;
  std::array<RankedCard, 5> five{};
  for (int k = 0; k < 5; ++k) five[k] = cards[best_idx[k]];
  result.key = tie_key(five.data());
  return result;
}

int HandRanker::compare(const BestHand& a, const BestHand& b) const {
  if (a.none || b.none) throw RankingUnavailable("compare with an empty hand");
  if (a.category != b.category) return category_rank(a.category) > category_rank(b.category) ? 1 : -1;
  if (a.key > b.key) return 1;
  if (a.key < b.key) return -1;
  return 0;
}

std::vector<size_t> HandRanker::winners(const std::vector<BestHand>& hands) const {
  std::vector<size_t> result;
  const BestHand* best = nullptr;
  for (size_t i = 0; i < hands.size(); ++i) {
    if (best == nullptr || best->none) {
      best = &hands[i];
      result = {i};
      continue;
    }
    const int c = compare(hands[i], *best);
    if (c == 1) {
      best = &hands[i];
      result = {i};
    } else if (c == 0) {
      result.push_back(i);
    }
  }
  return result;
}

}  // namespace pcglab::poker
