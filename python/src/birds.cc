// pcglab.birds: the ChatGPT4PCG evaluators, calling the library functions the CLI verbs call
// (birds check-prompt, extract, convert, simulate, classify, score), with the GIL released while
// they run.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bindings.h"
#include "birds/capture.h"
#include "birds/converter.h"
#include "birds/extract.h"
#include "birds/letters/letter_classifier.h"
#include "birds/level_xml.h"
#include "birds/prompt_check.h"
#include "birds/score_folder.h"
#include "birds/stability.h"
#include "core/thread_pool.h"

namespace pcglab::python {
namespace {
using namespace pcglab::birds;
using namespace pybind11::literals;

// ---- images ---------------------------------------------------------------------------------

// A 2-D (grey) or 3-D (height, width, 1|3|4 channels) uint8 array as an Image; ValueError otherwise.
Image image_of(const py::handle& object, size_t index) {
  const auto array = py::array::ensure(object);
  const char kind = array ? array.dtype().kind() : 'O';
  if (kind != 'u' && kind != 'i' && kind != 'f' && kind != 'b')
    throw py::type_error(fmt::format("image {}: not an array of numbers", index));
  if (array.dtype().kind() != 'u' || array.itemsize() != 1)
    throw py::value_error(
        fmt::format("image {}: dtype {} is not uint8", index, py::str(array.dtype()).cast<std::string>()));
  const auto pixels = py::array_t<uint8_t, py::array::c_style | py::array::forcecast>::ensure(array);
  const int ndim = static_cast<int>(pixels.ndim());
  const int channels = ndim == 3 ? static_cast<int>(pixels.shape(2)) : 1;
  if ((ndim != 2 && ndim != 3) || (channels != 1 && channels != 3 && channels != 4) || pixels.shape(0) < 1 ||
      pixels.shape(1) < 1 || pixels.shape(0) > 1 << 15 || pixels.shape(1) > 1 << 15)
    throw py::value_error(
        fmt::format("image {}: shape {} is not (height, width) or (height, width, 1|3|4) with sides 1..32768",
                    index, py::str(py::tuple(array.attr("shape"))).cast<std::string>()));
  Image image(static_cast<int>(pixels.shape(1)), static_cast<int>(pixels.shape(0)), channels);
  std::memcpy(image.pixels.data(), pixels.data(), image.pixels.size());
  return image;
}

py::array_t<uint8_t> array_of(Image image) {
  std::vector<py::ssize_t> shape{image.height, image.width};
  if (image.channels > 1) shape.push_back(image.channels);
  py::array_t<uint8_t> out(shape);
  std::memcpy(out.mutable_data(), image.pixels.data(), image.pixels.size());
  return out;
}

// The classifiers opened so far, by spec (opening the CNN loads libtorch: once per process).
const LetterClassifier& classifier(const std::string& spec) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<LetterClassifier>> opened;
  std::lock_guard lock(mutex);
  auto& c = opened[spec];
  if (!c) c = open_letter_classifier(spec);
  return *c;
}

// ---- functions ------------------------------------------------------------------------------

std::optional<std::string> extract(const std::string& text, const std::string& function) {
  return without_gil([&] {
    validate_function_name(function);
    return diagnose_extraction(text, function).code;
  });
}

std::string convert(const std::string& code, const std::string& function, const std::string& converter) {
  const ConverterVersion version = parse_argument([&] { return parse_converter_version(converter); });
  return without_gil([&] {
    validate_function_name(function);
    return convert_program(code, function, version).xml;
  });
}

StabilityConfig stability_config(const std::string& metric, double settle_time, bool early_stop) {
  if (metric != "moving" && metric != "remaining")
    throw py::value_error(fmt::format("metric '{}' is not 'moving' or 'remaining'", metric));
  if (!(settle_time >= 0 && settle_time <= 60))
    throw py::value_error(fmt::format("settle_time {} is not in 0..60 seconds", settle_time));
  StabilityConfig config;
  config.metric = metric == "remaining" ? StabilityMetric::kRemaining : StabilityMetric::kMoving;
  config.settle_time = settle_time;
  config.early_stop = early_stop;
  return config;
}

py::tuple simulate(const std::string& level_xml, const std::string& metric, double settle_time,
                   bool early_stop, const std::string& source) {
  const StabilityConfig config = stability_config(metric, settle_time, early_stop);
  auto [score, image] = without_gil([&] {
    const Level level = parse_level_xml(level_xml, source);
    check_simulable(level);
    const StabilityResult result = evaluate_stability(level, config);
    return std::make_pair(result.score, render_ocr_image(result.final_level));
  });
  return py::make_tuple(static_cast<double>(score), array_of(std::move(image)));
}

py::array_t<float> classify(const py::iterable& images, const std::string& model, int threads) {
  if (threads < 1 || threads > 1024)
    throw py::value_error(fmt::format("threads {} is not in 1..1024", threads));
  std::vector<Image> decoded;
  for (const py::handle& image : images) decoded.push_back(image_of(image, decoded.size()));
  const auto [labels, scores] = without_gil([&] {
    const LetterClassifier& c = classifier(model);
    std::unique_ptr<ThreadPool> pool = threads > 1 ? std::make_unique<ThreadPool>(threads) : nullptr;
    return std::make_pair(c.labels().size(), c.classify(decoded, false, pool.get()));
  });
  for (size_t i = 0; i < scores.size(); ++i)
    if (scores[i].failure)
      throw ItemFailure(scores[i].failure->kind(), fmt::format("image {}: {}", i, scores[i].failure->what()));
  py::array_t<float> out({static_cast<py::ssize_t>(scores.size()), static_cast<py::ssize_t>(labels)});
  for (size_t i = 0; i < scores.size(); ++i)
    std::memcpy(out.mutable_data(static_cast<py::ssize_t>(i), 0), scores[i].probabilities.data(),
                labels * sizeof(float));
  return out;
}

std::vector<std::string> labels(const std::string& model) {
  return without_gil([&] { return classifier(model).labels(); });
}

py::dict check(const std::string& text, const py::object& rules) {
  const std::string year = py::str(rules);
  const PromptRules parsed = parse_argument([&] { return parse_prompt_rules(year); });
  const PromptCheck c = without_gil([&] { return check_prompt(text, parsed); });
  py::list violations;
  for (const PromptViolation& v : c.violations) {
    violations.append(py::dict("rule"_a = v.rule, "message"_a = v.message, "line"_a = v.line,
                               "column"_a = v.column, "character"_a = v.character));
  }
  return py::dict("rules"_a = std::string(prompt_rules_name(c.rules)), "word_count"_a = c.word_count,
                  "qualified"_a = c.qualified, "violations"_a = violations, "notes"_a = c.notes);
}

py::dict score(const std::filesystem::path& folder, const std::filesystem::path& out,
               const std::filesystem::path& prompts, const py::object& policy, int trials,
               const std::vector<std::string>& baselines, const std::vector<std::string>& disqualified,
               bool weights) {
  if (trials < 1 || trials > 1000) throw py::value_error(fmt::format("trials {} is not in 1..1000", trials));
  ScoreFolderOptions options;
  options.input = folder;
  options.out = out;
  options.prompts = prompts;
  const std::string year = py::str(policy);
  options.config.policy = parse_argument([&] { return parse_scoring_policy(year); });
  options.config.trials = trials;
  options.config.baselines = baselines;
  options.config.disqualified = disqualified;
  options.config.disable_weights = !weights;
  const ScoredFolder scored = without_gil([&] { return score_folder(options); });
  py::list entries;
  for (const EntryScore& e : scored.result.entries) {
    entries.append(py::dict("rank"_a = e.rank, "team"_a = e.name, "normalized_prompt_score"_a = e.normalized,
                            "prompt_score"_a = e.prompt_score));
  }
  std::vector<std::string> errors;
  for (const ItemFailure& e : scored.result.errors) errors.emplace_back(e.what());
  return py::dict("out"_a = scored.out.string(), "competition_score"_a = scored.result.competition_score,
                  "entries"_a = entries, "errors"_a = errors);
}

}  // namespace

