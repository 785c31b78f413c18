#include "birds/similarity.h"

#include <algorithm>
#include <functional>
#include <map>

#include <fmt/format.h>

#include "birds/competition_layout.h"
#include "core/check.h"
#include "core/files.h"
#include "core/image.h"
#include "core/item_boundary.h"
#include "core/json.h"

namespace pcglab::birds {
namespace fs = std::filesystem;
namespace {

struct ImageFile {
  std::string team, character, id;
  fs::path path;
};

std::vector<ImageFile> list_images(const fs::path& team_dir) {
  std::vector<ImageFile> out;
  for (const TrialFile& f : list_stage_files(team_dir, "images", ".png")) {
    const std::string name = f.path.filename().string();
    if (name.size() >= 8 && name.compare(name.size() - 8, 8, "_raw.png") == 0) continue;
    out.push_back({f.team, f.character, name, f.path});
  }
  std::stable_sort(out.begin(), out.end(), [](const ImageFile& a, const ImageFile& b) {
    if (a.character != b.character) return a.character < b.character;
    const int ta = trial_number_of(fs::path(a.id).stem().string()),
              tb = trial_number_of(fs::path(b.id).stem().string());
    return ta != tb ? ta < tb : a.id < b.id;
  });
  return out;
}

// Classifies images[i] for i in `which`; the classifier makes each image its own item (an image
// that fails gets its error, the others their scores).
void classify_images(const LetterClassifier& classifier, bool embeddings, std::vector<Image>& images,
                     const std::vector<size_t>& which, ThreadPool& pool,
                     const std::function<void(size_t, Result<LetterScores>)>& done) {
  std::vector<Image> batch;
  for (size_t i : which) batch.push_back(std::move(images[i]));
  auto scores = classifier.classify(batch, embeddings, &pool);
  PCGLAB_CHECK(scores.size() == batch.size())
      << classifier.name() << " returned " << scores.size() << " results for " << batch.size() << " images";
  for (size_t k = 0; k < which.size(); ++k) {
    if (!scores[k].error.empty()) {
      done(which[k], ItemError{"", scores[k].error});
    } else {
      done(which[k], std::move(scores[k]));
    }
  }
}

}  // namespace

std::string similarity_json(const std::vector<const ImageClassification*>& images,
                            const LetterClassifier& classifier) {
  OrderedJson j;
  double sum = 0;
  size_t count = 0;
  OrderedJson trials = OrderedJson::array(), similarities = OrderedJson::array();
  for (const ImageClassification* im : images) {
    if (!im->ok) continue;
    ++count;
    sum += im->similarity;
    OrderedJson raws = OrderedJson::array();
    for (size_t l = 0; l < classifier.labels().size(); ++l)
      raws.push_back(
          {{"id", im->id}, {"label", classifier.labels()[l]}, {"softmax_prob", im->probabilities[l]}});
    OrderedJson entry = {{"id", im->id}, {"raws", std::move(raws)}};
    if (!im->embedding.empty()) entry["cls_embedding"] = im->embedding;
    similarities.push_back(std::move(entry));
    trials.push_back(
        {{"id", im->id}, {"label", im->character}, {"similarity", static_cast<float>(im->similarity)}});
  }
  j["count"] = count;
  j["similarityRate"] = count > 0 ? sum / static_cast<double>(count) : 0.0;
  j["trials"] = std::move(trials);
  j["similarities"] = std::move(similarities);
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::vector<ImageClassification> classify_competition(
    const fs::path& dir, const LetterClassifier& classifier, const ClassifyOptions& options, ThreadPool& pool,
    const std::function<void(const ImageClassification&)>& on_done) {
  if (options.embeddings && classifier.embedding_size() == 0)
    throw SetupError(
        fmt::format("classifier {} has no CLS embedding: the 2025 diversity needs the ViT (--model FOLDER)",
                    classifier.name()));
  std::vector<ImageClassification> all;
  for (const fs::path& team : find_team_folders(dir, "images")) {
    const auto files = list_images(team);
    std::vector<ImageClassification> results(files.size());
    for (size_t start = 0; start < files.size(); start += options.batch) {
      const size_t m = std::min(options.batch, files.size() - start);
      std::vector<Image> images(m);
      pool.parallel_for(m, [&](size_t i) {
        const ImageFile& f = files[start + i];
        ImageClassification& r = results[start + i];
        r.team = f.team, r.character = f.character, r.id = f.id;
        auto image = run_item(f.path.string(), [&]() -> Result<Image> {
          try {
            return read_png(f.path);
          } catch (const InputError& e) {  // unreadable or not a PNG: this image's error
            return ItemError{"", e.what()};
          }
        });
        if (image.ok()) {
          images[i] = std::move(image).value();
        } else {
          r.error = image.error().message;
        }
      });
      std::vector<size_t> where;
      for (size_t i = 0; i < m; ++i)
        if (results[start + i].error.empty()) where.push_back(i);
      classify_images(classifier, options.embeddings, images, where, pool,
                      [&](size_t i, Result<LetterScores> scores) {
                        ImageClassification& r = results[start + i];
                        if (!scores.ok()) {
                          r.error = scores.error().message;
                          return;
                        }
                        r.ok = true;
                        r.probabilities = std::move(scores.value().probabilities);
                        r.embedding = std::move(scores.value().embedding);
                        const int index = classifier.label_index(r.character);
                        r.similarity = index >= 0 ? r.probabilities[index] : 0.0;
                      });
      for (size_t i = 0; i < m; ++i)
        if (on_done) on_done(results[start + i]);
    }
    // One file per character folder; failures in the team's log.
    std::map<std::string, std::vector<const ImageClassification*>> by_character;
    for (const auto& r : results) by_character[r.character].push_back(&r);
    for (const auto& [character, list] : by_character)
      write_file_atomic(team / "similarity" / (character + ".json"), similarity_json(list, classifier));
    OrderedJson log = {
        {"classifier", classifier.name()}, {"images", results.size()}, {"failures", OrderedJson::array()}};
    for (const auto& r : results)
      if (!r.ok) log["failures"].push_back({{"character", r.character}, {"id", r.id}, {"error", r.error}});
    write_json_file(team / "logs" / "classify.json", log);
    all.insert(all.end(), std::make_move_iterator(results.begin()), std::make_move_iterator(results.end()));
  }
  return all;
}

}  // namespace pcglab::birds
