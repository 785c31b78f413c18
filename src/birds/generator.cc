#include "birds/generator.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <mutex>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "birds/capture.h"
#include "birds/grid_faces.h"
#include "birds/letters/letter_data.h"
#include "birds/stability.h"
#include "birds/text_pipeline.h"
#include "core/check.h"
#include "core/files.h"
#include "core/json.h"
#include "core/rng.h"
#include "core/version.h"

namespace pcglab::birds {
namespace fs = std::filesystem;
namespace {

// The generator's typefaces (generator_typefaces(), upright: italics lean, and leaning strokes
// cannot be stacked), rendered on first use.
class FontLibrary {
 public:
  static FontLibrary& instance() {
    static FontLibrary library;
    return library;
  }
  size_t size() const { return fonts_.size(); }
  const LetterFont& font(size_t i) const { return fonts_[i]; }
  const GlyphSet& glyphs(size_t i) {
    std::lock_guard lock(mutex_);
    auto it = cache_.find(i);
    if (it == cache_.end()) it = cache_.emplace(i, render_glyphs(fonts_[i], 64)).first;
    return it->second;
  }

 private:
  FontLibrary() {
    std::map<std::string, LetterFont> found;
    for (auto& f : find_letter_fonts()) found.emplace(f.path.stem().string(), f);
    for (const std::string& name : generator_typefaces()) {
      const auto it = found.find(name);
      if (it != found.end()) fonts_.push_back(it->second);
    }
    if (fonts_.empty())
      throw SetupError(
          "none of the generator's typefaces is installed (DejaVu, Liberation, FreeFont): run "
          "scripts/install-deps.sh");
  }
  std::vector<LetterFont> fonts_;
  std::map<size_t, GlyphSet> cache_;
  std::mutex mutex_;
};

struct Candidate {
  std::string font, variant;
  int rows = 0, columns = 0;
  std::string program;
  int blocks = 0;
  double fidelity = 1;  // cells built / cells of the quantised glyph
  Level level;
};

std::vector<std::vector<bool>> quantise(const GlyphSet::Glyph& g, int rows, int cols, double threshold) {
  std::vector<std::vector<bool>> mask(rows, std::vector<bool>(cols, false));
  const double ch = static_cast<double>(g.height) / rows, cw = static_cast<double>(g.width) / cols;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      double sum = 0;
      int n = 0;
      for (double y = (r + 0.125) * ch; y < (r + 1) * ch; y += ch / 4)
        for (double x = (c + 0.125) * cw; x < (c + 1) * cw; x += cw / 4, ++n) {
          const int ix = std::min(g.width - 1, static_cast<int>(x)),
                    iy = std::min(g.height - 1, static_cast<int>(y));
          sum += g.coverage[static_cast<size_t>(iy) * g.width + ix];
        }
      mask[rows - 1 - r][c] = sum / std::max(n, 1) > threshold;  // row 0 = bottom
    }
  return mask;
}

}  // namespace

std::string shapes_fingerprint(const std::vector<GridFace>& faces, int revision) {
  batch::ContentHash hash;
  hash.add(fmt::format("shapes revision {}", revision));
  for (const GridFace& face : faces) {
    std::string cells = fmt::format("{} {}:", face.letter, face.style);
    for (const auto& row : face.mask) {
      for (bool cell : row) cells += cell ? '#' : '.';
      cells += '/';
    }
    hash.add(cells);
  }
  return hash.hex();
}

std::string generator_shapes_fingerprint() {
  static const std::string fingerprint = shapes_fingerprint(grid_faces(), kGeneratorShapesRevision);
  return fingerprint;
}

std::string generator_shapes_fingerprint(const GeneratorOptions& options) {
  return options.grid_faces ? shapes_fingerprint(*options.grid_faces, kGeneratorShapesRevision)
                            : generator_shapes_fingerprint();
}

