// `pcglab birds train-letters`: trains the built-in letter classifier from the
// installed fonts and writes the weights (safetensors), a model card and a sample sheet of the training
// images.
#include <chrono>
#include <memory>
#include <set>

#include <fmt/format.h>

#include "birds/letters/letter_cnn.h"
#include "birds/letters/letter_judge.h"
#include "command.h"
#include "core/files.h"
#include "core/image.h"
#include "core/log.h"
#include "core/version.h"

namespace pcglab::cli {
namespace {

struct TrainLettersOptions {
  std::string arch = "cnn";  // cnn: the built-in (selection) classifier; judge: the independent judge
  birds::LetterTrainingConfig config;
  int hidden = birds::JudgeTrainingConfig{}.hidden;
  std::string out = "models/letters-cnn.safetensors";
};

// The judge's training settings: its own defaults (JudgeTrainingConfig) where the command line
// gave none, so `--arch judge` alone reproduces the shipped judge.
birds::JudgeTrainingConfig judge_config(const TrainLettersOptions& o, const CLI::App& cmd) {
  birds::JudgeTrainingConfig j;
  const auto given = [&](const char* name) { return cmd.get_option(name)->count() > 0; };
  if (given("--seed")) j.seed = o.config.seed;
  if (given("--epochs")) j.epochs = o.config.epochs;
  if (given("--per-letter")) j.per_letter = o.config.per_letter;
  if (given("--test-per-letter")) j.test_per_letter = o.config.test_per_letter;
  if (given("--batch")) j.batch = o.config.batch;
  if (given("--lr")) j.lr = o.config.lr;
  if (given("--train-threads")) j.threads = o.config.threads;
  j.hidden = o.hidden;
  j.fonts_root = o.config.fonts_root;
  return j;
}

std::string judge_card(const birds::JudgeTrainingConfig& c, const std::string& out,
                       const birds::JudgeTrainingReport& r, size_t parameters, double seconds) {
  std::set<std::string> train, test;
  for (const auto& f : r.train_fonts) train.insert(f.family);
  for (const auto& f : r.test_fonts) test.insert(f.family);
  std::string card = fmt::format(
      "# Independent letter judge (`{}`)\n\n"
      "A second A–Z classifier for Science Birds level images, independent of the built-in CNN\n"
      "(`models/letters-cnn.md`) that the built-in generator selects its candidates by: another\n"
      "architecture, input size, training set, rendering and seed. The generator never queries it\n"
      "(tested), so the similarity it reports is not what was optimised. `--model judge` in `birds\n"
      "classify` and `birds eval`; `birds eval --judge judge` writes it beside the official files\n"
      "(docs/birds.md). Written by `pcglab birds train-letters --arch judge` (pcglab {}).\n\n"
      "## Reproduce\n\n```\npcglab birds train-letters --arch judge --seed {} --epochs {} --per-letter {} "
      "--batch {} --lr {} --hidden {} --train-threads {} --out {}\n```\n\n"
      "Same seed and fonts: the same weights, bit for bit, on any number of threads (the gradient is\n"
      "summed in 8 fixed parts, in order; plain C++, no libtorch).\n\n"
      "## Model\n\nInput: the level image box-filtered to 64×64 grey (a 1024² evaluator image averages\n"
      "16×16 pixel blocks). Features: HOG (central-difference gradients, 8×8-pixel cells, 9 unsigned\n"
      "orientation bins with linear interpolation, 2×2-cell blocks with L2-Hys normalisation: 1764\n"
      "values) and the 16×16 ink thumbnail (256 values), standardised with the training set's mean and\n"
      "standard deviation. Dense {}→{}, ReLU; dense {}→26, softmax. {} parameters, float32 safetensors.\n"
      "No convolutions, no pooling, no libtorch.\n\n"
      "## Data\n\nCapitals A–Z of the same Debian font packages as the built-in classifier, split\n"
      "differently (below), and rendered differently: 65% rebuilt on the drop grid's square cells\n"
      "(the block sprites are 0.24 × 0.23 world units: cell aspect 0.9–1.15, 4–16 rows, at most 20\n"
      "columns, 25 samples per cell, coverage threshold 0.25–0.6), solid, or with every cell under a\n"
      "block filled as gravity builds it (25%), or hollow (outline cells only, 15%), with seams of\n"
      "0–12% between blocks; 35% the glyph thresholded at 0.2–0.7, its strokes thinned (1 px) or\n"
      "thickened (2–6 px at 96 px glyph height), stretched 0.75–1.3 horizontally. All framed as the\n"
      "evaluator frames levels (the longer side 824 of 1024, centred), rotated ±3°, scaled 0.9–1,\n"
      "shifted ±1.5 px. Each epoch draws {} fresh images per font and letter.\n\n"
      "## Split\n\nWhole families are held out by another rule than the built-in's\n"
      "(FNV-1a(\"judge/\" + family) % 5 == 0): {} training fonts in {} families, {} test fonts in {}\n"
      "families. The built-in's held-out families are training families here unless this rule holds\n"
      "them out too.\n\nTest families: {}.\n\n",
      out, kVersion, c.seed, c.epochs, c.per_letter, c.batch, c.lr, c.hidden, c.threads, out,
      birds::kJudgeFeatures, c.hidden, c.hidden, parameters, c.per_letter, r.train_fonts.size(), train.size(),
      r.test_fonts.size(), test.size(), fmt::join(test, ", "));
  card += fmt::format(
      "## Accuracy on held-out fonts\n\n{} images ({} per font, letter and style):\n\n"
      "| test set | accuracy |\n|---|---|\n| all | {:.4f} |\n| drop grid | {:.4f} |\n| strokes | {:.4f} |\n\n"
      "Per letter: ",
      2 * r.test_fonts.size() * 26 * c.test_per_letter, c.test_per_letter, r.accuracy.all, r.accuracy.grid,
      r.accuracy.stroke);
  for (int l = 0; l < 26; ++l)
    card += fmt::format("{}{} {:.3f}", l ? ", " : "", static_cast<char>('A' + l), r.accuracy.per_letter[l]);
  card += fmt::format(
      "\n\n## Training\n\nAdam, batch {}, cosine learning rate {} → {}, weight decay {}, label smoothing "
      "0.05, {} epochs, {:.0f} s on this machine ({} training thread(s)).\n\n"
      "| epoch | lr | loss | held-out accuracy | seconds |\n|---|---|---|---|---|\n",
      c.batch, c.lr, c.lr / 20, c.weight_decay, c.epochs, seconds, c.threads);
  for (const auto& e : r.epochs)
    card += fmt::format("| {} | {:.5f} | {:.4f} | {:.4f} | {:.1f} |\n", e.epoch, e.lr, e.loss,
                        e.test_accuracy, e.seconds);
  card +=
      "\n## Limits\n\nTrained on typefaces, not on real LLM levels, like the built-in classifier: both read\n"
      "shapes that are no letter as some letter. Agreement between the two (`birds report`) says how\n"
      "much a similarity depends on the classifier. Less accurate than the built-in CNN on clean\n"
      "glyphs; it is a second opinion, not a better one.\n";
  return card;
}

int train_judge(const TrainLettersOptions& o, const CLI::App& cmd, const GlobalOptions& global) {
  const auto start = std::chrono::steady_clock::now();
  const birds::JudgeTrainingConfig config = judge_config(o, cmd);
  birds::JudgeTrainingReport report;
  const birds::LetterJudge model =
      birds::train_letter_judge(config, report, [&](const birds::JudgeTrainingEpoch& e) {
        log_info("epoch {}/{}: lr {:.5f} loss {:.4f} held-out accuracy {:.4f} ({:.1f} s)", e.epoch,
                 config.epochs, e.lr, e.loss, e.test_accuracy, e.seconds);
      });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::string out = cmd.get_option("--out")->count() > 0 ? o.out : "models/letters-judge.safetensors";
  model.save(out, {{"seed", std::to_string(config.seed)},
                   {"test_accuracy", fmt::format("{:.4f}", report.accuracy.all)}});
  std::filesystem::path card = out;
  card.replace_extension(".md");
  write_file_atomic(card, judge_card(config, out, report, model.parameters(), seconds));
  Table t;
  t.columns = {"weights", "train_fonts", "test_fonts", "test_accuracy", "drop_grid", "strokes", "seconds"};
  t.add_row({out, static_cast<int64_t>(report.train_fonts.size()),
             static_cast<int64_t>(report.test_fonts.size()), report.accuracy.all, report.accuracy.grid,
             report.accuracy.stroke, seconds});
  print_table(t, global);
  return kExitOk;
}

// A 26-column sheet: one row per style, a few held-out fonts each.
Image sample_sheet(const birds::LetterTrainingConfig& config) {
  const birds::LetterTestSets tests = birds::letter_test_sets(config);
  const std::vector<birds::LetterFont>& fonts = tests.fonts;
  const birds::LetterDataset &blocks = tests.blocks, &glyphs = tests.glyphs;
  constexpr int kRows = 6, kCell = birds::kLetterImageSize + 2;
  Image sheet(26 * kCell, kRows * kCell, 1, 255);
  for (int row = 0; row < kRows; ++row) {
    const birds::LetterDataset& set = row % 2 == 0 ? blocks : glyphs;
    const size_t font = (row / 2) * fonts.size() / 3, per = static_cast<size_t>(config.test_per_letter);
    for (int letter = 0; letter < 26; ++letter) {
      const size_t index = (font * 26 + letter) * per;
      for (int y = 0; y < birds::kLetterImageSize; ++y)
        for (int x = 0; x < birds::kLetterImageSize; ++x)
          *sheet.at(letter * kCell + 1 + x, row * kCell + 1 + y) = static_cast<uint8_t>(
              255 - set.images[index * birds::kLetterPixels + y * birds::kLetterImageSize + x]);
    }
  }
  return sheet;
}

std::string model_card(const TrainLettersOptions& o, const birds::LetterTrainingReport& r, double seconds) {
  const auto& c = o.config;
  std::string families_train, families_test;
  std::set<std::string> train, test;
  for (const auto& f : r.train_fonts) train.insert(f.family);
  for (const auto& f : r.test_fonts) test.insert(f.family);
  std::string card = fmt::format(
      "# Built-in letter classifier (`{}`)\n\n"
      "A small CNN that gives the 26 probabilities A–Z for a Science Birds level image. pcglab's default\n"
      "classifier for `birds classify` and `birds eval`; it needs no download. Written by\n"
      "`pcglab birds train-letters` (pcglab {}).\n\n"
      "## Reproduce\n\n```\npcglab birds train-letters --seed {} --epochs {} --per-letter {} --batch {} --lr "
      "{} "
      "--train-threads {} --out {}\n```\n\n"
      "Same seed, same fonts, same libtorch and thread count: the same weights, bit for bit.\n\n"
      "## Model\n\nInput: the level image box-filtered to {}×{} grey, ink = 1 (a 1024² evaluator image\n"
      "averages 32×32 pixel blocks). Conv 5×5 (32) → BN → ReLU → max-pool 2; conv 3×3 (64) → BN → ReLU →\n"
      "max-pool 2; conv 3×3 (128) → BN → ReLU → max-pool 2; dense 2048→256, ReLU, dropout 0.25; dense\n"
      "256→26, softmax. {} parameters, float32 safetensors.\n\n"
      "## Data\n\nCapitals A–Z rendered with FreeType from the Latin TrueType/OpenType fonts of the Debian\n"
      "packages that `scripts/install-deps.sh` installs (fonts-dejavu-core, fonts-liberation2,\n"
      "fonts-freefont-ttf, fonts-urw-base35, fonts-crosextra-carlito/caladea, fonts-open-sans,\n"
      "fonts-roboto-unhinted, fonts-noto-core Latin families; symbol and decorative faces excluded).\n"
      "Each image is framed as the evaluator frames levels (bounding box fitted into 824 of 1024,\n"
      "centred) and augmented: 70% quantised onto a grid of block cells (5–12 rows, cell aspect\n"
      "0.7–2.0, coverage threshold 0.28–0.55, ≤ 20 columns like the drop grid) drawn as block\n"
      "rectangles with jitter; 30% the glyph itself thresholded at a random thickness; all with\n"
      "rotation ±5°, scale 0.94–1, shift ±1 px. Each epoch draws {} fresh images per font and letter.\n\n"
      "## Split\n\nWhole families are held out (FNV-1a(family) % 5 == 0): {} training fonts in {} families,\n"
      "{} test fonts in {} families.\n\nTest families: {}.\n\n",
      o.out, kVersion, c.seed, c.epochs, c.per_letter, c.batch, c.lr, c.threads, o.out,
      birds::kLetterImageSize, birds::kLetterImageSize, "624,858", c.per_letter, r.train_fonts.size(),
      train.size(), r.test_fonts.size(), test.size(), fmt::join(test, ", "));
  card += fmt::format(
      "## Accuracy on held-out fonts\n\n{} images ({} per font, letter and style):\n\n"
      "| test set | accuracy |\n|---|---|\n| all | {:.4f} |\n| block-quantised | {:.4f} |\n| plain glyphs | "
      "{:.4f} |\n\n"
      "Per letter: ",
      2 * r.test_fonts.size() * 26 * c.test_per_letter, c.test_per_letter, r.test_accuracy,
      r.test_accuracy_blocks, r.test_accuracy_glyphs);
  for (int l = 0; l < 26; ++l)
    card += fmt::format("{}{} {:.3f}", l ? ", " : "", static_cast<char>('A' + l), r.per_letter[l]);
  card += fmt::format(
      "\n\n## Training\n\nAdam, batch {}, cosine learning rate {} → {}, label smoothing 0.05, {} epochs, "
      "{:.0f} s on this machine.\n\n| epoch | lr | loss | held-out accuracy | seconds "
      "|\n|---|---|---|---|---|\n",
      c.batch, c.lr, c.lr / 20, c.epochs, seconds);
  for (const auto& e : r.epochs)
    card += fmt::format("| {} | {:.5f} | {:.4f} | {:.4f} | {:.1f} |\n", e.epoch, e.lr, e.loss,
                        e.test_accuracy, e.seconds);
  card +=
      "\n## Limits\n\nTrained on typefaces, not on real LLM levels: an unrecognisable structure still gets "
      "26\n"
      "probabilities that sum to 1, and its similarity is only as meaningful as the official ViT's. The\n"
      "official model (`pittawat/vit-base-uppercase-english-characters`) can be used instead with\n"
      "`--model PATH` when its checkpoint folder is available.\n";
  return card;
}

Action setup_train_letters(CLI::App& cmd, const GlobalOptions& global) {
  auto o = std::make_shared<TrainLettersOptions>();
  cmd.add_option("--arch", o->arch,
                 "cnn: the built-in classifier the generator selects by; judge: the independent judge "
                 "(HOG + MLP, its own defaults for the options not given)")
      ->check(CLI::IsMember({"cnn", "judge"}))
      ->capture_default_str();
  cmd.add_option("--hidden", o->hidden, "--arch judge: hidden units")
      ->check(number_in(1, 4096))
      ->capture_default_str();
  cmd.add_option("--seed", o->config.seed, "Seed of the initial weights, augmentation and order")
      ->check(any_number<uint64_t>())
      ->capture_default_str();
  cmd.add_option("--epochs", o->config.epochs, "Epochs (fresh augmented images each)")
      ->check(number_in(1, 10000))
      ->capture_default_str();
  cmd.add_option("--per-letter", o->config.per_letter, "Training images per font and letter per epoch")
      ->check(number_in(1, 10000))
      ->capture_default_str();
  cmd.add_option("--test-per-letter", o->config.test_per_letter,
                 "Test images per held-out font, letter and style")
      ->check(number_in(1, 10000))
      ->capture_default_str();
  cmd.add_option("--batch", o->config.batch, "Minibatch size")
      ->check(number_in(2, 65536))
      ->capture_default_str();
  cmd.add_option("--lr", o->config.lr, "Peak learning rate (Adam, cosine decay)")
      ->check(number_in(1e-8, 10.0))
      ->capture_default_str();
  cmd.add_option("--train-threads", o->config.threads,
                 "libtorch threads while training (fixed: the weights depend on it)")
      ->check(number_in(1, 1024))
      ->capture_default_str();
  cmd.add_option("--fonts", o->config.fonts_root, "Folder searched for fonts")->capture_default_str();
  cmd.add_option("-o,--out", o->out,
                 "Weights file (.safetensors); the model card and sample sheet go beside it")
      ->capture_default_str();
  return [o, &global, &cmd] {
    if (o->arch == "judge") return train_judge(*o, cmd, global);
    const auto start = std::chrono::steady_clock::now();
    birds::LetterTrainingReport report;
    const birds::LetterCnn model =
        birds::train_letter_cnn(o->config, report, [&](const birds::LetterTrainingEpoch& e) {
          log_info("epoch {}/{}: lr {:.5f} loss {:.4f} held-out accuracy {:.4f} ({:.1f} s)", e.epoch,
                   o->config.epochs, e.lr, e.loss, e.test_accuracy, e.seconds);
        });
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const std::filesystem::path out = o->out;
    model.save(out, {{"seed", std::to_string(o->config.seed)},
                     {"test_accuracy", fmt::format("{:.4f}", report.test_accuracy)}});
    std::filesystem::path card = out, sheet = out;
    card.replace_extension(".md");
    sheet.replace_extension(".samples.png");
    write_file_atomic(card, model_card(*o, report, seconds));
    write_png(sheet, sample_sheet(o->config));
    Table t;
    t.columns = {"weights", "train_fonts", "test_fonts", "test_accuracy", "blocks", "glyphs", "seconds"};
    t.add_row({out.string(), static_cast<int64_t>(report.train_fonts.size()),
               static_cast<int64_t>(report.test_fonts.size()), report.test_accuracy,
               report.test_accuracy_blocks, report.test_accuracy_glyphs, seconds});
    print_table(t, global);
    return kExitOk;
  };
}

}  // namespace

PCGLAB_REGISTER_COMMAND("birds", "train-letters",
                        "Train the built-in A-Z classifier from the installed fonts", setup_train_letters);

}  // namespace pcglab::cli
