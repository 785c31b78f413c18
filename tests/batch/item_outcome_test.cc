#include "batch/item_outcome.h"

#include <gtest/gtest.h>

namespace pcglab {
namespace {

TEST(ItemOutcome, RoundTripsThroughJson) {
  const auto ok = ItemOutcome::success("team/A/1", OrderedJson{{"blocks", 7}});
  const auto back = ItemOutcome::from_json(Json::parse(ok.to_json().dump()));
  EXPECT_EQ(back.key, "team/A/1");
  EXPECT_TRUE(back.ok());
  EXPECT_EQ(back.metadata["blocks"], 7);

  const auto bad = ItemOutcome::failure("team/A/2", ErrorKind::kTimeout, "team/A/2: took over 30 s");
  const auto j = bad.to_json();
  EXPECT_EQ(j["kind"], "timeout");
  const auto back2 = ItemOutcome::from_json(Json::parse(j.dump()));
  EXPECT_EQ(back2.status, ItemStatus::kError);
  EXPECT_EQ(back2.kind, ErrorKind::kTimeout);
  EXPECT_EQ(back2.message, "team/A/2: took over 30 s");
}

TEST(ItemOutcome, EveryKindHasANameThatParsesBack) {
  for (ErrorKind k :
       {ErrorKind::kNone, ErrorKind::kBadInput, ErrorKind::kNoOutput, ErrorKind::kTimeout, ErrorKind::kLimit,
        ErrorKind::kCrash, ErrorKind::kLlm, ErrorKind::kEvaluator, ErrorKind::kIo, ErrorKind::kInternal})
    EXPECT_EQ(parse_error_kind(error_kind_name(k)), k);
  EXPECT_FALSE(parse_error_kind("nonsense"));
}

TEST(ItemOutcome, AnInternalItemErrorIsKindInternal) {
  const auto o = ItemOutcome::from_error("x", ItemError{"x", "broken", true}, ErrorKind::kEvaluator);
  EXPECT_EQ(o.kind, ErrorKind::kInternal);
  EXPECT_EQ(o.message, "x: broken");
  EXPECT_EQ(ItemOutcome::from_error("y", ItemError{"y", "bad"}, ErrorKind::kEvaluator).kind,
            ErrorKind::kEvaluator);
}

TEST(ItemOutcome, TheRequestsSentRoundTripAndAreLeftOutWhenNone) {
  auto o = ItemOutcome::failure("t/A/t_A_1", ErrorKind::kLlm, "turn 1: timed out");
  EXPECT_EQ(o.to_json().dump().find("requests"), std::string::npos);  // other stages' logs unchanged
  o.requests = 2;
  const auto j = o.to_json();
  EXPECT_EQ(j["requests"], 2);
  EXPECT_EQ(ItemOutcome::from_json(Json::parse(j.dump())).requests, 2);
  EXPECT_EQ(ItemOutcome::from_json(j).requests, 2);
  EXPECT_THROW(ItemOutcome::from_json(Json::parse(R"({"key":"k","status":"ok","requests":-1})")), InputError);
}

TEST(ItemOutcome, AMalformedObjectIsAnInputError) {
  EXPECT_THROW(ItemOutcome::from_json(Json::parse(R"({"status":"ok"})")), InputError);
  EXPECT_THROW(ItemOutcome::from_json(Json::parse(R"({"key":"k","status":"weird"})")), InputError);
}

}  // namespace
}  // namespace pcglab
