#include "birds/letters/letter_cnn.h"

#include <chrono>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include <fmt/format.h>

#include "birds/torch/table.h"
#include "core/check.h"
#include "core/rng.h"
#include "nn/module_weights.h"
#include "nn/safetensors.h"
#include "nn/torch_runtime.h"

namespace pcglab::birds {
using nn::export_module_weights;
using nn::load_module_weights;
using nn::read_safetensors;
using nn::SafetensorsFile;
using nn::set_torch_threads;
using nn::torch_table;
using nn::TorchError;
using nn::TorchHandle;
using nn::write_safetensors;
namespace {

const PcglabBirdsTorchTable& table() {
  return torch_table<PcglabBirdsTorchTable>("birds", PCGLAB_BIRDS_TORCH_ABI);
}

constexpr const char* kArchitecture = "pcglab-letter-cnn-v1";

}  // namespace

PCGLAB_REGISTER_TORCH_MODULE("birds", PcglabBirdsTorchTable, PCGLAB_BIRDS_TORCH_ABI,
                             "the built-in letter classifier (a CNN) and its training");

LetterCnn LetterCnn::random(uint64_t seed) {
  LetterCnn m;
  m.handle_ = TorchHandle(table().letter_cnn_create(seed), table().letter_cnn_destroy);
  return m;
}

LetterCnn LetterCnn::load(const std::filesystem::path& path) {
  const SafetensorsFile file = read_safetensors(path);
  auto arch = file.metadata.find("architecture");
  if (arch == file.metadata.end() || arch->second != kArchitecture)
    throw SetupError(
        fmt::format("{}: not a pcglab built-in letter classifier (metadata architecture is not '{}')",
                    path.string(), kArchitecture));
  LetterCnn m = random(0);
  load_module_weights(m.handle_.get(), table().letter_cnn_load, file, path);
  return m;
}

void LetterCnn::save(const std::filesystem::path& path,
                     const std::map<std::string, std::string>& metadata) const {
  const auto tensors = export_module_weights(handle_.get(), table().letter_cnn_export);
  auto meta = metadata;
  meta["architecture"] = kArchitecture;
  meta["input"] =
      fmt::format("{}x{} grey, ink=1, box-filtered level image", kLetterImageSize, kLetterImageSize);
  meta["labels"] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
  write_safetensors(path, tensors, meta);
}

std::vector<LetterProbabilities> LetterCnn::predict(const uint8_t* images, size_t n) const {
  std::vector<LetterProbabilities> out(n);
  auto* fn = table().letter_cnn_predict;
  constexpr size_t kBatch = 256;
  for (size_t start = 0; start < n; start += kBatch) {
    const size_t m = std::min(kBatch, n - start);
    TorchError error;
    if (fn(handle_.get(), images + start * kLetterPixels, static_cast<int64_t>(m), out[start].data(),
           error.text, sizeof error.text) != 0) {
      // The images' failure (the model is fine): an item error for the caller, not bad setup.
      throw std::runtime_error(fmt::format("letter classifier failed: {}", error.text));
    }
  }
  return out;
}

double LetterCnn::train_epoch(const LetterDataset& data, const std::vector<int64_t>& order, int batch,
                              double lr) {
  PCGLAB_CHECK(order.size() <= data.size()) << "order longer than the data";
  TorchError error;
  const double loss = table().letter_cnn_train_epoch(handle_.get(), data.images.data(), data.labels.data(),
                                                     order.data(), static_cast<int64_t>(order.size()), batch,
                                                     lr, error.text, sizeof error.text);
  if (loss < 0) throw std::runtime_error(fmt::format("letter classifier training failed: {}", error.text));
  return loss;
}

double letter_accuracy(const LetterCnn& model, const LetterDataset& data) {
  if (data.size() == 0) return 0;
  const auto probs = model.predict(data);
  size_t correct = 0;
  for (size_t i = 0; i < data.size(); ++i) {
    const auto best = std::max_element(probs[i].begin(), probs[i].end()) - probs[i].begin();
    correct += best == data.labels[i];
  }
  return static_cast<double>(correct) / static_cast<double>(data.size());
}

namespace {

struct Split {
  std::vector<LetterFont> train, test;
};

Split split_fonts(const std::filesystem::path& root) {
  Split s;
  for (auto& f : find_letter_fonts(root)) (is_test_family(f.family) ? s.test : s.train).push_back(f);
  if (s.train.empty() || s.test.empty())
    throw SetupError(fmt::format("{}: need fonts of several families to hold some out", root.string()));
  return s;
}

std::vector<GlyphSet> glyphs(const std::vector<LetterFont>& fonts) {
  std::vector<GlyphSet> out;
  for (const auto& f : fonts) out.push_back(render_glyphs(f));
  return out;
}

// One held-out set from already rendered glyphs; each style has its own seed stream.
LetterDataset test_set(const std::vector<GlyphSet>& test_glyphs, const LetterTrainingConfig& config,
                       LetterStyle style) {
  const uint64_t stream = style == LetterStyle::kBlocks ? 1 : style == LetterStyle::kGlyph ? 2 : 3;
  return make_letter_dataset(test_glyphs, config.test_per_letter, derive_seed(config.seed ^ 0x7e57, stream),
                             style);
}

LetterTestSets test_sets(const std::vector<LetterFont>& fonts, const LetterTrainingConfig& config) {
  const auto rendered = glyphs(fonts);
  return {fonts, test_set(rendered, config, LetterStyle::kBlocks),
          test_set(rendered, config, LetterStyle::kGlyph)};
}

// Correct answers of `model` on `data`, counted per letter; returns the total correct.
size_t tally(const LetterCnn& model, const LetterDataset& data, std::array<size_t, 26>& correct,
             std::array<size_t, 26>& total) {
  const auto probs = model.predict(data);
  size_t all = 0;
  for (size_t i = 0; i < data.size(); ++i) {
    const int label = data.labels[i];
    const bool right = std::max_element(probs[i].begin(), probs[i].end()) - probs[i].begin() == label;
    ++total[label];
    correct[label] += right;
    all += right;
  }
  return all;
}

}  // namespace

LetterTestSets letter_test_sets(const LetterTrainingConfig& config) {
  return test_sets(split_fonts(config.fonts_root).test, config);
}

LetterCnn train_letter_cnn(const LetterTrainingConfig& config, LetterTrainingReport& report,
                           const std::function<void(const LetterTrainingEpoch&)>& on_epoch) {
  const Split split = split_fonts(config.fonts_root);
  report.train_fonts = split.train;
  report.test_fonts = split.test;
  const auto train_glyphs = glyphs(split.train);
  const LetterTestSets tests = test_sets(split.test, config);
  const LetterDataset& test_blocks = tests.blocks;
  const LetterDataset& test_glyphs = tests.glyphs;
  set_torch_threads(config.threads);
  LetterCnn model = LetterCnn::random(config.seed);
  for (int epoch = 0; epoch < config.epochs; ++epoch) {
    const auto start = std::chrono::steady_clock::now();
    const LetterDataset data =
        make_letter_dataset(train_glyphs, config.per_letter, derive_seed(config.seed, 1000 + epoch));
    std::vector<int64_t> order(data.size());
    std::iota(order.begin(), order.end(), 0);
    Rng rng(derive_seed(config.seed, 2000 + epoch));
    for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.below(i)]);
    const double progress = config.epochs > 1 ? static_cast<double>(epoch) / (config.epochs - 1) : 1.0;
    const double lr =
        config.lr / 20 + (config.lr - config.lr / 20) * 0.5 * (1 + std::cos(3.14159265358979 * progress));
    LetterTrainingEpoch e;
    e.epoch = epoch + 1;
    e.lr = lr;
    e.loss = model.train_epoch(data, order, config.batch, lr);
    e.test_accuracy = (letter_accuracy(model, test_blocks) * test_blocks.size() +
                       letter_accuracy(model, test_glyphs) * test_glyphs.size()) /
                      static_cast<double>(test_blocks.size() + test_glyphs.size());
    e.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    report.epochs.push_back(e);
    if (on_epoch) on_epoch(e);
  }
  std::array<size_t, 26> correct{}, total{};
  report.test_accuracy_blocks =
      static_cast<double>(tally(model, test_blocks, correct, total)) / test_blocks.size();
  report.test_accuracy_glyphs =
      static_cast<double>(tally(model, test_glyphs, correct, total)) / test_glyphs.size();
  report.test_accuracy = report.epochs.empty() ? 0 : report.epochs.back().test_accuracy;
  for (int l = 0; l < 26; ++l)
    report.per_letter[l] = total[l] ? static_cast<double>(correct[l]) / total[l] : 0;
  return model;
}

}  // namespace pcglab::birds
