// Similarity as the official similarity-checking-script (2024: main.py at 1d20397; 2025 adds the
// CLS embedding): every <team>/images/<C>/*.png except *_raw.png is classified and
// <team>/similarity/<C>.json written as
//   {"count", "similarityRate", "trials": [{"id", "label", "similarity"}],
//    "similarities": [{"id", "raws": [{"id", "label", "softmax_prob"} x 26] [, "cls_embedding"]}]}
// with id = the image's file name (as the official script), similarity = the probability of the
// folder's letter, similarityRate = the mean over the images.
//
// Differences, on purpose: the official script indexes the softmax by ord(letter) - 65, assuming
// labels 0..25 are A..Z; pcglab looks labels up by name in id2label (identical for the official
// model). Images are listed by trial number (the official order is os.walk's, arbitrary). An
// unreadable image is recorded in <team>/logs/classify.json instead of stopping the run, and a
// character with no readable image gets similarityRate 0 (the official script divides by zero).
//
// The classify stage runs on the batch driver (batch/driver.h): each image is one item, keyed like
// its trial and hashed over its bytes, the model (its file's name, size and time) and the options;
// images are classified in batches. The similarity files are rebuilt from every image's stored
// outcome (probabilities, labels, embedding), and the model is opened only when an image must be
// classified, so a rerun with nothing changed loads no network.
#pragma once

#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "batch/driver.h"
#include "batch/item_outcome.h"
#include "birds/letters/letter_classifier.h"

namespace pcglab::birds {

struct ClassifyOptions {
  bool embeddings = false;  // write "cls_embedding" (2025 diversity); needs a ViT
  size_t batch = 64;        // images decoded and classified together
  // Where the stage records and writes: the official classification by default; the independent
  // judge (`birds eval --judge`) is the stage "judge" writing similarity-judge/ and logs/judge.json,
  // so the official files keep their layout.
  std::string stage = "classify";
  std::string folder = "similarity";
  std::string log = "classify.json";
};

// The options of the judge's classification beside the official one.
ClassifyOptions judge_classify_options();

// The classifier named by a spec (birds/letters/letter_classifier.h), opened on first use.
class LazyClassifier {
 public:
  // torch_threads >= 0: libtorch's threads (nn::set_torch_threads), set when it is opened, so
  // that a run that opens no model does not load libtorch (~0.8 s) either.
  explicit LazyClassifier(std::string spec, int torch_threads = -1);
  // The spec with its model file's size and modification time: part of every image's hash.
  const std::string& identity() const { return identity_; }
  const std::string& spec() const { return spec_; }
  // Opens it (once); throws SetupError as open_letter_classifier.
  const LetterClassifier& get();

 private:
  std::string spec_, identity_;
  int torch_threads_ = -1;
  std::mutex mutex_;  // not once_flag: an opening that throws must not block other callers
  std::unique_ptr<LetterClassifier> classifier_;
};

// One classified image, as its outcome's metadata holds it.
struct ImageScores {
  std::string id;         // the image file name, e.g. "team_A_3.png"
  std::string character;  // its folder's letter
  double similarity = 0;  // probability of `character`
  std::vector<std::string> labels;
  std::vector<float> probabilities;  // in label order
  std::vector<float> embedding;      // CLS embedding, when asked for
};
ImageScores image_scores_of(const ItemOutcome& outcome);

// The classify stage over `teams` (the driver's shard of their images). Unsharded, it also
// writes <team>/similarity/<C>.json (removing those of characters with no image left) and
// <team>/logs/classify.json (options.folder and options.log).
batch::StageRun classify_stage(batch::Driver& driver, const std::vector<std::filesystem::path>& teams,
                               LazyClassifier& classifier, const ClassifyOptions& options);

// The official per-character JSON for `images` (the classified images of one team and character).
std::string similarity_json(const std::vector<ImageScores>& images);

}  // namespace pcglab::birds
