#include "birds/generator.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>

#include <fmt/format.h>

#include "birds/capture.h"
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

// Upright typefaces (italics lean, and leaning strokes cannot be stacked), rendered on first use.
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
    for (auto& f : find_letter_fonts())
      if (f.style.find("Italic") == std::string::npos && f.style.find("Oblique") == std::string::npos)
        fonts_.push_back(f);
    PCGLAB_CHECK(!fonts_.empty()) << "no upright fonts";
  }
  std::vector<LetterFont> fonts_;
  std::map<size_t, GlyphSet> cache_;
  std::mutex mutex_;
};

struct Candidate {
  std::string font;
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

// Vertical strokes one cell thicker (to the right): a b31 on two cells of a thick stroke stands,
// so one-cell arms (C, E, F, ...) can be built.
std::vector<std::vector<bool>> thicken(std::vector<std::vector<bool>> mask) {
  for (auto& row : mask) {
    const auto original = row;
    for (size_t c = 0; c + 1 < row.size(); ++c)
      if (original[c] && !original[c + 1] && (c == 0 || !original[c - 1])) row[c + 1] = true;
  }
  return mask;
}

}  // namespace

std::vector<std::vector<bool>> fill_under_overhangs(std::vector<std::vector<bool>> mask) {
  // A cell with empty cells below it gets a column down to the next filled cell (or the ground),
  // unless it can be bridged: both horizontal neighbours are filled (a b31 can span one gap).
  const int rows = static_cast<int>(mask.size()), cols = rows ? static_cast<int>(mask[0].size()) : 0;
  for (int r = 1; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      if (!mask[r][c] || mask[r - 1][c]) continue;
      const bool bridged = c > 0 && c + 1 < cols && mask[r][c - 1] && mask[r][c + 1] && mask[r - 1][c - 1] &&
                           mask[r - 1][c + 1];
      if (bridged) continue;
      for (int y = r - 1; y >= 0 && !mask[y][c]; --y) mask[y][c] = true;
    }
  return mask;
}

std::vector<std::pair<DropBlock, int>> plan_drops(const std::vector<std::vector<bool>>& mask, int* dropped) {
  std::vector<std::pair<DropBlock, int>> drops;
  const int rows = static_cast<int>(mask.size()), cols = rows ? static_cast<int>(mask[0].size()) : 0;
  PCGLAB_CHECK(cols <= kGridWidth && rows <= kGridHeight) << "mask larger than the drop grid";
  const int offset = (kGridWidth - cols) / 2;
  std::vector<int> top(cols, 0);  // first free row per column
  int lost = 0;
  auto want = [&](int r, int c) { return c >= 0 && c < cols && mask[r][c] && top[c] <= r; };
  auto supported = [&](int r, int c) { return top[c] == r; };
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      if (!mask[r][c] || top[c] > r) continue;
      // A b31 over c..c+2 lands on row r when its highest column is r; it stands on its centre or
      // on both ends.
      if (want(r, c + 1) && want(r, c + 2) && std::max({top[c], top[c + 1], top[c + 2]}) == r &&
          (supported(r, c + 1) || (supported(r, c) && supported(r, c + 2)))) {
        drops.emplace_back(DropBlock::kB31, offset + c + 1);
        top[c] = top[c + 1] = top[c + 2] = r + 1;
        c += 2;
      } else if (supported(r, c)) {
        // A b13 when the column goes on for two more rows with nothing beside them (a b31 there
        // would need this column's top at that row).
        auto alone = [&](int y) {
          return mask[y][c] && (c == 0 || !mask[y][c - 1]) && (c + 1 == cols || !mask[y][c + 1]);
        };
        const bool column = r + 2 < rows && alone(r + 1) && alone(r + 2);
        drops.emplace_back(column ? DropBlock::kB13 : DropBlock::kB11, offset + c);
        top[c] = r + (column ? 3 : 1);
      } else {
        ++lost;
      }
    }
  }
  if (dropped != nullptr) *dropped = lost;
  return drops;
}