const std::vector<std::string>& generator_typefaces() {
  static const std::vector<std::string> kTypefaces = {"DejaVuSans",
                                                      "DejaVuSans-Bold",
                                                      "DejaVuSansCondensed",
                                                      "DejaVuSansCondensed-Bold",
                                                      "DejaVuSansMono",
                                                      "DejaVuSansMono-Bold",
                                                      "DejaVuSerif",
                                                      "DejaVuSerif-Bold",
                                                      "DejaVuSerifCondensed",
                                                      "DejaVuSerifCondensed-Bold",
                                                      "LiberationSans-Regular",
                                                      "LiberationSans-Bold",
                                                      "LiberationSerif-Regular",
                                                      "LiberationSerif-Bold",
                                                      "LiberationMono-Regular",
                                                      "LiberationMono-Bold",
                                                      "FreeSans",
                                                      "FreeSansBold",
                                                      "FreeSerif",
                                                      "FreeSerifBold",
                                                      "FreeMono",
                                                      "FreeMonoBold"};
  return kTypefaces;
}

namespace {

// The candidate's program and block count from its drops.
void set_program(Candidate& cand, const std::vector<std::pair<DropBlock, int>>& drops,
                 const std::string& function) {
  for (const auto& [type, slot] : drops) cand.program += format_drop_call(type, slot, function) + "\n";
  cand.blocks = static_cast<int>(drops.size());
}

// One candidate drawn from `rng`: a typeface, a size, a threshold and stroke variants; empty
// program when nothing of the mask can be built.
Candidate draw_candidate(char letter, Rng& rng, const GeneratorOptions& options) {
  FontLibrary& fonts = FontLibrary::instance();
  const size_t font = rng.below(fonts.size());
  const auto& glyph = fonts.glyphs(font).letters[letter - 'A'];
  Candidate cand;
  cand.font = fonts.font(font).path.filename().string();
  cand.rows = static_cast<int>(rng.between(5, 10));
  const double aspect = static_cast<double>(glyph.width) / glyph.height;
  cand.columns =
      std::clamp(static_cast<int>(std::lround(cand.rows * aspect * rng.uniform(0.45, 1.4))), 3, 15);
  auto mask = quantise(glyph, cand.rows, cand.columns, rng.uniform(0.2, 0.6));
  std::vector<std::string> variants;
  if (rng.uniform() < 0.3) {
    mask = thicken(std::move(mask)), variants.push_back("thick-v");
  } else if (rng.uniform() < 0.3) {  // only the stems that arms hang from
    mask = thicken_where_hanging(std::move(mask)), variants.push_back("thick-stems");
  }
  if (rng.uniform() < 0.2) mask = thicken_rows(std::move(mask)), variants.push_back("thick-h");
  if (rng.uniform() < 0.2) mask = hollow(std::move(mask)), variants.push_back("hollow");
  PlanRules rules;
  rules.stepped = rng.uniform() < 0.5;
  rules.counterweighted = rng.uniform() < 0.5;
  const double under = rng.uniform();
  if (under < 0.25) {
    mask = fill_under_overhangs(std::move(mask)), variants.push_back("filled");
  } else if (under < 0.5) {  // posts every second cell: the b31s between them need the stepped rule
    mask = prop_overhangs(std::move(mask)), variants.push_back("propped"), rules.stepped = true;
  }
  if (rules.stepped) variants.push_back("stepped");
  if (rules.counterweighted) variants.push_back("counterweighted");
  cand.variant = variants.empty() ? "plain" : fmt::format("{}", fmt::join(variants, "+"));
  PlanCount count;
  const auto drops = plan_drops(mask, nullptr, rules, &count);
  if (drops.empty()) return cand;
  cand.fidelity = count.fidelity();
  set_program(cand, drops, options.function);
  return cand;
}

// The letter's grid faces (birds/grid_faces.h) as candidates, a fixed set beside the drawn ones:
// each face as drawn ("plain"), one row taller (a row repeated below or above its middle:
// "tall-low", "tall-high"), two rows taller ("tall-2"), one column wider ("wide") and with feet
// on the ground ("feet"); only forms plan_drops builds whole. The faces: options.faces().
std::vector<Candidate> grid_face_candidates(char letter, const GeneratorOptions& options) {
  std::vector<Candidate> out;
  for (const GridFace& face : options.faces()) {
    if (face.letter != letter || face.mask.empty()) continue;
    const int rows = static_cast<int>(face.mask.size());
    const std::pair<const char*, std::vector<std::vector<bool>>> forms[] = {
        {"plain", face.mask},
        {"tall-low", stretch_rows(face.mask, rows / 3, 1)},
        {"tall-high", stretch_rows(face.mask, (2 * rows) / 3, 1)},
        {"tall-2", stretch_rows(stretch_rows(face.mask, (2 * rows) / 3, 1), rows / 3, 1)},
        {"wide", stretch_column(face.mask, static_cast<int>(face.mask[0].size()) / 2)},
        {"feet", add_feet(face.mask)}};
    for (const auto& [variant, mask] : forms) {
      if (static_cast<int>(mask.size()) > kGridHeight || static_cast<int>(mask[0].size()) > kGridWidth)
        continue;
      int dropped = 0;
      const auto drops = plan_drops(mask, &dropped);
      if (dropped > 0 || drops.empty()) continue;
      Candidate cand;
      cand.font = (options.grid_faces ? "grid-file:" : "grid:") + face.style;  // a user's table: grid-file
      cand.variant = variant;
      cand.rows = static_cast<int>(mask.size());
      cand.columns = static_cast<int>(mask[0].size());
      set_program(cand, drops, options.function);
      out.push_back(std::move(cand));
    }
  }
  return out;
}

// A candidate must stand and keep most of its glyph (a fragment the classifier happens to read as
// the letter is not the letter) to be chosen.
constexpr double kMinFidelity = 0.8;
constexpr double kStanding = 0.999;

GeneratedTrial trial_of_candidate(char letter, int trial, const Candidate& c, double stability,
                                  double similarity, const std::string& function) {
  GeneratedTrial out;
  out.letter = letter;
  out.trial = trial;
  out.program = c.program;
  out.font = c.font;
  out.variant = c.variant;
  out.rows = c.rows;
  out.columns = c.columns;
  out.blocks = c.blocks;
  out.stability = stability;
  out.similarity = similarity;
  if (out.program.empty()) out.program = format_drop_call(DropBlock::kB11, 10, function) + "\n";
  return out;
}

std::string response_of(const GeneratedTrial& t) {
  const bool grid = t.font.rfind("grid:", 0) == 0;            // a grid face (birds/grid_faces.h)
  const bool grid_file = t.font.rfind("grid-file:", 0) == 0;  // ... of a user's table (--grid-faces)
  const std::string source =
      grid        ? fmt::format("pcglab's grid face {}", t.font.substr(5))
      : grid_file ? fmt::format("the grid face {} of a table given to the generator", t.font.substr(10))
                  : fmt::format("the {} typeface", t.font.empty() ? "fallback" : t.font);
  return fmt::format(
      "The letter {} as a structure of {} blocks, built from the bottom up (pcglab built-in generator, trial "
      "{}; shape from {}, {}):\n\n```python\n{}```\n",
      t.letter, t.blocks, t.trial, source, t.variant.empty() ? "plain" : t.variant, t.program);
}

// A letter's candidates and what is known of them. Only candidates that can be chosen are
// evaluated in full: one that keeps too little of its glyph is not simulated, one that falls is
// not classified, unless too few others stand (then every candidate is; the choice is the same).
struct CandidatePool {
  std::vector<Candidate> candidates;  // every distinct program the converter accepts
  std::vector<double> stability;
  std::vector<char> simulated, classified;
  std::vector<std::vector<float>> probabilities;

