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
    by_rank_[static_cast<size_t>(c)] = static_cast<Category>(c);
  }
  std::sort(by_rank_.begin(), by_rank_.end(),
            [this](Category a, Category b) { return category_rank(a) > category_rank(b); });
  direct_ = config_.value.size() <= 63 && (!config_.suit_have_rank || config_.suit.size() <= 10);
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
  c.suit_rank = suit_rank;
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

// ---- hand_value: the direct method.
//
// A card is coded as value rank * 16 + suit rank (10 bits); with suit ranks of at most 10 this
// orders cards exactly as their card ranks (value + suit / 10) do, and equal codes are equal ranks.
// A key is 5 codes, the first in the high bits, so keys compare as integers the way cmp_hand
// compares the card-rank lists. Every category below is exactly the set of 5-subsets the engine's
// first-rule-that-holds classification puts in it (no card appears twice: checked), and its best key
// is built directly: a higher value always makes a higher card rank, so each group takes the highest
// value that fits, and inside a group (cards kept in hand order, the suit-order quirk) the best
// subsequence of its cards' suit ranks.
namespace {

struct HandStats {
  uint64_t values = 0;                   // bit v: some card has value rank v
  std::array<uint64_t, 6> at_least{};    // at_least[k]: values with k or more cards (k = 2..5)
  int distinct = 0;                      // values present
  std::array<uint8_t, 64> count;         // per value rank present: its cards,
  std::array<uint64_t, 64> seq;          //   their suit ranks in hand order (4 bits each, first lowest),
  std::array<uint8_t, 64> top;           //   the highest suit rank among them (first such card's)
  std::array<uint8_t, 64> top_suit;      //   and that card's suit id
  uint32_t suits = 0;                    // bit s: suit id s present
  std::array<uint64_t, 16> suit_values;  // per suit id present: bit v for its values,
  std::array<uint8_t, 16> suit_count;    //   its cards
  std::array<uint8_t, 16> suit_rank;     //   and its rank
};

enum class Found : uint8_t { kNone, kKey, kWalk };

// s / 10 as Python computes a suit rank's share of a card rank.
constexpr std::array<double, 16> kTenths = [] {
  std::array<double, 16> t{};
  for (size_t s = 0; s < t.size(); ++s) t[s] = static_cast<double>(s) / 10;
  return t;
}();

inline int top_bit(uint64_t m) {  // m != 0
  return 63 - __builtin_clzll(m);
}
inline uint64_t bit(int v) {
  return uint64_t{1} << v;
}
inline uint64_t code(int v, int s) {
  return static_cast<uint64_t>(v << 4 | s);
}
inline uint64_t windows(uint64_t m) {  // bit r: ranks r..r+4 all present
  return m & m >> 1 & m >> 2 & m >> 3 & m >> 4;
}

// Appends the best k of value v's cards: at each step the highest suit rank that leaves enough cards
// after it (its first card), so the group's ranks in hand order are the largest list there is.
inline void pick(const HandStats& h, int v, int k, uint64_t* key) {
  const uint64_t seq = h.seq[static_cast<size_t>(v)];
  const int count = h.count[static_cast<size_t>(v)];
  int start = 0;
  for (int j = 0; j < k; ++j) {
    int best = -1, at = start;
    for (int i = start; i <= count - (k - j); ++i) {
      const int s = static_cast<int>(seq >> (4 * i) & 15U);
      if (s > best) {
        best = s;
        at = i;
      }
    }
    *key = *key << 10 | code(v, best);
    start = at + 1;
  }
}
// Appends the best single card of each of the k highest values in `values`.
inline void singles(const HandStats& h, uint64_t values, int k, uint64_t* key) {
  for (int j = 0; j < k; ++j) {
    const int v = top_bit(values);
    *key = *key << 10 | code(v, h.top[static_cast<size_t>(v)]);
    values &= ~bit(v);
  }
}
// The second highest suit rank among value v's cards (count >= 2).
inline int second_suit_rank(const HandStats& h, int v) {
  const uint64_t seq = h.seq[static_cast<size_t>(v)];
  const int count = h.count[static_cast<size_t>(v)];
  int first = -1, at = 0, second = -1;
  for (int i = 0; i < count; ++i) {
    const int s = static_cast<int>(seq >> (4 * i) & 15U);
    if (s > first) {
      first = s;
      at = i;
    }
  }
  for (int i = 0; i < count; ++i) {
    if (i != at) second = std::max(second, static_cast<int>(seq >> (4 * i) & 15U));
  }
  return second;
}

Found straight_flush(const HandStats& h, uint64_t* key) {
  Found found = Found::kNone;
  for (uint32_t suits = h.suits; suits != 0; suits &= suits - 1) {
    const int s = __builtin_ctz(suits);
    if (h.suit_count[static_cast<size_t>(s)] < 5) continue;
    const uint64_t w = windows(h.suit_values[static_cast<size_t>(s)]);
    if (w == 0) continue;
    const int r = top_bit(w);
    uint64_t k = 0;
    for (int v = r + 4; v >= r; --v) k = k << 10 | code(v, h.suit_rank[static_cast<size_t>(s)]);
    if (found == Found::kNone || k > *key) *key = k;
    found = Found::kKey;
  }
  return found;
}

Found four_of_a_kind(const HandStats& h, uint64_t* key) {
  if (h.at_least[4] == 0 || h.distinct < 2) return Found::kNone;
  const int a = top_bit(h.at_least[4]);
  *key = 0;
  pick(h, a, 4, key);
  singles(h, h.values & ~bit(a), 1, key);
  return Found::kKey;
}

Found full_house(const HandStats& h, uint64_t* key) {
  if (h.at_least[3] == 0) return Found::kNone;
  const int a = top_bit(h.at_least[3]);
  const uint64_t pairs = h.at_least[2] & ~bit(a);
  if (pairs == 0) return Found::kNone;
  *key = 0;
  pick(h, a, 3, key);
  pick(h, top_bit(pairs), 2, key);
  return Found::kKey;
}

// The 5 highest values of `values` that are not 5 consecutive ranks (the 5th replaced by the 6th
// when they are); 0 when there are none.
uint64_t top_five_not_straight(uint64_t values) {
  uint64_t chosen = 0;
  int lowest = 0, highest = top_bit(values);
  for (int j = 0; j < 5; ++j) {
    if (values == 0) return 0;
    lowest = top_bit(values);
    chosen |= bit(lowest);
    values &= ~bit(lowest);
  }
  if (highest - lowest == 4) {
    if (values == 0) return 0;
    chosen = (chosen & ~bit(lowest)) | bit(top_bit(values));
  }
  return chosen;
}

Found flush(const HandStats& h, uint64_t* key) {
  Found found = Found::kNone;
  for (uint32_t suits = h.suits; suits != 0; suits &= suits - 1) {
    const int s = __builtin_ctz(suits);
    if (h.suit_count[static_cast<size_t>(s)] < 5) continue;
    uint64_t chosen = top_five_not_straight(h.suit_values[static_cast<size_t>(s)]);
    if (chosen == 0) continue;
    uint64_t k = 0;
    for (; chosen != 0; chosen &= ~bit(top_bit(chosen)))
      k = k << 10 | code(top_bit(chosen), h.suit_rank[static_cast<size_t>(s)]);
    if (found == Found::kNone || k > *key) *key = k;
    found = Found::kKey;
  }
  return found;
}

// 5 consecutive values, not all of one suit: the highest window whose best cards are not all of
// one suit, or else one of whose values has a second card (the lowest such value takes it).
Found straight(const HandStats& h, uint64_t* key) {
  for (uint64_t w = windows(h.values); w != 0; w &= ~bit(top_bit(w))) {
    const int r = top_bit(w);
    bool one_suit = true;
    for (int v = r; v < r + 4; ++v)
      one_suit = one_suit && h.top_suit[static_cast<size_t>(v)] == h.top_suit[static_cast<size_t>(r + 4)];
    int other = -1;  // the value that takes its second card
    if (one_suit) {
      for (int v = r; v <= r + 4 && other < 0; ++v) {
        if (h.count[static_cast<size_t>(v)] >= 2) other = v;
      }
      if (other < 0) continue;
    }
    *key = 0;
    for (int v = r + 4; v >= r; --v)
      *key = *key << 10 | code(v, v == other ? second_suit_rank(h, v) : h.top[static_cast<size_t>(v)]);
    return Found::kKey;
  }
  return Found::kNone;
}

Found three_of_a_kind(const HandStats& h, uint64_t* key) {
  if (h.at_least[3] == 0 || h.distinct < 3) return Found::kNone;
  const int a = top_bit(h.at_least[3]);
  *key = 0;
  pick(h, a, 3, key);
  singles(h, h.values & ~bit(a), 2, key);
  return Found::kKey;
}

Found two_pair(const HandStats& h, uint64_t* key) {
  const uint64_t pairs = h.at_least[2];
  if ((pairs & (pairs - 1)) == 0 || h.distinct < 3) return Found::kNone;
  const int a = top_bit(pairs), b = top_bit(pairs & ~bit(a));
  *key = 0;
  pick(h, a, 2, key);
  pick(h, b, 2, key);
  singles(h, h.values & ~bit(a) & ~bit(b), 1, key);
  return Found::kKey;
}

Found pair(const HandStats& h, uint64_t* key) {
  if (h.at_least[2] == 0 || h.distinct < 4) return Found::kNone;
  const int a = top_bit(h.at_least[2]);
  *key = 0;
  pick(h, a, 2, key);
  singles(h, h.values & ~bit(a), 3, key);
  return Found::kKey;
}

// Five of one value (never one suit), or 5 values that are neither consecutive nor of one suit.
// When the best 5 values' best cards share a suit the answer needs a search: walked.
Found high_card(const HandStats& h, uint64_t* key) {
  Found found = Found::kNone;
  if (h.at_least[5] != 0) {
    *key = 0;
    pick(h, top_bit(h.at_least[5]), 5, key);
    found = Found::kKey;
  }
  uint64_t chosen = top_five_not_straight(h.values);
  if (chosen == 0) return found;
  bool one_suit = true;
  const int first = top_bit(chosen);
  for (uint64_t m = chosen; m != 0; m &= m - 1)
    one_suit = one_suit &&
               h.top_suit[static_cast<size_t>(__builtin_ctzll(m))] == h.top_suit[static_cast<size_t>(first)];
  if (one_suit) return Found::kWalk;
  uint64_t k = 0;
  singles(h, chosen, 5, &k);
  if (found == Found::kNone || k > *key) *key = k;
  return Found::kKey;
}

Found best_of_category(const HandStats& h, Category c, uint64_t* key) {
  switch (c) {
    case Category::kStraightFlush: return straight_flush(h, key);
    case Category::kFourOfAKind: return four_of_a_kind(h, key);
    case Category::kFullHouse: return full_house(h, key);
    case Category::kFlush: return flush(h, key);
    case Category::kStraight: return straight(h, key);
    case Category::kThreeOfAKind: return three_of_a_kind(h, key);
    case Category::kTwoPair: return two_pair(h, key);
    case Category::kPair: return pair(h, key);
    case Category::kHighCard: return high_card(h, key);
  }
  return Found::kNone;
}

// The counts and masks of a hand; false when it has what the direct method does not model.
bool hand_stats(const RankedCard* cards, size_t n, HandStats* h) {
  for (size_t i = 0; i < n; ++i) {
    const RankedCard& c = cards[i];
    const int v = c.value_rank, s = c.suit_id, r = c.suit_rank;
    if (v < 1 || v > 63 || s < 0 || s > 15 || r < 0 || r > 10) return false;
    const auto vi = static_cast<size_t>(v), si = static_cast<size_t>(s);
    if ((h->suits >> s & 1U) == 0) {
      h->suits |= 1U << s;
      h->suit_rank[si] = static_cast<uint8_t>(r);
      h->suit_values[si] = 0;
      h->suit_count[si] = 0;
    }
    if ((h->suit_values[si] & bit(v)) != 0) return false;  // the same card twice
    h->suit_values[si] |= bit(v);
    ++h->suit_count[si];
    if ((h->values & bit(v)) == 0) {
      h->values |= bit(v);
      ++h->distinct;
      h->count[vi] = 1;
      h->seq[vi] = static_cast<uint64_t>(r);
      h->top[vi] = static_cast<uint8_t>(r);
      h->top_suit[vi] = static_cast<uint8_t>(s);
      continue;
    }
    const int k = h->count[vi]++;
    h->seq[vi] |= static_cast<uint64_t>(r) << (4 * k);
    if (k + 1 <= 5) h->at_least[static_cast<size_t>(k + 1)] |= bit(v);
    if (r > h->top[vi]) {
      h->top[vi] = static_cast<uint8_t>(r);
      h->top_suit[vi] = static_cast<uint8_t>(s);
    }
  }
  return true;
}

}  // namespace

