#include "birds/letters/letter_classifier.h"

#include <cstdlib>

#include <fmt/format.h>

#include "birds/letters/letter_cnn.h"
#include "core/check.h"
#include "core/item_boundary.h"
#include "core/registry.h"
#include "nn/torch_runtime.h"
#include "nn/vit.h"

#ifndef PCGLAB_SOURCE_MODELS_DIR
#define PCGLAB_SOURCE_MODELS_DIR ""
#endif

namespace pcglab::birds {
using nn::softmax_rows;
using nn::vit_pixels;
using nn::VitClassifier;
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

 protected:
  LetterScores classify_one(const Image& image, bool) const override {
    const auto input = letter_input(image);
    const auto probs = model_.predict(input.data(), 1);
    LetterScores out;
    out.probabilities.assign(probs[0].begin(), probs[0].end());
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

 protected:
  LetterScores classify_one(const Image& image, bool embeddings) const override {
    const auto& c = vit_.config();
    const auto pixels = vit_pixels(image, c);
    std::vector<float> logits, cls;
    vit_.forward(pixels.data(), 1, logits, embeddings ? &cls : nullptr);
    LetterScores out;
    out.probabilities = softmax_rows(logits, c.labels.size());
    if (embeddings) out.embedding = std::move(cls);
    return out;
  }

 private:
  std::string name_;
  VitClassifier vit_;
};

}  // namespace

std::vector<LetterScores> LetterClassifier::classify(const std::vector<Image>& images, bool embeddings,
                                                     ThreadPool* pool) const {
  std::vector<LetterScores> out(images.size());
  const auto one = [&](size_t i) {
    ErrorKind kind = ErrorKind::kEvaluator;  // an ItemFailure's own kind where one is thrown
    auto scores = run_item("", [&] {
      try {
        return classify_one(images[i], embeddings);
      } catch (const ItemFailure& e) {
        kind = e.kind();
        throw;
      }
    });
    if (scores.ok()) {
      out[i] = std::move(scores).value();
    } else {
      out[i].probabilities.assign(labels().size(), 0.0f);
      out[i].failure.emplace(scores.error().internal ? ErrorKind::kInternal : kind, scores.error().message);
    }
  };
  if (pool != nullptr) {
    pool->parallel_for(images.size(), one);
  } else {
    for (size_t i = 0; i < images.size(); ++i) one(i);
  }
  return out;
}

int LetterClassifier::label_index(const std::string& label) const {
  const auto& l = labels();
  for (size_t i = 0; i < l.size(); ++i)
    if (l[i] == label) return static_cast<int>(i);
  return -1;
}

std::filesystem::path builtin_letter_model() {
  return shipped_letter_model("letters-cnn.safetensors");
}

std::filesystem::path letter_model_file(const std::string& spec) {
  if (spec == "builtin") return builtin_letter_model();
  if (is_judge_spec(spec)) return shipped_letter_model("letters-judge.safetensors");
  std::error_code ec;
  if (std::filesystem::is_directory(spec, ec)) return std::filesystem::path(spec) / "model.safetensors";
  return spec;
}

std::filesystem::path shipped_letter_model(const std::string& file) {
  std::vector<std::filesystem::path> candidates;
  if (const char* env = std::getenv("PCGLAB_MODELS_DIR"); env != nullptr && *env != '\0')
    candidates.emplace_back(env);
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec)
    for (auto dir = exe.parent_path(); !dir.empty() && dir != dir.root_path(); dir = dir.parent_path())
      candidates.push_back(dir / "models");
  if (*PCGLAB_SOURCE_MODELS_DIR != '\0') candidates.emplace_back(PCGLAB_SOURCE_MODELS_DIR);
  for (const auto& dir : candidates)
    if (std::filesystem::exists(dir / file)) return dir / file;
  throw SetupError(
      fmt::format("the letter classifier {} was not found in $PCGLAB_MODELS_DIR, models/ "
                  "beside the executable or the source tree; train it with `pcglab birds train-letters{} "
                  "--out models/{}` or pass --model PATH",
                  file, file == "letters-judge.safetensors" ? " --arch judge" : "", file));
}

std::unique_ptr<LetterClassifier> open_letter_classifier(const std::string& spec) {
  const auto kinds = registry<LetterClassifierKind>().entries();
  const LetterClassifierKind* found = nullptr;
  for (const auto* kind : kinds) {
    if (!kind->value.matches(spec)) continue;
    PCGLAB_CHECK(found == nullptr) << "classifier spec '" << spec << "' matches two registered kinds";
    found = &kind->value;
  }
  if (found != nullptr) return found->open(spec);
  std::string usage;
  for (size_t i = 0; i < kinds.size(); ++i)
    usage += fmt::format("{}{}", i == 0 ? "" : i + 1 == kinds.size() ? ", or " : ", ", kinds[i]->value.usage);
  throw SetupError(fmt::format("{}: no such classifier: use {}", spec, usage));
}

namespace {

bool is_builtin_spec(const std::string& spec) {
  return spec.empty() || spec == "builtin";
}

bool is_named_spec(const std::string& spec) {  // a kind's own name, never a path
  return is_builtin_spec(spec) || is_judge_spec(spec);
}

bool is_cnn_file(const std::string& spec) {
  std::error_code ec;
  return !is_named_spec(spec) && std::filesystem::exists(spec, ec) &&
         !std::filesystem::is_directory(spec, ec);
}

bool is_vit_folder(const std::string& spec) {
  std::error_code ec;
  return !is_named_spec(spec) && std::filesystem::is_directory(spec, ec);
}

std::unique_ptr<LetterClassifier> open_builtin(const std::string&) {
  return std::make_unique<BuiltinClassifier>("builtin", LetterCnn::load(builtin_letter_model()));
}

std::unique_ptr<LetterClassifier> open_cnn(const std::string& spec) {
  const std::filesystem::path path = spec;
  return std::make_unique<BuiltinClassifier>(fmt::format("cnn:{}", path.filename().string()),
                                             LetterCnn::load(path));
}

std::unique_ptr<LetterClassifier> open_vit(const std::string& spec) {
  const std::filesystem::path path = spec;
  return std::make_unique<VitLetterClassifier>(fmt::format("vit:{}", path.filename().string()),
                                               VitClassifier::load(path));
}

}  // namespace

// Sorted by name, so the usage reads: 'builtin', a .safetensors file ..., or a ... folder.
PCGLAB_REGISTER(LetterClassifierKind, "builtin",
                "the CNN shipped in models/letters-cnn.safetensors (default)",
                LetterClassifierKind{"'builtin'", is_builtin_spec, open_builtin});
PCGLAB_REGISTER(LetterClassifierKind, "cnn", "a built-in-format CNN .safetensors file (birds train-letters)",
                LetterClassifierKind{"a .safetensors file from `birds train-letters`", is_cnn_file,
                                     open_cnn});
PCGLAB_REGISTER(LetterClassifierKind, "vit", "a Hugging Face ViTForImageClassification checkpoint folder",
                LetterClassifierKind{"a Hugging Face ViT checkpoint folder", is_vit_folder, open_vit});

}  // namespace pcglab::birds