void bind_birds(py::module_& m) {
  m.def("extract", &extract, "text"_a, "function"_a = "drop_block",
        "The official extractCode's output for a response (the drop calls of its last fenced block, "
        "lower-cased), or None where the official function returns null (`pcglab birds extract`).");
  m.def("convert", &convert, "code"_a, "function"_a = "drop_block", "converter"_a = "1.4.1",
        "The official converter's level XML for a program of drop calls (`pcglab birds convert FILE`). "
        "A program it refuses raises ItemFailure (kind 'bad-input') with the official message.");
  m.def("simulate", &simulate, "level_xml"_a, "metric"_a = "moving", "settle_time"_a = 0.0,
        "early_stop"_a = true, "source"_a = "<level>",
        "Simulates a level as the Science Birds evaluator (`pcglab birds simulate`): (stability score, "
        "the 1024x1024 uint8 OCR image of the level after the simulation). `source` names the level in "
        "errors.");
  m.def("classify", &classify, "images"_a, "model"_a = "builtin", "threads"_a = 1,
        "Letter probabilities (float32, images x labels, softmax) of level images: uint8 arrays "
        "(height, width) or (height, width, 1|3|4). `model`: 'builtin', 'cnn:FILE' or 'vit:FOLDER' "
        "(`pcglab birds classify --model`).");
  m.def("labels", &labels, "model"_a = "builtin", "The labels of classify()'s columns, in order.");
  m.def("check_prompt", &check, "text"_a, "rules"_a = 2024,
        "A prompt's qualification check (`pcglab birds check-prompt`): a dict with rules, word_count, "
        "qualified, violations (rule, message, line, column, character) and notes.");
  m.def("score", &score, "folder"_a, "out"_a = std::filesystem::path(), "prompts"_a = std::filesystem::path(),
        "policy"_a = 2024, "trials"_a = 10, "baselines"_a = std::vector<std::string>(),
        "disqualified"_a = std::vector<std::string>(), "weights"_a = true,
        "Scores and ranks a competition folder or a trial_scores.csv and writes the official outputs "
        "(`pcglab birds score`): a dict with out, competition_score, entries (rank, team, "
        "normalized_prompt_score, prompt_score) and errors (values left out).");
}

}  // namespace pcglab::python