  CandidatePool(char letter, Rng& rng, const GeneratorOptions& options) {
    std::set<std::string> seen;
    auto add = [&](Candidate cand) {
      if (cand.program.empty() || !seen.insert(cand.program).second) return;
      try {
        cand.level = convert_program(cand.program, options.function).level;
      } catch (const ItemFailure&) {  // a candidate the official converter refuses: not a candidate
        return;
      }
      candidates.push_back(std::move(cand));
    };
    for (int k = 0; k < options.candidates; ++k) add(draw_candidate(letter, rng, options));
    for (Candidate& cand : grid_face_candidates(letter, options)) add(std::move(cand));
    const size_t n = candidates.size();
    stability.assign(n, 0);
    simulated.assign(n, 0);
    classified.assign(n, 0);
    probabilities.resize(n);
  }
  size_t size() const { return candidates.size(); }
  // Faithful and, once simulated, standing.
  bool sound(size_t i) const {
    return candidates[i].fidelity >= kMinFidelity && (!simulated[i] || stability[i] >= kStanding);
  }

  // Simulates (once) and classifies (in one batch) the candidates `wanted` says.
  void evaluate(const std::function<bool(size_t)>& wanted, const LetterClassifier& classifier) {
    std::vector<Image> images;
    std::vector<size_t> which;
    for (size_t i = 0; i < size(); ++i) {
      if (classified[i] || !wanted(i)) continue;
      const StabilityResult result = evaluate_stability(candidates[i].level);
      stability[i] = result.score;
      simulated[i] = 1;
      if (!wanted(i)) continue;
      images.push_back(render_ocr_image(result.final_level));
      which.push_back(i);
    }
    const auto scores = classifier.classify(images);
    for (size_t k = 0; k < which.size(); ++k) {
      probabilities[which[k]] = scores[k].probabilities;
      classified[which[k]] = 1;
    }
  }

