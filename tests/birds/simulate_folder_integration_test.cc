// birds/simulate_folder.h: `birds simulate DIR`'s library function, called directly.
#include "birds/simulate_folder.h"

#include <gtest/gtest.h>

#include "birds/sample_levels.h"
#include "core/check.h"
#include "core/files.h"
#include "core/thread_pool.h"
#include "store/run_store.h"
#include "testing/testing.h"

namespace pcglab::birds {
namespace {
namespace fs = std::filesystem;

TEST(SimulateFolder, EveryLevelIsAnOutcomeWithItsFileAndTheSummaryPerCharacter) {
  testing::TempDir dir;
  write_file_atomic(dir / "teamy/levels/A/teamy_A_1.xml", testing::sample_level_xml("result_22.xml"));
  write_file_atomic(dir / "teamy/levels/A/teamy_A_2.xml",
                    "<Level><GameObjects><Block type=\"Nope\"/></GameObjects></Level>");
  write_file_atomic(dir / "teamy/levels/B/teamy_B_1.xml", testing::sample_level_xml("V1_L_1.xml"));
  ThreadPool pool(2);
  const OrderedJson recorded{{"metric", "moving"}};
  const SimulatedFolder first = simulate_folder(dir.path(), SimulateOptions{}, {}, recorded, pool);
  ASSERT_EQ(first.outcomes.size(), 3u);
  EXPECT_EQ(first.levels,
            (std::vector<std::string>{"teamy/levels/A/teamy_A_1.xml", "teamy/levels/A/teamy_A_2.xml",
                                      "teamy/levels/B/teamy_B_1.xml"}));
  EXPECT_TRUE(first.outcomes[0].ok()) << first.outcomes[0].message;
  EXPECT_EQ(first.outcomes[0].key, "teamy/A/teamy_A_1");
  EXPECT_EQ(first.outcomes[0].metadata["score"].get<double>(), 1.0);
  EXPECT_EQ(first.outcomes[1].kind, ErrorKind::kBadInput);
  EXPECT_NE(first.outcomes[1].message.find("Nope"), std::string::npos) << first.outcomes[1].message;
  EXPECT_EQ(first.ran, 3u);
  EXPECT_TRUE(fs::exists(dir / "teamy/stability/A.json"));
  EXPECT_TRUE(fs::exists(dir / "teamy/images/A/teamy_A_1.png"));
  {  // the command's settings are recorded with the run, for `pcglab merge`
    store::RunStore store(dir / "teamy/logs/batch.sqlite");
    EXPECT_EQ(store.run_config("birds simulate").value_or(""), dump_json(recorded));
  }

  const auto summary = stability_by_character(first.outcomes);
  ASSERT_EQ(summary.size(), 2u);
  EXPECT_EQ(summary[0].team, "teamy");
  EXPECT_EQ(summary[0].character, "A");
  EXPECT_EQ(summary[0].levels, 1) << "the failed level is left out";
  EXPECT_EQ(summary[0].mean_stability, 1.0);
  EXPECT_EQ(summary[1].character, "B");

  const SimulatedFolder again = simulate_folder(dir.path(), SimulateOptions{}, {}, recorded, pool);
  EXPECT_EQ(again.reused, 3u) << "a rerun simulates nothing";
  EXPECT_EQ(again.ran, 0u);
}

TEST(SimulateFolder, ALevelFileIsRefusedAsAFolder) {
  testing::TempDir dir;
  fs::create_directories(dir / "x.xml");
  ThreadPool pool(1);
  EXPECT_THROW(simulate_folder(dir / "x.xml", SimulateOptions{}, {}, OrderedJson::object(), pool),
               SetupError);
}

}  // namespace
}  // namespace pcglab::birds
