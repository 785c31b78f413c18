#include "birds/similarity.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "birds/competition_layout.h"
#include "birds/text_pipeline.h"
#include "core/check.h"
#include "core/files.h"
#include "core/image.h"
#include "core/item_boundary.h"
#include "core/json.h"
#include "core/version.h"
#include "nn/torch_runtime.h"

namespace pcglab::birds {
namespace fs = std::filesystem;
namespace {

struct ImageFile {
  fs::path team_dir;
  TrialFile file;
};

bool is_raw_view(const fs::path& path) {
  const std::string name = path.filename().string();
  return name.size() >= 8 && name.compare(name.size() - 8, 8, "_raw.png") == 0;
}

std::string model_identity(const std::string& spec) {
  std::error_code ec;
  const fs::path p = letter_model_file(spec);
  return fmt::format("{} {} {}", spec, fs::file_size(p, ec),
                     fs::last_write_time(p, ec).time_since_epoch().count());
}

std::vector<float> floats_of(const OrderedJson& j) {
  std::vector<float> out;
  for (const auto& v : j) out.push_back(static_cast<float>(v.get<double>()));
  return out;
}

OrderedJson doubles_of(const std::vector<float>& v) {
  OrderedJson out = OrderedJson::array();
  for (float x : v) out.push_back(static_cast<double>(x));
  return out;
}

// Reads and classifies the images `which` of `files` (one chunk): each image is its own outcome.
std::vector<ItemOutcome> classify_chunk(const std::vector<ImageFile>& files, const std::vector<size_t>& which,
                                        const LetterClassifier& classifier, const ClassifyOptions& options,
                                        ThreadPool& pool) {
  const size_t m = which.size();
  std::vector<ItemOutcome> out(m);
  std::vector<Image> images(m);
  std::vector<char> readable(m, 0);  // not vector<bool>: its bits share words across threads
  const OrderedJson name = classifier.name();
  pool.parallel_for(m, [&](size_t k) {
    const fs::path& path = files[which[k]].file.path;
    auto image = run_item(path.string(), [&]() -> Result<Image> {
      try {
        return read_png(path);
      } catch (const InputError& e) {  // unreadable or not a PNG: this image's error
        return ItemError{"", e.what()};
      }
    });
    if (image.ok()) {
      images[k] = std::move(image).value();
      readable[k] = 1;
    } else {
      out[k] = ItemOutcome::from_error("", image.error());
      out[k].metadata["classifier"] = name;
    }
  });
  std::vector<Image> batch;
  std::vector<size_t> where;
  for (size_t k = 0; k < m; ++k) {
    if (!readable[k]) continue;
    batch.push_back(std::move(images[k]));
    where.push_back(k);
  }
  auto scores = classifier.classify(batch, options.embeddings, &pool);
  PCGLAB_CHECK(scores.size() == batch.size())
      << classifier.name() << " returned " << scores.size() << " results for " << batch.size() << " images";
  for (size_t b = 0; b < where.size(); ++b) {
    ItemOutcome& o = out[where[b]];
    if (const auto& failed = scores[b].failure) {
      o = ItemOutcome::failure("", failed->kind(), failed->what(), {{"classifier", name}});
      continue;
    }
    const int index = classifier.label_index(files[which[where[b]]].file.character);
    OrderedJson metadata = {
        {"classifier", name},
        {"similarity", index >= 0 ? static_cast<double>(scores[b].probabilities[index]) : 0.0},
        {"labels", classifier.labels()},
        {"probabilities", doubles_of(scores[b].probabilities)}};
    if (!scores[b].embedding.empty()) metadata["embedding"] = doubles_of(scores[b].embedding);
    o = ItemOutcome::success("", std::move(metadata));
  }
  return out;
}

// Per team and character: the similarity file (none for a character with no image left); per
// team: the log with the classifier's name and every failure.
void write_classify_aggregates(const std::map<std::string, fs::path>& team_dirs,
                               const std::vector<ItemOutcome>& outcomes, const std::string& spec,
                               const ClassifyOptions& options) {
  std::map<std::string, std::map<std::string, std::vector<ImageScores>>> by_team;
  std::map<std::string, OrderedJson> failures;
  std::map<std::string, size_t> counts;
  std::string classifier;
  for (const ItemOutcome& o : outcomes) {
    if (classifier.empty() && o.metadata.contains("classifier")) classifier = o.metadata["classifier"];
  }
  if (classifier.empty()) classifier = spec;
  for (const ItemOutcome& o : outcomes) {
    const TrialKey k = parse_trial_key(o.key);
    auto& list = by_team[k.team][k.character];
    ++counts[k.team];
    if (o.ok()) {
      list.push_back(image_scores_of(o));
    } else {
      failures[k.team].push_back({{"character", k.character}, {"id", k.stem + ".png"}, {"error", o.message}});
    }
  }
  for (const auto& [team, dir] : team_dirs) {
    std::set<std::string> written;
    for (const auto& [character, list] : by_team[team]) {
      write_file_if_changed(dir / options.folder / (character + ".json"), similarity_json(list));
      written.insert(character + ".json");
    }
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir / options.folder, ec)) {
      const std::string name = e.path().filename().string();
      if (name.size() == 6 && name[0] >= 'A' && name[0] <= 'Z' && name.ends_with(".json") &&
          !written.count(name))
        fs::remove(e.path(), ec);
    }
    const fs::path log = dir / "logs" / options.log;
    if (counts[team] == 0) {
      fs::remove(log, ec);
      continue;
    }
    OrderedJson j = {{"classifier", classifier},
                     {"images", counts[team]},
                     {"failures", failures.count(team) ? failures[team] : OrderedJson::array()}};
    write_file_if_changed(log, dump_json(j, 2) + "\n");
  }
}

}  // namespace