  void evaluate_enough(int trials, const LetterClassifier& classifier) {
    evaluate([&](size_t i) { return sound(i); }, classifier);
    int sound_count = 0;
    for (size_t i = 0; i < size(); ++i) sound_count += classified[i] && sound(i) ? 1 : 0;
    if (sound_count < trials) evaluate([](size_t) { return true; }, classifier);
  }

  // The candidates chosen from: standing, faithful, read as the letter with at least
  // `min_trial_similarity`; when fewer than `trials` are, without the similarity condition, then
  // every candidate.
  std::vector<size_t> eligible(int trials, size_t target, double min_trial_similarity) const {
    std::vector<size_t> pool;
    for (int tier = 0; tier < 3 && static_cast<int>(pool.size()) < trials; ++tier) {
      pool.clear();
      for (size_t i = 0; i < size(); ++i) {
        if (!classified[i]) continue;
        const bool standing = stability[i] >= kStanding && candidates[i].fidelity >= kMinFidelity;
        const bool readable = probabilities[i][target] >= min_trial_similarity;
        if (tier == 2 || (standing && (tier == 1 || readable))) pool.push_back(i);
      }
    }
    return pool;
  }
};

Selection choose(const CandidatePool& candidates, const std::vector<size_t>& pool, int trials, size_t target,
                 const GeneratorOptions& options, char letter) {
  if (pool.empty()) return {};
  std::vector<std::vector<double>> vectors;
  std::vector<double> stability;
  for (size_t i : pool) {
    vectors.emplace_back(candidates.probabilities[i].begin(), candidates.probabilities[i].end());
    stability.push_back(candidates.stability[i]);
  }
  SelectionOptions select;
  select.trials = trials;
  select.configured_trials = std::max(trials, 2);
  select.min_similarity = options.min_similarity;
  select.min_diversity = options.min_diversity_for(letter);
  select.similarity_step = options.similarity_step;
  select.relaxed_share = options.reachable_share;
  return TrialSelector(std::move(vectors), std::move(stability), static_cast<int>(target), select).select();
}

}  // namespace

