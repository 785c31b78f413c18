#include "nn/torch_runtime.h"

#include <gtest/gtest.h>

#include "core/check.h"
#include "testing/testing.h"

namespace pcglab {
namespace {

TEST(TorchRuntime, LoadsTheModuleOnDemand) {
  const nn::TorchInfo info = nn::torch_info();
  EXPECT_EQ(info.version, "1.13.0");
  EXPECT_GE(info.threads, 1);
  EXPECT_EQ(nn::torch_module_path().filename(), "libpcglab_torch.so");
  nn::set_torch_threads(1);
  EXPECT_EQ(nn::torch_info().threads, 1);
}

TEST(TorchRuntime, MissingEntryPointIsASetupError) {
  EXPECT_THROW(nn::torch_symbol("pcglab_no_such_entry_point"), SetupError);
}

// matmul_gflops(n, 0) indexed an empty vector of timings: sizes below 1 are refused as a bug of
// the caller (the CLI's --matmul has a range).
TEST(TorchRuntime, MatmulBenchmarkRefusesZeroSizesAndRepeats) {
  EXPECT_THROW(nn::matmul_gflops(64, 0), CheckError);
  EXPECT_THROW(nn::matmul_gflops(0, 5), CheckError);
  EXPECT_THROW(nn::matmul_gflops(-1, -1), CheckError);
  EXPECT_GT(nn::matmul_gflops(8, 1), 0.0);
}

// The CLI must not pay libtorch's start-up unless a command needs it: pcglab is not linked to it.
TEST(TorchRuntime, CliIsNotLinkedAgainstLibtorch) {
  const auto r = testing::run_program({"/usr/bin/ldd", PCGLAB_CLI});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("libtorch"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("libc10"), std::string::npos) << r.out;
}

TEST(TorchRuntime, NnInfoCommandLoadsIt) {
  const auto r = testing::run_pcglab({"nn", "info", "--format", "jsonl"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"libtorch\":\"1.13.0\""), std::string::npos) << r.out;
}

}  // namespace
}  // namespace pcglab
