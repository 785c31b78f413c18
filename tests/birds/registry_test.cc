// What birds registers: its letter classifier kinds and its libtorch module (opened and checked), and
// in the pcglab executable its CLI group and verbs with those (`pcglab cli registry`).
#include <gtest/gtest.h>

#include <string>

#include "birds/letters/letter_classifier.h"
#include "birds/torch/table.h"
#include "core/files.h"
#include "core/registry.h"
#include "nn/torch_runtime.h"
#include "testing/testing.h"

namespace pcglab::birds {
namespace {

TEST(BirdsRegistry, LetterClassifierKindsEachMatchTheirSpecsOnly) {
  const auto& r = registry<LetterClassifierKind>();
  EXPECT_EQ(r.names(), "builtin, cnn, judge, vit");
  testing::TempDir dir;
  const std::string file = (dir / "m.safetensors").string();
  write_file_atomic(dir / "m.safetensors", "x");
  for (const auto& [spec, kind] :
       std::vector<std::pair<std::string, std::string>>{{"builtin", "builtin"},
                                                        {"", "builtin"},
                                                        {"judge", "judge"},
                                                        {file, "cnn"},
                                                        {dir.path().string(), "vit"}}) {
    for (const auto* e : r.entries())
      EXPECT_EQ(e->value.matches(spec), e->name == kind) << spec << " " << e->name;
  }
  for (const auto* e : r.entries()) EXPECT_FALSE(e->value.matches("/nonexistent/model")) << e->name;
}

TEST(BirdsRegistry, TheLibtorchModuleIsRegisteredAndItsTableChecks) {
  const auto* module = registry<nn::TorchModuleKind>().find("birds");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(module->value.abi_version, static_cast<uint32_t>(PCGLAB_BIRDS_TORCH_ABI));
  EXPECT_EQ(module->value.table_size, sizeof(PcglabBirdsTorchTable));
  nn::open_registered_torch_modules();
  EXPECT_EQ(nn::torch_module_path("birds").filename(), "libpcglab_birds_torch.so");
}

TEST(BirdsRegistry, TheExecutableListsBirdsVerbsClassifiersAndModule) {
  const auto r = testing::run_pcglab({"cli", "registry", "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* row :
       {"cli-groups,birds,", "cli-verbs,birds eval,", "cli-verbs,birds train-letters,",
        "letter-classifiers,builtin,", "letter-classifiers,cnn,", "letter-classifiers,judge,",
        "letter-classifiers,vit,", "libtorch-modules,birds,libpcglab_birds_torch.so"})
    EXPECT_NE(r.out.find(std::string("\n") + row), std::string::npos) << row << "\n" << r.out;
  // The shared `nn` group names no birds verb (train-letters was there once, as an alias).
  EXPECT_EQ(r.out.find("\ncli-verbs,nn train-letters,"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace pcglab::birds