GeneratedLetter generate_letter(char letter, int trials, const LetterClassifier& classifier,
                                const GeneratorOptions& options) {
  PCGLAB_CHECK(letter >= 'A' && letter <= 'Z') << "letter " << letter;
  PCGLAB_CHECK(trials >= 1) << "trials " << trials;
  const int label = classifier.label_index(std::string(1, letter));
  PCGLAB_CHECK(label >= 0) << "classifier has no label " << letter;
  const size_t target = static_cast<size_t>(label);
  Rng rng(derive_seed(options.seed, static_cast<uint64_t>(letter)));
  CandidatePool candidates(letter, rng, options);
  candidates.evaluate_enough(trials, classifier);
  const std::vector<size_t> pool = candidates.eligible(trials, target, options.min_trial_similarity);
  const Selection chosen = choose(candidates, pool, trials, target, options, letter);
  GeneratedLetter out;
  out.letter = letter;
  out.candidates = static_cast<int>(candidates.size());
  out.simulated = static_cast<int>(std::count(candidates.simulated.begin(), candidates.simulated.end(), 1));
  out.eligible = static_cast<int>(pool.size());
  out.sets_evaluated = chosen.sets_evaluated;
  out.diversity = chosen.score.diversity;
  out.objective = chosen.score.objective;
  out.similarity_floor = chosen.similarity_floor;
  out.diversity_target = options.min_diversity_for(letter);
  for (int t = 1; t <= trials; ++t) {
    GeneratedTrial trial;
    if (chosen.chosen.empty()) {  // cannot happen for A-Z with the installed fonts; still a valid response
      trial = trial_of_candidate(letter, t, Candidate{}, 0, 0, options.function);
    } else {
      const size_t i = pool[chosen.chosen[static_cast<size_t>(t - 1)]];
      trial = trial_of_candidate(letter, t, candidates.candidates[i], candidates.stability[i],
                                 candidates.probabilities[i][target], options.function);
    }
    trial.response = response_of(trial);
    out.similarity += trial.similarity;
    out.stability += trial.stability;
    out.trials.push_back(std::move(trial));
  }
  out.similarity /= trials;
  out.stability /= trials;
  return out;
}