ClassifyOptions judge_classify_options() {
  ClassifyOptions o;
  o.stage = "judge";
  o.folder = "similarity-judge";
  o.log = "judge.json";
  return o;
}

LazyClassifier::LazyClassifier(std::string spec, int torch_threads)
    : spec_(std::move(spec)), identity_(model_identity(spec_)), torch_threads_(torch_threads) {}

const LetterClassifier& LazyClassifier::get() {
  {
    std::lock_guard lock(mutex_);
    if (classifier_ == nullptr) {
      if (torch_threads_ >= 0) nn::set_torch_threads(torch_threads_);
      classifier_ = open_letter_classifier(spec_);
    }
  }
  PCGLAB_CHECK(classifier_ != nullptr) << "classifier " << spec_ << " not opened";
  return *classifier_;
}

ImageScores image_scores_of(const ItemOutcome& o) {
  const TrialKey k = parse_trial_key(o.key);
  ImageScores s;
  s.id = k.stem + ".png";
  s.character = k.character;
  s.similarity = o.metadata.at("similarity").get<double>();
  s.labels = o.metadata.at("labels").get<std::vector<std::string>>();
  s.probabilities = floats_of(o.metadata.at("probabilities"));
  if (o.metadata.contains("embedding")) s.embedding = floats_of(o.metadata["embedding"]);
  return s;
}

std::string similarity_json(const std::vector<ImageScores>& images) {
  OrderedJson j;
  double sum = 0;
  size_t count = 0;
  OrderedJson trials = OrderedJson::array(), similarities = OrderedJson::array();
  for (const ImageScores& im : images) {
    ++count;
    sum += im.similarity;
    OrderedJson raws = OrderedJson::array();
    for (size_t l = 0; l < im.labels.size(); ++l)
      raws.push_back({{"id", im.id}, {"label", im.labels[l]}, {"softmax_prob", im.probabilities.at(l)}});
    OrderedJson entry = {{"id", im.id}, {"raws", std::move(raws)}};
    if (!im.embedding.empty()) entry["cls_embedding"] = im.embedding;
    similarities.push_back(std::move(entry));
    trials.push_back(
        {{"id", im.id}, {"label", im.character}, {"similarity", static_cast<float>(im.similarity)}});
  }
  j["count"] = count;
  j["similarityRate"] = count > 0 ? sum / static_cast<double>(count) : 0.0;
  j["trials"] = std::move(trials);
  j["similarities"] = std::move(similarities);
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

batch::StageRun classify_stage(batch::Driver& driver, const std::vector<fs::path>& teams,
                               LazyClassifier& classifier, const ClassifyOptions& options) {
  std::vector<ImageFile> files;
  std::map<std::string, fs::path> team_dirs;
  batch::StageSpec spec;
  spec.name = options.stage;
  const std::string settings =
      fmt::format("classify {} {} {}", classifier.identity(), options.embeddings, kVersion);
  for (const fs::path& team : teams) {
    team_dirs[team_name_of(team)] = team;
    spec.output_dirs.push_back(team / options.folder);
    for (TrialFile& f : list_stage_files(team, "images", ".png")) {
      if (is_raw_view(f.path)) continue;
      batch::Item item;
      item.key = trial_key(f.team, f.character, f.stem);
      if (driver.shard().owns(item.key)) {
        try {
          item.hash = batch::ContentHash().add(settings).add(read_file(f.path)).hex();
        } catch (const InputError&) {  // unreadable: always run (it fails, naming why)
        }
      }
      spec.items.push_back(std::move(item));
      files.push_back({team, std::move(f)});
    }
  }
  batch::StageRun run =
      driver.run_chunked(spec, std::max<size_t>(1, options.batch), [&](const std::vector<size_t>& which) {
        const LetterClassifier& c = classifier.get();
        if (options.embeddings && c.embedding_size() == 0)
          throw SetupError(fmt::format(
              "classifier {} has no CLS embedding: the 2025 diversity needs the ViT (--model FOLDER)",
              c.name()));
        return classify_chunk(files, which, c, options, driver.pool());
      });
  if (driver.shard().all()) write_classify_aggregates(team_dirs, run.outcomes, classifier.spec(), options);
  return run;
}

}  // namespace pcglab::birds
