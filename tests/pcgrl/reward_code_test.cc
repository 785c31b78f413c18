#include "pcgrl/reward_code.h"

#include <gtest/gtest.h>

namespace pcglab::pcgrl {
namespace {

TEST(RewardCode, ThePythonBlockWinsOverAnEarlierBareBlock) {
  const auto r = extract_reward_code(
      "Here is a plan:\n```\nstep 1\n```\nAnd the code:\n```python\ndef compute_reward(a, b, c, d):\n"
      "    return 0.0\n```\nand a second one\n```python\nother\n```");
  EXPECT_EQ(r.code, "def compute_reward(a, b, c, d):\n    return 0.0");
  EXPECT_EQ(r.source, "python block");
}

TEST(RewardCode, ABareBlockIsTakenWhenThereIsNoPythonBlock) {
  const auto r = extract_reward_code("text\n```\n  x = 1\n```\n```\ny\n```");
  EXPECT_EQ(r.code, "x = 1");
  EXPECT_EQ(r.source, "fenced block");
  // A block with another language tag is a bare block: its tag stays in the code (the official
  // regex does the same), so the sandbox reports the syntax error back to the LLM.
  EXPECT_EQ(extract_reward_code("```py\nx = 1\n```").code, "py\nx = 1");
}

TEST(RewardCode, NoBlockOrAnEmptyBlockGivesTheWholeReply) {
  EXPECT_EQ(extract_reward_code("def f():\n  return 1\n").source, "whole reply");
  EXPECT_EQ(extract_reward_code("def f():\n  return 1\n").code, "def f():\n  return 1\n");
  EXPECT_EQ(extract_reward_code("```python\n \n```").code, "```python\n \n```");
  EXPECT_EQ(extract_reward_code("```python\nno closing fence").source, "whole reply");
}

TEST(RewardCode, StripIsPythonsStrip) {
  EXPECT_EQ(python_strip(" \t\r\n\v\fx y\x1c\x1f"), "x y");
  EXPECT_EQ(python_strip("\xc2\xa0\xe2\x80\x83"
                         "code"
                         "\xe3\x80\x80"),
            "code");  // NBSP, EM SPACE, IDEOGRAPHIC
  EXPECT_EQ(python_strip("\xe2\x80\x8b"
                         "code"),
            "\xe2\x80\x8b"
            "code");  // ZERO WIDTH SPACE is not
  EXPECT_EQ(python_strip("   "), "");
  EXPECT_EQ(python_strip(""), "");
}

}  // namespace
}  // namespace pcglab::pcgrl