namespace {

OrderedJson trial_json(const GeneratedTrial& t) {
  return {
      {"trial", t.trial},     {"font", t.font},     {"variant", t.variant},     {"rows", t.rows},
      {"columns", t.columns}, {"blocks", t.blocks}, {"stability", t.stability}, {"similarity", t.similarity}};
}

// A letter's numbers as its outcome's metadata holds them (the programs too, so that a reused
// letter is whole again).
OrderedJson letter_metadata(const GeneratedLetter& l) {
  OrderedJson trials = OrderedJson::array();
  for (const GeneratedTrial& t : l.trials) {
    OrderedJson j = trial_json(t);
    j["program"] = t.program;
    trials.push_back(std::move(j));
  }
  return {{"candidates", l.candidates},
          {"simulated", l.simulated},
          {"eligible", l.eligible},
          {"sets_evaluated", l.sets_evaluated},
          {"stability", l.stability},
          {"similarity", l.similarity},
          {"diversity", l.diversity},
          {"objective", l.objective},
          {"similarity_floor", l.similarity_floor},
          {"diversity_target", l.diversity_target},
          {"trials", std::move(trials)}};
}

// The letter of a stored outcome; its responses read back from `raw` (the driver reused it because
// the files are there).
GeneratedLetter letter_of(char letter, const ItemOutcome& o, const std::vector<fs::path>& raw) {
  GeneratedLetter l;
  l.letter = letter;
  const auto& m = o.metadata;
  l.candidates = m.value("candidates", 0);
  l.eligible = m.value("eligible", 0);
  l.simulated = m.value("simulated", 0);
  l.sets_evaluated = m.value("sets_evaluated", size_t{0});
  l.stability = m.value("stability", 0.0);
  l.similarity = m.value("similarity", 0.0);
  l.diversity = m.value("diversity", 0.0);
  l.objective = m.value("objective", 0.0);
  l.similarity_floor = m.value("similarity_floor", 0.0);
  l.diversity_target = m.value("diversity_target", 0.0);
  if (!m.contains("trials")) return l;
  for (const auto& j : m["trials"]) {
    GeneratedTrial t;
    t.letter = letter;
    t.trial = j.value("trial", 0);
    t.font = j.value("font", "");
    t.variant = j.value("variant", "");
    t.rows = j.value("rows", 0);
    t.columns = j.value("columns", 0);
    t.blocks = j.value("blocks", 0);
    t.stability = j.value("stability", 0.0);
    t.similarity = j.value("similarity", 0.0);
    t.program = j.value("program", "");
    std::error_code ec;
    if (t.trial >= 1 && static_cast<size_t>(t.trial) <= raw.size() &&
        fs::is_regular_file(raw[static_cast<size_t>(t.trial - 1)], ec))
      t.response = read_file(raw[static_cast<size_t>(t.trial - 1)]);
    l.trials.push_back(std::move(t));
  }
  return l;
}

// logs/generate.json: each letter's numbers and its trials' (a failed letter: its error), letters
// in the order given.
OrderedJson generate_log(const std::string& letters, const std::vector<size_t>& index,
                         const std::vector<ItemOutcome>& outcomes) {
  std::vector<const ItemOutcome*> by_item(letters.size(), nullptr);
  for (size_t k = 0; k < outcomes.size(); ++k) by_item[index[k]] = &outcomes[k];
  OrderedJson log = OrderedJson::array();
  for (size_t i = 0; i < letters.size(); ++i) {
    if (by_item[i] == nullptr) continue;
    const ItemOutcome& o = *by_item[i];
    OrderedJson entry = {{"character", std::string(1, letters[i])}};
    if (!o.ok()) {
      entry["status"] = "error";
      entry["error"] = o.message;
    } else {
      // A field an outcome lacks (stored by another version) is null, never read out of range.
      const auto copy = [](const OrderedJson& from, const char* field) {
        return from.contains(field) ? from[field] : OrderedJson();
      };
      for (const char* field :
           {"candidates", "simulated", "eligible", "sets_evaluated", "stability", "similarity", "diversity",
            "objective", "similarity_floor", "diversity_target"})
        entry[field] = copy(o.metadata, field);
      OrderedJson trials = OrderedJson::array();
      for (const auto& t : copy(o.metadata, "trials")) {
        OrderedJson j;
        for (const char* field :
             {"trial", "font", "variant", "rows", "columns", "blocks", "stability", "similarity"})
          j[field] = copy(t, field);
        trials.push_back(std::move(j));
      }
      entry["trials"] = std::move(trials);
    }
    log.push_back(std::move(entry));
  }
  return log;
}

// The per-letter diversity targets ({} when there are none).
OrderedJson diversity_targets_json(const GeneratorOptions& options) {
  OrderedJson j = OrderedJson::object();
  for (const auto& [letter, target] : options.min_diversity_of_letter) j[std::string(1, letter)] = target;
  return j;
}

}  // namespace

