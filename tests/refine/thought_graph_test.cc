#include "refine/thought_graph.h"

#include <gtest/gtest.h>

namespace pcglab::refine {
namespace {

ThoughtNode make(int parent, double fitness, std::string error = "") {
  ThoughtNode n;
  n.parent = parent;
  n.fitness = fitness;
  n.artifact = "code";
  n.error = std::move(error);
  return n;
}

TEST(ThoughtGraph, CotRefinesTheLatestUsableNode) {
  ThoughtGraph g;
  EXPECT_FALSE(g.select_parent(ThoughtStrategy::kCot, 1));
  g.add(make(0, 0.9));
  g.add(make(1, 0.1));
  EXPECT_EQ(g.select_parent(ThoughtStrategy::kCot, 1), 2);
  g.add(make(2, 0, "no code block"));
  EXPECT_EQ(g.select_parent(ThoughtStrategy::kCot, 1), 2);  // the failed node is never refined
}

TEST(ThoughtGraph, TotPicksTheFittestNodeWithRoomTheFirstWinningTies) {
  ThoughtGraph g;
  g.add(make(0, 0.3));                                      // 1
  g.add(make(1, 0.5));                                      // 2
  g.add(make(1, 0.5));                                      // 3: node 1 is full (breadth 2)
  EXPECT_EQ(g.select_parent(ThoughtStrategy::kTot, 2), 2);  // 2 and 3 tie: the first wins
  g.add(make(2, 0.1));                                      // 4
  EXPECT_EQ(g.select_parent(ThoughtStrategy::kTot, 2), 2);  // 2 still has room
  g.add(make(2, 0.2));                                      // 5: node 2 full
  EXPECT_EQ(g.select_parent(ThoughtStrategy::kTot, 2), 3);
  EXPECT_EQ(g.node(1).children, (std::vector<int>{2, 3}));
  EXPECT_EQ(g.node(2).children, (std::vector<int>{4, 5}));
}

TEST(ThoughtGraph, GotAuxiliaryIsTheBestOtherNodesBestFirst) {
  ThoughtGraph g;
  g.add(make(0, 0.2));                  // 1
  g.add(make(1, 0.6));                  // 2
  g.add(make(1, 0.4));                  // 3
  g.add(make(2, 0.6));                  // 4 (ties with 2: 2 comes first)
  g.add(make(2, 0.9, "syntax error"));  // 5: not usable
  EXPECT_EQ(g.auxiliary(4, 2), (std::vector<int>{2, 3}));
  EXPECT_EQ(g.auxiliary(3, 2), (std::vector<int>{2, 4}));
  EXPECT_EQ(g.auxiliary(3, 0), (std::vector<int>{}));
  EXPECT_EQ(g.best(), 2);
}

TEST(ThoughtGraph, RoundTripsThroughJsonAndRefusesBrokenGraphs) {
  ThoughtGraph g;
  g.add(make(0, 0.25));
  g.add(make(1, 0.5, "timeout"));
  const auto back = ThoughtGraph::from_json(Json::parse(g.to_json().dump()));
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back.node(2).parent, 1);
  EXPECT_EQ(back.node(2).error, "timeout");
  EXPECT_EQ(back.node(1).children, (std::vector<int>{2}));
  EXPECT_EQ(back.to_json().dump(), g.to_json().dump());
  EXPECT_THROW(ThoughtGraph::from_json(Json::parse(R"([{"id":1,"parent":2,"artifact":"","fitness":0}])")),
               InputError);
  EXPECT_THROW(ThoughtGraph::from_json(Json::parse(R"({"id":1})")), InputError);
}

TEST(ThoughtGraph, AFailedNodesKindIsWrittenBesideItsErrorAndReadBack) {
  ThoughtGraph g;
  g.add(make(0, 0.25));
  ThoughtNode failed = make(1, 0, "iteration 2 evaluate: the reward timed out");
  failed.error_kind = ErrorKind::kTimeout;
  g.add(failed);
  const OrderedJson j = g.to_json();
  EXPECT_FALSE(j[0].contains("error_kind")) << "only where error is";
  EXPECT_EQ(j[1].value("error_kind", ""), "timeout");
  const auto back = ThoughtGraph::from_json(Json::parse(j.dump()));
  EXPECT_EQ(back.node(2).error_kind, ErrorKind::kTimeout);
  EXPECT_EQ(back.node(1).error_kind, ErrorKind::kNone);
  // A graph written before nodes recorded their kind: a failed node reads back as bad-input.
  Json old = Json::parse(j.dump());
  old[1].erase("error_kind");
  EXPECT_EQ(ThoughtGraph::from_json(old).node(2).error_kind, ErrorKind::kBadInput);
  old[1]["error_kind"] = "nonsense";
  EXPECT_THROW(ThoughtGraph::from_json(old), InputError);
}

TEST(ThoughtGraph, StrategyNamesParseAndUnknownOnesAreSetupErrors) {
  EXPECT_EQ(parse_strategy("got"), ThoughtStrategy::kGot);
  EXPECT_STREQ(strategy_name(ThoughtStrategy::kTot), "tot");
  try {
    parse_strategy("bfs");
    FAIL();
  } catch (const SetupError& e) {
    EXPECT_NE(std::string(e.what()).find("\"bfs\""), std::string::npos);
  }
}

}  // namespace
}  // namespace pcglab::refine
