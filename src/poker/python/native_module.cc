// _pcglab_poker: the native showdown GameBase.py calls (docs/poker.md, "The engine"). Built by
// pybind11 from poker/hand.cc alone (no pcglab library), so the extension loads in the sandbox
// with only the system's libraries.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "poker/hand.h"

namespace py = pybind11;
using pcglab::poker::HandRanker;
using pcglab::poker::HandValue;
using pcglab::poker::RankedCard;
using pcglab::poker::RankingConfig;
using pcglab::poker::RankingUnavailable;

namespace {

// The positions (among the given hands) of the showdown's winners; ValueError when the native
// ranker cannot rank them exactly as the Python path would (the caller then takes that path).
std::vector<size_t> winners(const std::vector<std::vector<std::string>>& holes,
                            const std::vector<std::string>& community, std::vector<std::string> value,
                            std::vector<std::string> suit, bool suit_have_rank,
                            std::vector<std::string> categories) {
  try {
    const HandRanker ranker(
        RankingConfig{std::move(value), std::move(suit), suit_have_rank, std::move(categories)});
    std::vector<RankedCard> shared;
    for (const auto& c : community) shared.push_back(ranker.card(c));
    std::vector<HandValue> hands;
    std::vector<RankedCard> cards;
    for (const auto& hole : holes) {
      cards.clear();
      for (const auto& c : hole) cards.push_back(ranker.card(c));
      cards.insert(cards.end(), shared.begin(), shared.end());
      hands.push_back(ranker.hand_value(cards.data(), cards.size()));
    }
    return ranker.winners(hands);
  } catch (const RankingUnavailable& e) {
    throw py::value_error(e.what());
  }
}

}  // namespace

PYBIND11_MODULE(_pcglab_poker, m) {
  m.doc() = "pcglab's native poker showdown for GameBase";
  m.def("winners", &winners, py::arg("holes"), py::arg("community"), py::arg("value"), py::arg("suit"),
        py::arg("suit_have_rank"), py::arg("categories"));
}