GeneratedTrial generate_trial(char letter, int trial, const LetterClassifier& classifier,
                              const GeneratorOptions& options) {
  PCGLAB_CHECK(letter >= 'A' && letter <= 'Z') << "letter " << letter;
  FontLibrary& fonts = FontLibrary::instance();
  Rng rng(derive_seed(options.seed, static_cast<uint64_t>(letter) * 1000 + static_cast<uint64_t>(trial)));
  std::vector<Candidate> candidates;
  std::vector<StabilityResult> results;
  std::vector<Image> images;
  const int target = classifier.label_index(std::string(1, letter));
  PCGLAB_CHECK(target >= 0) << "classifier has no label " << letter;
  for (int k = 0; k < options.candidates; ++k) {
    const size_t font = rng.below(fonts.size());
    const auto& glyph = fonts.glyphs(font).letters[letter - 'A'];
    Candidate cand;
    cand.font = fonts.font(font).path.filename().string();
    cand.rows = static_cast<int>(rng.between(5, 10));
    const double aspect = static_cast<double>(glyph.width) / glyph.height;
    cand.columns =
        std::clamp(static_cast<int>(std::lround(cand.rows * aspect * rng.uniform(0.45, 1.0))), 3, 15);
    auto mask = quantise(glyph, cand.rows, cand.columns, rng.uniform(0.25, 0.55));
    if (rng.uniform() < 0.3) mask = thicken(std::move(mask));
    if (rng.uniform() < 0.4) mask = fill_under_overhangs(std::move(mask));
    int dropped = 0, wanted = 0;
    for (const auto& row : mask) wanted += static_cast<int>(std::count(row.begin(), row.end(), true));
    const auto drops = plan_drops(mask, &dropped);
    if (drops.empty()) continue;
    cand.fidelity = wanted > 0 ? 1.0 - static_cast<double>(dropped) / wanted : 0.0;
    for (const auto& [type, slot] : drops)
      cand.program += format_drop_call(type, slot, options.function) + "\n";
    try {
      cand.level = convert_program(cand.program, options.function).level;
    } catch (const ItemFailure&) {  // a candidate the official converter refuses: not a candidate
      continue;
    }
    cand.blocks = static_cast<int>(drops.size());
    results.push_back(evaluate_stability(cand.level));
    images.push_back(render_ocr_image(results.back().final_level));
    candidates.push_back(std::move(cand));
  }
  GeneratedTrial out;
  out.letter = letter;
  out.trial = trial;
  if (candidates.empty()) {  // cannot happen for A-Z with the installed fonts; still a valid response
    out.program = format_drop_call(DropBlock::kB11, 10, options.function) + "\n";
  } else {
    const auto scores = classifier.classify(images);
    size_t best = 0;
    double best_key = -1;
    for (size_t i = 0; i < candidates.size(); ++i) {
      const double sim = scores[i].probabilities[target], sta = results[i].score;
      // Stable first; then the letter's probability, discounted by the share of the glyph that
      // could not be built (a few lost cells can leave shapes the classifier misreads confidently).
      const double key = (sta >= 0.999f ? 1.0 : 0.0) + sim * sta * candidates[i].fidelity;
      if (key > best_key) best_key = key, best = i;
    }
    const Candidate& c = candidates[best];
    out.program = c.program;
    out.font = c.font;
    out.rows = c.rows;
    out.columns = c.columns;
    out.blocks = c.blocks;
    out.stability = results[best].score;
    out.similarity = scores[best].probabilities[target];
  }
  out.response = fmt::format(
      "The letter {} as a structure of {} blocks, built from the bottom up (pcglab built-in generator, trial "
      "{}; "
      "shape from the {} typeface):\n\n```python\n{}```\n",
      letter, out.blocks, trial, out.font.empty() ? "fallback" : out.font, out.program);
  return out;
}