bool HandRanker::walk_category(const RankedCard* cards, size_t n, Category category,
                               std::array<double, 5>* key) const {
  bool found = false;
  std::array<uint8_t, 5> idx{0, 1, 2, 3, 4};
  std::array<RankedCard, 5> five{};
  while (true) {
    for (size_t i = 0; i < 5; ++i) five[i] = cards[idx[i]];
    if (classify(five.data()) == category) {
      const auto k = tie_key(five.data());
      if (!found || k > *key) *key = k;
      found = true;
    }
    int i = 4;
    while (i >= 0 && idx[static_cast<size_t>(i)] == n - 5 + static_cast<size_t>(i)) --i;
    if (i < 0) break;
    ++idx[static_cast<size_t>(i)];
    for (int j = i + 1; j < 5; ++j)
      idx[static_cast<size_t>(j)] = static_cast<uint8_t>(idx[static_cast<size_t>(j - 1)] + 1);
  }
  return found;
}

HandValue HandRanker::hand_value(const RankedCard* cards, size_t n, RankPath* path) const {
  HandValue result;
  HandStats h;
  if (n >= 5 && n <= 16 && direct_ && hand_stats(cards, n, &h)) {
    for (Category c : by_rank_) {
      uint64_t key = 0;
      const Found found = best_of_category(h, c, &key);
      if (found == Found::kNone) continue;
      if (found == Found::kWalk) {  // the walk may find none: 5 values of one suit and nothing else
        if (!walk_category(cards, n, c, &result.key)) continue;
        result.none = false;
        result.category = c;
        if (path != nullptr) *path = RankPath::kCategoryWalk;
        return result;
      }
      result.none = false;
      result.category = c;
      for (size_t i = 0; i < 5; ++i) {
        const auto k = static_cast<int>(key >> (10 * (4 - i)) & 1023U);
        result.key[i] = static_cast<double>(k >> 4) + kTenths[static_cast<size_t>(k & 15)];
      }
      if (path != nullptr) *path = RankPath::kDirect;
      return result;
    }
  }
  if (path != nullptr) *path = RankPath::kWalk;
  const BestHand b = best(cards, n);
  result.none = b.none;
  result.category = b.category;
  result.key = b.key;
  return result;
}

int HandRanker::compare(const HandValue& a, const HandValue& b) const {
  if (a.none || b.none) throw RankingUnavailable("compare with an empty hand");
  if (a.category != b.category) return category_rank(a.category) > category_rank(b.category) ? 1 : -1;
  if (a.key > b.key) return 1;
  if (a.key < b.key) return -1;
  return 0;
}

}  // namespace pcglab::poker
