#include "poker/hand.h"

#include <algorithm>

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
  std::array<int, 5> order{0, 1, 2, 3, 4};
  std::stable_sort(order.begin(), order.begin() + groups, [&](int a, int b) {
    if (size[a] != size[b]) return size[a] > size[b];
    return best[a] > best[b];
  });
  std::array<double, 5> key{};
  int k = 0;
  for (int gi = 0; gi < groups; ++gi) {
    for (int i = 0; i < 5; ++i) {
      if (group[i] == order[gi]) key[k++] = f[i].rank;
    }
  }
  return key;
}

BestHand HandRanker::best(const RankedCard* cards, size_t n) const {
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
