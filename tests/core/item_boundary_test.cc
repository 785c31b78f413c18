// run_item: the one item boundary every batch pipeline uses.
#include <gtest/gtest.h>

#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "core/check.h"
#include "core/files.h"
#include "core/item_boundary.h"
#include "core/json.h"

namespace pcglab {
namespace {

TEST(RunItem, ReturnsTheValueOrTheResultFnGives) {
  const Result<int> v = run_item("a", [] { return 3; });
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v.value(), 3);
  const Result<int> failed = run_item("a", []() -> Result<int> { return ItemError{"a", "no code"}; });
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error(), (ItemError{"a", "no code"}));
  const Status done = run_item("a", [] {});
  EXPECT_TRUE(done.ok());
}

TEST(RunItem, AnyExceptionButSetupErrorIsTheItemsError) {
  const Result<long> stol = run_item("t_A_1.txt", [] { return std::stol("99999999999999999999"); });
  ASSERT_FALSE(stol.ok());
  EXPECT_EQ(stol.error().item, "t_A_1.txt");
  EXPECT_EQ(stol.error().message, "unexpected error: stol");
  EXPECT_FALSE(stol.error().internal);
  const Status oom = run_item("x", []() { throw std::bad_alloc(); });
  ASSERT_FALSE(oom.ok());
  EXPECT_EQ(oom.error().describe(), "x: out of memory while processing this item");
  const Status odd = run_item("x", []() { throw 42; });
  ASSERT_FALSE(odd.ok());
  EXPECT_EQ(odd.error().message, "unexpected error of an unknown kind");
  EXPECT_THROW(run_item("x", [] { throw SetupError("no such folder"); }), SetupError);
}

// A malformed input read inside an item (a similarity JSON, a PNG, a level) is that item's error
// with its own message, never a setup error that stops the batch.
TEST(RunItem, AnInputErrorIsTheItemsErrorWithItsMessage) {
  const Status bad = run_item("B.json", [] { parse_json("{", "similarity/B.json"); });
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().item, "B.json");
  EXPECT_EQ(bad.error().message.rfind("similarity/B.json:1:2: invalid JSON: ", 0), 0u) << bad.error().message;
  EXPECT_FALSE(bad.error().internal);
  const Status unreadable = run_item("x", [] { read_file("/nonexistent/pcglab.json"); });
  ASSERT_FALSE(unreadable.ok());
  EXPECT_EQ(unreadable.error().describe(), "x: cannot read /nonexistent/pcglab.json: no such file");
  static_assert(!std::is_base_of_v<SetupError, InputError>);
}

// Setup inputs (a model, a prompt) read through as_setup_input stop the command as before.
TEST(RunItem, ASetupInputStaysASetupError) {
  EXPECT_THROW(run_item("x", [] { as_setup_input([] { return read_file("/nonexistent/model"); }); }),
               SetupError);
}

TEST(RunItem, ABrokenInvariantIsMarkedAsAnInternalError) {
  const Status bug = run_item("level.xml", [] { PCGLAB_CHECK(1 + 1 == 3) << "arithmetic"; });
  ASSERT_FALSE(bug.ok());
  EXPECT_TRUE(bug.error().internal);
  EXPECT_EQ(bug.error().message.rfind("internal error (a bug in pcglab, please report it): ", 0), 0u)
      << bug.error().message;
  EXPECT_NE(bug.error().message.find("arithmetic"), std::string::npos) << bug.error().message;
}

}  // namespace
}  // namespace pcglab
