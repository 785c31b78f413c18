#include "nn/letter_classifier.h"

#include <cstdlib>

#include <fmt/format.h>

#include "core/check.h"
#include "core/thread_pool.h"
#include "nn/letter_cnn.h"
#include "nn/vit.h"
#include "nn/torch_runtime.h"

#ifndef PCGLAB_SOURCE_MODELS_DIR
#define PCGLAB_SOURCE_MODELS_DIR ""
#endif

namespace pcglab::nn {
namespace {

const std::vector<std::string>& letters() {
  static const std::vector<std::string> kLetters = [] {
    std::vector<std::string> v;
    for (char c = 'A'; c <= 'Z'; ++c) v.emplace_back(1, c);
    return v;
  }();
  return kLetters;
}

class BuiltinClassifier : public LetterClassifier {
 public:
  BuiltinClassifier(std::string name, LetterCnn model) : name_(std::move(name)), model_(std::move(model)) {}
  std::string name() const override { return name_; }
  const std::vector<std::string>& labels() const override { return letters(); }
  std::vector<LetterScores> classify(const std::vector<Image>& images, bool) const override {
    std::vector<uint8_t> inputs(images.size() * kLetterPixels);
    auto prepare = [&](size_t i) {
      const auto in = letter_input(images[i]);
      std::copy(in.begin(), in.end(), inputs.begin() + static_cast<std::ptrdiff_t>(i * kLetterPixels));
    };
    if (images.size() >= 64) {
      static ThreadPool pool;  // large batches (birds classify): preprocess on every core
      pool.parallel_for(images.size(), prepare);
    } else {
      for (size_t i = 0; i < images.size(); ++i) prepare(i);
    }
    const auto probs = model_.predict(inputs.data(), images.size());
    std::vector<LetterScores> out(images.size());
    for (size_t i = 0; i < images.size(); ++i) out[i].probabilities.assign(probs[i].begin(), probs[i].end());
    return out;
  }

 private:
  std::string name_;
  LetterCnn model_;
};

class VitLetterClassifier : public LetterClassifier {
 public:
  VitLetterClassifier(std::string name, VitClassifier vit) : name_(std::move(name)), vit_(std::move(vit)) {}
  std::string name() const override { return name_; }
  const std::vector<std::string>& labels() const override { return vit_.config().labels; }
  int embedding_size() const override { return vit_.config().hidden; }
  std::vector<LetterScores> classify(const std::vector<Image>& images, bool embeddings) const override {
    const auto& c = vit_.config();
    constexpr size_t kBatch = 16;
    std::vector<LetterScores> out(images.size());
    for (size_t start = 0; start < images.size(); start += kBatch) {
      const size_t m = std::min(kBatch, images.size() - start);
      std::vector<float> pixels;
      for (size_t i = 0; i < m; ++i) {
        const auto p = vit_pixels(images[start + i], c);
        pixels.insert(pixels.end(), p.begin(), p.end());
      }
      std::vector<float> logits, cls;
      vit_.forward(pixels.data(), m, logits, embeddings ? &cls : nullptr);
      const auto probs = softmax_rows(logits, c.labels.size());
      for (size_t i = 0; i < m; ++i) {
        out[start + i].probabilities.assign(probs.begin() + static_cast<std::ptrdiff_t>(i * c.labels.size()),
                                            probs.begin() + static_cast<std::ptrdiff_t>((i + 1) * c.labels.size()));
        if (embeddings)
          out[start + i].embedding.assign(cls.begin() + static_cast<std::ptrdiff_t>(i * c.hidden),
                                          cls.begin() + static_cast<std::ptrdiff_t>((i + 1) * c.hidden));
      }
    }
    return out;
  }

 private:
  std::string name_;
  VitClassifier vit_;
};

}  // namespace

int LetterClassifier::label_index(const std::string& label) const {
  const auto& l = labels();
  for (size_t i = 0; i < l.size(); ++i)
    if (l[i] == label) return static_cast<int>(i);
  return -1;
}

std::filesystem::path builtin_letter_model() {
  const std::string file = "letters-cnn.safetensors";
  std::vector<std::filesystem::path> candidates;
  if (const char* env = std::getenv("PCGLAB_MODELS_DIR"); env != nullptr && *env != '\0') candidates.emplace_back(env);
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec)
    for (auto dir = exe.parent_path(); !dir.empty() && dir != dir.root_path(); dir = dir.parent_path())
      candidates.push_back(dir / "models");
  if (*PCGLAB_SOURCE_MODELS_DIR != '\0') candidates.emplace_back(PCGLAB_SOURCE_MODELS_DIR);
  for (const auto& dir : candidates)
    if (std::filesystem::exists(dir / file)) return dir / file;
  throw SetupError(fmt::format("the built-in letter classifier ({}) was not found in $PCGLAB_MODELS_DIR, models/ "
                               "beside the executable or the source tree; train it with `pcglab nn train-letters "
                               "--out models/{}` or pass --model PATH",
                               file, file));
}

std::unique_ptr<LetterClassifier> open_letter_classifier(const std::string& spec) {
  if (spec.empty() || spec == "builtin") {
    const auto path = builtin_letter_model();
    return std::make_unique<BuiltinClassifier>("builtin", LetterCnn::load(path));
  }
  const std::filesystem::path path = spec;
  if (!std::filesystem::exists(path))
    throw SetupError(fmt::format("{}: no such classifier: use 'builtin', a .safetensors file from `nn train-letters`, "
                                 "or a Hugging Face ViT checkpoint folder",
                                 spec));
  if (std::filesystem::is_directory(path)) {
    return std::make_unique<VitLetterClassifier>(fmt::format("vit:{}", path.filename().string()), VitClassifier::load(path));
  }
  return std::make_unique<BuiltinClassifier>(fmt::format("cnn:{}", path.filename().string()), LetterCnn::load(path));
}

}  // namespace pcglab::nn
