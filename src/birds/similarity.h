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
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "birds/letters/letter_classifier.h"
#include "core/thread_pool.h"

namespace pcglab::birds {

struct ImageClassification {
  std::string team, character, id;  // id: the image file name, e.g. "team_A_3.png"
  bool ok = false;
  std::string error;
  std::vector<float> probabilities;  // in label order (classifier labels)
  std::vector<float> embedding;      // CLS embedding, when asked for
  double similarity = 0;             // probability of `character`
};

struct ClassifyOptions {
  bool embeddings = false;  // write "cls_embedding" (2025 diversity); needs a ViT
  size_t batch = 64;        // images decoded and classified together
};

// Classifies every image of every team under `dir`, writes the similarity files and
// <team>/logs/classify.json. `on_done` runs once per image.
std::vector<ImageClassification> classify_competition(
    const std::filesystem::path& dir, const LetterClassifier& classifier, const ClassifyOptions& options,
    ThreadPool& pool, const std::function<void(const ImageClassification&)>& on_done = {});

// The official per-character JSON for `images` (all of one team and character).
std::string similarity_json(const std::vector<const ImageClassification*>& images,
                            const LetterClassifier& classifier);

}  // namespace pcglab::birds
