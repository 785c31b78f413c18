// `pcglab merge` on a `pcgrl refine` folder: one sequential chain, nothing to merge (exit 2), said
// in those words rather than "no merger".
#include <gtest/gtest.h>

#include "pcgrl/pcgrllm.h"
#include "store/run_store.h"
#include "testing/testing.h"

namespace pcglab {
namespace {

TEST(RefineMerge, MergingARefineFolderSaysThereIsNothingToMerge) {
  testing::TempDir dir;
  {  // the store a refine run leaves: its steps' run and its node files' run
    store::RunStore store(dir / "out/logs/batch.sqlite");
    store.open_run(pcgrl::kRefineRunName, R"({"iterations": 2})");
    store.open_run(pcgrl::kRefineFilesRun, "{}");
  }
  const auto r = testing::run_pcglab({"merge", (dir / "out").string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("nothing to merge"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("one sequential chain"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find((dir / "out").string()), std::string::npos) << "names the folder: " << r.err;
  EXPECT_EQ(r.err.find("has no merger"), std::string::npos) << r.err;
  // merge --help lists only the commands it completes.
  const auto help = testing::run_pcglab({"merge", "--help"});
  EXPECT_EQ(help.out.find("pcgrl refine"), std::string::npos) << help.out;
}

}  // namespace
}  // namespace pcglab
