// What pcgrl registers: its libtorch module (opened and checked), and in the pcglab executable its
// CLI group and verbs (`pcglab cli registry`).
#include <gtest/gtest.h>

#include <string>

#include "core/registry.h"
#include "nn/torch_runtime.h"
#include "pcgrl/torch/table.h"
#include "testing/testing.h"

namespace pcglab {
namespace {

TEST(PcgrlRegistry, TheLibtorchModuleIsRegisteredAndItsTableChecks) {
  const auto* module = registry<nn::TorchModuleKind>().find("pcgrl");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(module->value.abi_version, static_cast<uint32_t>(PCGLAB_PCGRL_TORCH_ABI));
  EXPECT_EQ(module->value.table_size, sizeof(PcglabPcgrlTorchTable));
  nn::open_registered_torch_modules();
  EXPECT_EQ(nn::torch_module_path("pcgrl").filename(), "libpcglab_pcgrl_torch.so");
}

TEST(PcgrlRegistry, TheExecutableListsPcgrlVerbsAndModule) {
  const auto r = testing::run_pcglab({"cli", "registry", "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* row :
       {"cli-groups,pcgrl,", "cli-verbs,pcgrl train,", "libtorch-modules,pcgrl,libpcglab_pcgrl_torch.so"})
    EXPECT_NE(r.out.find(std::string("\n") + row), std::string::npos) << row << "\n" << r.out;
}

}  // namespace
}  // namespace pcglab