namespace {

// A trial's numbers as its outcome's metadata holds them (the program too, so that a reused
// trial is whole again).
OrderedJson trial_metadata(const GeneratedTrial& t) {
  return {{"font", t.font},      {"rows", t.rows},           {"columns", t.columns},
          {"blocks", t.blocks},  {"stability", t.stability}, {"similarity", t.similarity},
          {"program", t.program}};
}

// The trial of a stored outcome; its response read back from `raw` (the driver reused it because
// the file is there).
GeneratedTrial trial_of(char letter, int trial, const ItemOutcome& o, const fs::path& raw) {
  GeneratedTrial t;
  t.letter = letter;
  t.trial = trial;
  t.font = o.metadata.value("font", "");
  t.rows = o.metadata.value("rows", 0);
  t.columns = o.metadata.value("columns", 0);
  t.blocks = o.metadata.value("blocks", 0);
  t.stability = o.metadata.value("stability", 0.0);
  t.similarity = o.metadata.value("similarity", 0.0);
  t.program = o.metadata.value("program", "");
  std::error_code ec;
  if (fs::is_regular_file(raw, ec)) t.response = read_file(raw);
  return t;
}

// logs/generate.json: each trial's numbers (a failed trial: its error), letters in the order given.
OrderedJson generate_log(const std::vector<std::pair<char, int>>& order, const std::vector<size_t>& index,
                         const std::vector<ItemOutcome>& outcomes) {
  std::vector<const ItemOutcome*> by_item(order.size(), nullptr);
  for (size_t k = 0; k < outcomes.size(); ++k) by_item[index[k]] = &outcomes[k];
  OrderedJson log = OrderedJson::array();
  for (size_t i = 0; i < order.size(); ++i) {
    if (by_item[i] == nullptr) continue;
    const ItemOutcome& o = *by_item[i];
    OrderedJson entry = {{"character", std::string(1, order[i].first)}, {"trial", order[i].second}};
    if (!o.ok()) {
      entry["status"] = "error";
      entry["error"] = o.message;
    } else {
      for (const char* field : {"font", "rows", "columns", "blocks", "stability", "similarity"})
        entry[field] = o.metadata[field];
    }
    log.push_back(std::move(entry));
  }
  return log;
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
  const std::string settings = fmt::format("generate {} {} {} {} {}", options.seed, options.candidates,
                                           options.function, classifier.identity(), kVersion);
  batch::StageSpec spec;
  spec.name = "generate";
  spec.output_dirs = {team_dir / "raw"};
  std::vector<std::pair<char, int>> order;  // item i's letter and trial
  for (char letter : unique) {
    for (int t = 1; t <= trials; ++t) {
      const std::string stem = fmt::format("{}_{}_{}", team, letter, t);
      batch::Item item;
      item.key = trial_key(team, std::string(1, letter), stem);
      item.hash = batch::ContentHash().add(settings).add(item.key).hex();
      item.outputs = {team_dir / "raw" / std::string(1, letter) / (stem + ".txt")};
      spec.items.push_back(std::move(item));
      order.emplace_back(letter, t);
    }
  }
  spec.write_log = [&](const std::vector<ItemOutcome>& outcomes) {
    std::map<std::string, size_t> item_of;
    for (size_t i = 0; i < spec.items.size(); ++i) item_of[spec.items[i].key] = i;
    std::vector<size_t> index;
    for (const ItemOutcome& o : outcomes) index.push_back(item_of.at(o.key));
    write_json_file(team_dir / "logs" / "generate.json", generate_log(order, index, outcomes));
    // The classifier's name as the trials recorded it (all have the same: it is in their hash).
    std::string classifier_name;
    for (const ItemOutcome& o : outcomes)
      if (o.ok() && classifier_name.empty()) classifier_name = o.metadata.value("classifier", "");
    if (classifier_name.empty()) classifier_name = classifier.get().name();
    OrderedJson meta = {
        {"model", "pcglab built-in generator (no LLM)"},
        {"prompt", nullptr},
        {"generator",
         {{"seed", options.seed}, {"candidates", options.candidates}, {"classifier", classifier_name}}},
        {"letters", unique},
        {"trials", trials}};
    write_json_file(team_dir / "run.json", meta);
  };
  GenerateRun run;
  run.stage = driver.run(spec, [&](size_t i) {
    const LetterClassifier& model = classifier.get();
    const GeneratedTrial t = generate_trial(order[i].first, order[i].second, model, options);
    try {
      write_file_atomic(spec.items[i].outputs[0], t.response);
    } catch (const SetupError& e) {  // a file that cannot be written: this trial's error
      return ItemOutcome::failure("", ErrorKind::kIo, e.what());
    }
    OrderedJson metadata = trial_metadata(t);
    metadata["classifier"] = model.name();
    return ItemOutcome::success("", std::move(metadata));
  });
  std::vector<size_t> sorted(run.stage.outcomes.size());
  for (size_t k = 0; k < sorted.size(); ++k) sorted[k] = k;
  std::sort(sorted.begin(), sorted.end(),
            [&](size_t a, size_t b) { return run.stage.item_index[a] < run.stage.item_index[b]; });
  for (size_t k : sorted) {
    const size_t i = run.stage.item_index[k];
    if (run.stage.outcomes[k].ok())
      run.trials.push_back(
          trial_of(order[i].first, order[i].second, run.stage.outcomes[k], spec.items[i].outputs[0]));
  }
  return run;
}

}  // namespace pcglab::birds
