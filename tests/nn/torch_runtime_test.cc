#include "nn/torch_runtime.h"

#include <gtest/gtest.h>

#include "core/check.h"
#include "nn/torch/table.h"
#include "nn/vit.h"
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

std::string table_error(const PcglabTorchTableHeader* header, const std::string& module, uint32_t version,
                        size_t size) {
  try {
    nn::check_torch_table(header, "/x/libpcglab_birds_torch.so", module, version, size);
  } catch (const SetupError& e) {
    return e.what();
  }
  return "no error";
}

// A stale module (another ABI version or table size) is refused before any entry is called, with a
// message naming the library and both versions.
TEST(TorchRuntime, TableOfAnotherVersionOrSizeIsASetupError) {
  const PcglabTorchTableHeader header{3, 64, "birds"};
  EXPECT_EQ(table_error(&header, "birds", 3, 64), "no error");
  EXPECT_EQ(table_error(&header, "birds", 4, 64),
            "/x/libpcglab_birds_torch.so: libtorch table of module 'birds' has ABI version 3 (64 bytes), but "
            "this pcglab was built for ABI version 4 (64 bytes): the module is stale or from another build; "
            "rebuild pcglab with `make`");
  EXPECT_NE(table_error(&header, "birds", 3, 72)
                .find("ABI version 3 (64 bytes), but this pcglab was built for "
                      "ABI version 3 (72 bytes)"),
            std::string::npos);
  EXPECT_NE(table_error(&header, "pcgrl", 3, 64)
                .find("holds the libtorch table of module 'birds', expected 'pcgrl'"),
            std::string::npos);
  EXPECT_NE(table_error(nullptr, "birds", 3, 64).find("table is missing"), std::string::npos);
  // The real module passes its own check, through the same path every caller takes.
  const auto& nn_table = nn::torch_table<PcglabNnTorchTable>("nn", PCGLAB_NN_TORCH_ABI);
  EXPECT_EQ(std::string(nn_table.header.module), "nn");
  EXPECT_EQ(nn_table.header.size, sizeof(PcglabNnTorchTable));
  EXPECT_THROW(nn::torch_module_table("nn", PCGLAB_NN_TORCH_ABI + 1, sizeof(PcglabNnTorchTable)), SetupError);
}

TEST(TorchRuntime, MissingModuleIsASetupErrorNamingItsFile) {
  try {
    nn::torch_module_path("no_such_track");
    FAIL();
  } catch (const SetupError& e) {
    EXPECT_NE(std::string(e.what()).find("libpcglab_no_such_track_torch.so"), std::string::npos) << e.what();
  }
  EXPECT_EQ(nn::torch_module_file("nn"), "libpcglab_torch.so");
  EXPECT_EQ(nn::torch_module_file("birds"), "libpcglab_birds_torch.so");
}

// Opening a ViT and the matmul benchmark leave libtorch's global generator as they found it.
TEST(TorchRuntime, ModelsAndBenchmarkLeaveTheGlobalGeneratorAlone) {
  nn::seed_torch_global_rng(7);
  const double first = nn::draw_torch_global_rng();
  nn::seed_torch_global_rng(7);
  EXPECT_EQ(nn::draw_torch_global_rng(), first);  // the draw itself is seeded
  nn::seed_torch_global_rng(7);
  testing::TempDir dir;
  nn::VitConfig small;
  small.hidden = 16, small.layers = 1, small.heads = 2, small.intermediate = 32, small.image = 16,
  small.patch = 8;
  nn::write_random_vit(dir.path(), small, 1);
  const nn::VitClassifier vit = nn::VitClassifier::load(dir.path());
  std::vector<float> logits;
  const std::vector<float> pixels(3 * 16 * 16, 0.5f);
  vit.forward(pixels.data(), 1, logits);
  EXPECT_GT(nn::matmul_gflops(8, 1), 0.0);
  EXPECT_EQ(nn::draw_torch_global_rng(), first);
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