GenerateRun generate_competition(const std::string& letters, int trials, const std::string& team,
                                 const fs::path& team_dir, LazyClassifier& classifier,
                                 const GeneratorOptions& options, ThreadPool& pool,
                                 batch::DriverOptions driver_options) {
  if (trials < 1) throw SetupError("--trials must be at least 1");
  std::string unique;
  for (char c : letters) {
    if (c < 'A' || c > 'Z') throw SetupError(fmt::format("letters must be A-Z, got '{}'", c));
    if (unique.find(c) == std::string::npos) unique += c;
  }
  FontLibrary::instance();  // fonts found once, before the workers start
  batch::Driver driver(team_dir, pool, driver_options);
  // Every setting that changes a letter's choice (its own diversity target is added per letter).
  const std::string settings =
      fmt::format("generate-letter {} {} {} {} {} {} {} {} {} {} {} {}", options.seed, options.candidates,
                  options.min_similarity, options.similarity_step, options.reachable_share,
                  options.min_trial_similarity, trials, options.function, classifier.identity(), kVersion,
                  generator_shapes_fingerprint(options), fmt::join(generator_typefaces(), ","));
  batch::StageSpec spec;
  spec.name = "generate";
  spec.output_dirs = {team_dir / "raw"};
  for (char letter : unique) {
    batch::Item item;
    item.key = fmt::format("{}/{}", team, letter);
    item.hash = batch::ContentHash()
                    .add(settings)
                    .add(item.key)
                    .add(fmt::format("{}", options.min_diversity_for(letter)))
                    .hex();
    for (int t = 1; t <= trials; ++t)
      item.outputs.push_back(team_dir / "raw" / std::string(1, letter) /
                             fmt::format("{}_{}_{}.txt", team, letter, t));
    spec.items.push_back(std::move(item));
  }
  spec.write_log = [&](const std::vector<ItemOutcome>& outcomes) {
    std::map<std::string, size_t> item_of;
    for (size_t i = 0; i < spec.items.size(); ++i) item_of[spec.items[i].key] = i;
    std::vector<size_t> index;
    for (const ItemOutcome& o : outcomes) index.push_back(item_of.at(o.key));
    write_json_file(team_dir / "logs" / "generate.json", generate_log(unique, index, outcomes));
    // The classifier's name as the letters recorded it (all have the same: it is in their hash).
    std::string classifier_name;
    for (const ItemOutcome& o : outcomes)
      if (o.ok() && classifier_name.empty()) classifier_name = o.metadata.value("classifier", "");
    if (classifier_name.empty()) classifier_name = classifier.get().name();
    OrderedJson meta = {{"model", "pcglab built-in generator (no LLM)"},
                        {"prompt", nullptr},
                        {"generator",
                         {{"seed", options.seed},
                          {"candidates_per_letter", options.candidates},
                          {"min_similarity", options.min_similarity},
                          {"min_diversity", options.min_diversity},
                          {"similarity_step", options.similarity_step},
                          {"reachable_share", options.reachable_share},
                          {"min_trial_similarity", options.min_trial_similarity},
                          {"min_diversity_of_letter", diversity_targets_json(options)},
                          {"objective", "diversity x mean(stability x similarity)"},
                          {"classifier", classifier_name}}},
                        {"letters", unique},
                        {"trials", trials}};
    if (options.grid_faces)  // a user's table instead of the built-in one (`--grid-faces`)
      meta["generator"]["grid_faces"] = {{"faces", options.grid_faces->size()},
                                         {"fingerprint", generator_shapes_fingerprint(options)}};
    write_json_file(team_dir / "run.json", meta);
  };
  GenerateRun run;
  run.stage = driver.run(spec, [&](size_t i) {
    const LetterClassifier& model = classifier.get();
    const GeneratedLetter l = generate_letter(unique[i], trials, model, options);
    try {
      for (size_t t = 0; t < l.trials.size(); ++t)
        write_file_atomic(spec.items[i].outputs[t], l.trials[t].response);
    } catch (const SetupError& e) {  // a file that cannot be written: this letter's error
      return ItemOutcome::failure("", ErrorKind::kIo, e.what());
    }
    OrderedJson metadata = letter_metadata(l);
    metadata["classifier"] = model.name();
    return ItemOutcome::success("", std::move(metadata));
  });
  std::vector<size_t> sorted(run.stage.outcomes.size());
  for (size_t k = 0; k < sorted.size(); ++k) sorted[k] = k;
  std::sort(sorted.begin(), sorted.end(),
            [&](size_t a, size_t b) { return run.stage.item_index[a] < run.stage.item_index[b]; });
  for (size_t k : sorted) {
    const size_t i = run.stage.item_index[k];
    if (!run.stage.outcomes[k].ok()) continue;
    run.letters.push_back(letter_of(unique[i], run.stage.outcomes[k], spec.items[i].outputs));
    for (const GeneratedTrial& t : run.letters.back().trials) run.trials.push_back(t);
  }
  return run;
}

}  // namespace pcglab::birds
