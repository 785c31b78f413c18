// Letter classifiers behind one interface: level images in, a probability per label out (and,
// for the ViT, the 768-value CLS embedding the 2025 diversity uses). Images are spread over the
// caller's thread pool; results depend neither on the threads nor on the other images.
//
// Registry (OpenSpiel-style, core/registry.h): a spec names a classifier, and each kind of spec is
// registered (PCGLAB_REGISTER(LetterClassifierKind, ...)) by the file that implements it —
//   "builtin"                  the CNN shipped in models/letters-cnn.safetensors (default)
//   "cnn": a .safetensors file a built-in-format CNN (e.g. one trained by `birds train-letters`)
//   "vit": a folder            a Hugging Face ViTForImageClassification checkpoint
//   "judge"                    the independent judge (letter_judge.h), never used to select
// A new kind is one registration; open_letter_classifier() has no list of kinds.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/error_kind.h"
#include "core/image.h"
#include "core/thread_pool.h"

namespace pcglab::birds {

struct LetterScores {
  std::vector<float> probabilities;  // one per label, in label order (softmax)
  std::vector<float> embedding;      // CLS embedding when asked for and available
  // Why this image failed (probabilities are then 0): its item failure, kind evaluator (the
  // classifier could not score it) or internal (a bug in pcglab); none when it was scored.
  std::optional<ItemFailure> failure;
};

class LetterClassifier {
 public:
  virtual ~LetterClassifier() = default;
  virtual std::string name() const = 0;                        // "builtin", "vit:<folder>", ...
  virtual const std::vector<std::string>& labels() const = 0;  // in output order
  virtual int embedding_size() const { return 0; }

  // Scores of `images`; `embeddings` asks for CLS embeddings (ignored when embedding_size() == 0).
  // Each image is classified alone, with one fixed input shape, so its scores are bit for bit the
  // same whatever other images are in the call, in any order, on any number of threads. Images are
  // spread over `pool` (the caller's --threads; none: the calling thread). Safe to call from many
  // threads at once, and from inside `pool`'s own items. An image that fails is an item error: its
  // `failure` says why, with its kind; only bad setup throws (SetupError).
  std::vector<LetterScores> classify(const std::vector<Image>& images, bool embeddings = false,
                                     ThreadPool* pool = nullptr) const;

  // Index of `label` in labels(), or -1.
  int label_index(const std::string& label) const;

 protected:
  // Scores of one image; must be safe to call concurrently. Throws on failure.
  virtual LetterScores classify_one(const Image& image, bool embeddings) const = 0;
};

// A kind of classifier spec. Exactly one registered kind matches any spec.
struct LetterClassifierKind {
  static constexpr const char* kRegistryKind = "letter-classifiers";
  std::string usage;                         // how a spec names it, for the error of an unknown spec
  bool (*matches)(const std::string& spec);  // whether `spec` names a classifier of this kind
  std::unique_ptr<LetterClassifier> (*open)(const std::string& spec);  // throws SetupError
};

// Opens the classifier named by `spec` (see above). Throws SetupError naming the spec and the fix.
std::unique_ptr<LetterClassifier> open_letter_classifier(const std::string& spec = "builtin");

// Whether `spec` names the independent judge (letter_judge.h), which must never select candidates.
bool is_judge_spec(const std::string& spec);

// Where the shipped built-in weights are: $PCGLAB_MODELS_DIR, then models/ beside or above the
// executable, then the source tree's models/.
std::filesystem::path builtin_letter_model();

// Where a shipped model file is, searched as for builtin_letter_model(); throws SetupError naming
// the file and how to make it.
std::filesystem::path shipped_letter_model(const std::string& file);

// The model file behind a spec ("builtin", "judge", a .safetensors file, a ViT folder), for the
// identity a batch hashes (its size and time); the spec itself when it names no file.
std::filesystem::path letter_model_file(const std::string& spec);

}  // namespace pcglab::birds
