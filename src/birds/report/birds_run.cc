#include "birds/report/birds_run.h"

#include "birds/competition_layout.h"
#include "birds/eval_pipeline.h"
#include "birds/text_pipeline.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "core/check.h"
#include "core/files.h"
#include "core/image.h"
#include "core/json.h"
#include "core/log.h"
#include "core/thread_pool.h"

namespace pcglab::birds {
namespace {
namespace fs = std::filesystem;

// The kind of a conversion failure by its convert.json status.
ErrorKind conversion_error_kind(const std::string& status) {
  if (status == "write-error") return ErrorKind::kIo;
  if (status == "internal-error") return ErrorKind::kInternal;
  return ErrorKind::kBadInput;
}

bool is_dir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

bool is_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

// Sorted names of the sub-folders (or of the files with `extension`, without it) of `dir`.
std::vector<std::string> entries_of(const fs::path& dir, const std::string& extension = "") {
  std::vector<std::string> out;
  std::error_code ec;
  if (!is_dir(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (is_temporary_file(e.path())) continue;
    if (extension.empty() ? e.is_directory(ec)
                          : (e.is_regular_file(ec) && e.path().extension() == extension)) {
      out.push_back(extension.empty() ? e.path().filename().string() : e.path().stem().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// A string as it is; a list of strings joined with ", "; anything else as JSON.
std::string text_of(const Json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_array() && !value.empty() &&
      std::all_of(value.begin(), value.end(), [](const Json& v) { return v.is_string(); })) {
    std::string out;
    for (const Json& v : value) {
      if (!out.empty()) out += ", ";
      out += v.get<std::string>();
    }
    return out;
  }
  return dump_json(value, 2);
}

// A prompt as text: a text prompt as it is; a conversation ({"system": ..., "turns": [...]}, turns
// as text or {"role", "content"}; or a bare list of turns) as its parts with headings; anything
// else as its JSON.
std::string prompt_text(const Json& prompt) {
  if (prompt.is_string()) return prompt.get<std::string>();
  const Json* turns = prompt.is_array() ? &prompt : nullptr;
  if (prompt.is_object() && prompt.contains("turns") && prompt["turns"].is_array()) turns = &prompt["turns"];
  if (turns == nullptr) return dump_json(prompt, 2);
  std::string out;
  if (prompt.is_object() && prompt.contains("system"))
    out += fmt::format("[system]\n{}\n\n", text_of(prompt["system"]));
  int n = 0;
  for (const Json& turn : *turns) {
    const bool message = turn.is_object() && turn.contains("content");
    const std::string role = message && turn.contains("role") ? text_of(turn["role"]) : "user";
    out +=
        fmt::format("[turn {}, {}]\n{}\n\n", ++n, role, message ? text_of(turn["content"]) : text_of(turn));
  }
  return out.size() >= 2 ? out.substr(0, out.size() - 2) : out;
}

// "A-Z", "A,B,C" or "ABC" -> letters.
std::vector<std::string> expand_letters(const std::string& spec) {
  std::vector<std::string> out;
  for (size_t i = 0; i < spec.size(); ++i) {
    const char c = spec[i];
    if (c == ',' || c == ' ') continue;
    if (i + 2 < spec.size() && spec[i + 1] == '-' && c <= spec[i + 2]) {
      for (char x = c; x <= spec[i + 2]; ++x) out.emplace_back(1, x);
      i += 2;
    } else {
      out.emplace_back(1, c);
    }
  }
  return out;
}

// A small CSV reader for the files birds score writes ("quoted","fields", "" inside quotes).
std::vector<std::map<std::string, std::string>> read_csv(const fs::path& path) {
  std::istringstream file(read_file(path));
  std::vector<std::vector<std::string>> rows;
  std::string line;
  while (std::getline(file, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    std::vector<std::string> fields(1);
    bool quoted = false;
    for (size_t i = 0; i < line.size(); ++i) {
      const char c = line[i];
      if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = !quoted;
      } else if (c == ',' && !quoted) {
        fields.emplace_back();
      } else {
        fields.back() += c;
      }
    }
    rows.push_back(std::move(fields));
  }
  std::vector<std::map<std::string, std::string>> out;
  for (size_t r = 1; r < rows.size(); ++r) {
    if (rows[r].size() != rows[0].size()) {
      throw InputError(fmt::format("{}: row {} has {} fields, the header {}", path.string(), r + 1,
                                   rows[r].size(), rows[0].size()));
    }
    std::map<std::string, std::string> row;
    for (size_t i = 0; i < rows[0].size(); ++i) row[rows[0][i]] = rows[r][i];
    out.push_back(std::move(row));
  }
  return out;
}

const std::string& field_of(const std::map<std::string, std::string>& row, const std::string& key,
                            const fs::path& where) {
  const auto it = row.find(key);
  if (it == row.end()) throw InputError(fmt::format("{}: no column \"{}\"", where.string(), key));
  return it->second;
}

double number_of(const std::map<std::string, std::string>& row, const std::string& key,
                 const fs::path& where) {
  const std::string& text = field_of(row, key, where);
  try {
    size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size()) return v;
  } catch (const std::exception&) {
  }
  throw InputError(fmt::format("{}: \"{}\" in column \"{}\" is not a number", where.string(), text, key));
}

std::optional<double> mean_of(const std::vector<double>& values) {
  if (values.empty()) return std::nullopt;
  double sum = 0;
  for (double v : values) sum += v;
  return sum / static_cast<double>(values.size());
}

// One team's letters while reading: letter -> stem -> trial.
class TeamReader {
 public:
  explicit TeamReader(BirdsTeam& team) : team_(team), dir_(team.dir) {}

  void read() {
    read_stored_kinds();
    read_run_info();
    read_raw();
    read_convert_log();
    read_levels_and_simulate_log();
    read_stability();
    read_images();
    read_similarity();
    read_classify_log();
    read_judge_log();
    read_diversity();
  }

  // The trial (created if new) of a letter.
  BirdsTrial& trial(const std::string& letter, const std::string& stem) {
    BirdsTrial& t = letters_[letter].trials[stem];
    if (t.stem.empty()) {
      t.stem = stem;
      t.trial = trial_number_of(stem);  // competition_layout.h
    }
    return t;
  }

  struct LetterState {
    std::map<std::string, BirdsTrial> trials;
    std::optional<double> diversity;
  };
  std::map<std::string, LetterState>& letters() { return letters_; }
  const std::map<std::string, fs::path>& images() const { return images_; }  // "<letter>/<stem>" -> png
  std::vector<ItemOutcome>& failures() { return failures_; }

 private:
  // The kinds of the failures the batch driver's store recorded (table `outcomes` in
  // <team>/logs/batch.sqlite, or a shard's store): a failure's kind as it was made, where a log says
  // only "error". A folder without a store (the official scripts wrote it) keeps the kinds the logs
  // imply.
  void read_stored_kinds() {
    try {
      for (const ItemOutcome& o : recorded_failures(dir_)) {
        const std::string stage = o.metadata.value("stage", "");
        if (stage == "diversity") continue;  // a character's, not a trial's
        const TrialKey k = parse_trial_key(o.key);
        stored_kinds_[fmt::format("{}/{}/{}", stage, k.character, k.stem)] = o.kind;
      }
    } catch (const SetupError& e) {
      log_warn("{}: the run store cannot be read ({}); failure kinds are the logs'", dir_.string(), e.what());
    } catch (const InputError& e) {
      log_warn("{}: the run store cannot be read ({}); failure kinds are the logs'", dir_.string(), e.what());
    }
  }

  // `failure`: what the report calls it; `stage` and `kind`: the stage that failed and how (the
  // stored kind where the run store has one, else `kind`, what the log implies).
  void add_failure(const std::string& letter, const std::string& stem, const std::string& failure,
                   const std::string& reason, const char* stage, ErrorKind kind) {
    if (const auto it = stored_kinds_.find(fmt::format("{}/{}/{}", stage, letter, stem));
        it != stored_kinds_.end())
      kind = it->second;
    BirdsTrial& t = trial(letter, stem);
    if (t.failure.empty()) t.failure = failure;
    failures_.push_back(ItemOutcome::failure(fmt::format("{}/{}/{}", team_.name, letter, stem), kind, reason,
                                             {{"stage", stage},
                                              {"team", team_.name},
                                              {"character", letter},
                                              {"trial", stem},
                                              {"number", t.trial},
                                              {"failure", failure}}));
  }

  void stage(const std::string& name, const std::string& command, bool present) {
    team_.stages.push_back({name, command, present});
  }

  void read_run_info() {
    const fs::path path = dir_ / "run.json";
    if (!is_file(path)) return;
    const Json j = read_json_file(path);
    if (!j.is_object()) throw SetupError(fmt::format("{}: expected a JSON object", path.string()));
    team_.has_run_info = true;
    for (const auto& [key, value] : j.items()) {
      if (key == "prompt") {  // null: no prompt (the built-in generator)
        if (!value.is_null()) team_.prompt = prompt_text(value);
      } else if (key == "model") {
        team_.model = text_of(value);
      } else if (key == "trials") {
        team_.expected_trials = json_field<int>(j, "trials", path.string());
      } else if (key == "letters") {
        if (value.is_string()) {
          for (const std::string& l : expand_letters(value.get<std::string>())) letters_[l];
        } else {
          for (const std::string& l : json_field<std::vector<std::string>>(j, "letters", path.string()))
            letters_[l];
        }
      } else if (!value.is_structured()) {
        team_.run_details.emplace_back(key, text_of(value));
      }
    }
  }

  void read_raw() {
    for (const std::string& letter : entries_of(dir_ / "raw")) {
      letters_[letter];
      for (const std::string& stem : entries_of(dir_ / "raw" / letter, ".txt"))
        trial(letter, stem).has_response = true;
    }
    if (team_.expected_trials <= 0) return;
    for (auto& [letter, state] : letters_) {
      for (int t = 1; t <= team_.expected_trials; ++t) {
        const std::string stem = fmt::format("{}_{}_{}", team_.name, letter, t);
        if (!trial(letter, stem).has_response) {
          add_failure(letter, stem, "no response",
                      fmt::format("run.json expects {} trials; raw/{}/{}.txt is missing",
                                  team_.expected_trials, letter, stem),
                      "run", ErrorKind::kNoOutput);
        }
      }
    }
  }

  void read_convert_log() {
    const fs::path path = dir_ / "logs" / "convert.json";
    stage("convert", "pcglab birds convert", is_file(path));
    if (!is_file(path)) return;
    for (const Json& e : read_json_file(path)) {
      const std::string letter = json_field<std::string>(e, "character", path.string());
      const std::string stem = json_field<std::string>(e, "trial", path.string());
      const std::string status = json_field<std::string>(e, "status", path.string());
      trial(letter, stem);
      if (status == "ok") continue;
      const std::string error = json_field_or<std::string>(e, "error", "", path.string());
      const std::string detail = json_field_or<std::string>(e, "detail", "", path.string());
      const std::string reason = detail.empty() ? error : fmt::format("{} ({})", error, detail);
      if (status == "no-code") {
        add_failure(letter, stem, "no code", reason, "convert", ErrorKind::kNoOutput);
      } else {
        add_failure(letter, stem, "conversion error",
                    status == "conversion-error" ? reason : fmt::format("{}: {}", status, reason), "convert",
                    conversion_error_kind(status));
      }
    }
  }

  void read_levels_and_simulate_log() {
    for (const std::string& letter : entries_of(dir_ / "levels")) {
      for (const std::string& stem : entries_of(dir_ / "levels" / letter, ".xml")) trial(letter, stem);
    }
    const fs::path path = dir_ / "logs" / "simulate.json";
    stage("simulate", "pcglab birds simulate", is_file(path) || is_dir(dir_ / "stability"));
    if (!is_file(path)) return;
    for (const Json& e : read_json_file(path)) {
      const std::string letter = json_field<std::string>(e, "character", path.string());
      const std::string stem = json_field<std::string>(e, "level", path.string());
      trial(letter, stem);
      if (json_field<std::string>(e, "status", path.string()) != "ok") {
        add_failure(letter, stem, "simulation error",
                    json_field_or<std::string>(e, "error", "", path.string()), "simulate",
                    ErrorKind::kBadInput);
      }
    }
  }

  void read_stability() {
    for (const std::string& letter : entries_of(dir_ / "stability", ".json")) {
      const fs::path path = dir_ / "stability" / (letter + ".json");
      for (const Json& raw : json_field<Json>(read_json_file(path), "raws", path.string())) {
        const std::string tag = json_field<std::string>(raw, "tag", path.string());
        // Tags may use the evaluator's Windows separators.
        std::string name =
            tag.substr(tag.find_last_of("/\\") == std::string::npos ? 0 : tag.find_last_of("/\\") + 1);
        name = fs::path(name).stem().string();
        trial(letter, name).stability = json_field<double>(raw, "score", path.string());
      }
    }
  }

  void read_images() {
    stage("images", "pcglab birds simulate", is_dir(dir_ / "images"));
    for (const std::string& letter : entries_of(dir_ / "images")) {
      for (const std::string& stem : entries_of(dir_ / "images" / letter, ".png")) {
        if (stem.size() > 4 && stem.ends_with("_raw")) continue;  // the colour view
        trial(letter, stem);
        images_[fmt::format("{}/{}", letter, stem)] = dir_ / "images" / letter / (stem + ".png");
      }
    }
  }

  // A similarity id is the image's file name in the official script ("team_A_3.png"), the stem in
  // the scoring script's input description: both name the trial "team_A_3".
  static std::string stem_of_id(const std::string& id) {
    return id.size() > 4 && id.ends_with(".png") ? id.substr(0, id.size() - 4) : id;
  }

  void read_similarity() {
    const bool any = read_similarity_folder("similarity", false);
    stage("similarity", "pcglab birds classify", any);
    read_similarity_folder("similarity-judge", true);
  }

  // similarity/ (the official classification) or similarity-judge/ (the independent judge): each
  // trial's similarity, most likely letter and A..Z probabilities. Whether any file was there.
  bool read_similarity_folder(const std::string& folder, bool judge) {
    const auto files = entries_of(dir_ / folder, ".json");
    for (const std::string& letter : files) {
      const fs::path path = dir_ / folder / (letter + ".json");
      const Json j = read_json_file(path);
      for (const Json& t : json_field<Json>(j, "trials", path.string())) {
        BirdsTrial& trial_ = trial(letter, stem_of_id(json_field<std::string>(t, "id", path.string())));
        (judge ? trial_.judge_similarity : trial_.similarity) =
            json_field<double>(t, "similarity", path.string());
      }
      if (!j.contains("similarities")) continue;
      for (const Json& s : json_field<Json>(j, "similarities", path.string())) {
        BirdsTrial& t = trial(letter, stem_of_id(json_field<std::string>(s, "id", path.string())));
        std::string& predicted = judge ? t.judge_predicted : t.predicted;
        double& best = judge ? t.judge_predicted_probability : t.predicted_probability;
        std::vector<double>& probabilities = judge ? t.judge_probabilities : t.probabilities;
        probabilities.assign(26, 0.0);
        for (const Json& r : json_field<Json>(s, "raws", path.string())) {
          const double p = json_field<double>(r, "softmax_prob", path.string());
          const std::string label = json_field<std::string>(r, "label", path.string());
          if (label.size() == 1 && label[0] >= 'A' && label[0] <= 'Z') probabilities[label[0] - 'A'] = p;
          if (predicted.empty() || p > best) {
            predicted = label;
            best = p;
          }
        }
      }
    }
    return !files.empty();
  }

  // <team>/logs/judge.json (birds eval --judge): {"classifier", ...}.
  void read_judge_log() {
    const fs::path path = dir_ / "logs" / "judge.json";
    if (!is_file(path)) return;
    const std::string judge =
        json_field_or<std::string>(read_json_file(path), "classifier", "", path.string());
    if (!judge.empty()) team_.run_details.emplace_back("judge", judge);
  }

  // <team>/logs/classify.json (birds classify): {"classifier", "images", "failures": [{character, id,
  // error}]}.
  void read_classify_log() {
    const fs::path path = dir_ / "logs" / "classify.json";
    if (!is_file(path)) return;
    const Json j = read_json_file(path);
    const std::string classifier = json_field_or<std::string>(j, "classifier", "", path.string());
    if (!classifier.empty()) team_.run_details.emplace_back("classifier", classifier);
    for (const Json& f : json_field_or<Json>(j, "failures", Json::array(), path.string())) {
      add_failure(json_field<std::string>(f, "character", path.string()),
                  stem_of_id(json_field<std::string>(f, "id", path.string())), "classification error",
                  json_field_or<std::string>(f, "error", "", path.string()), "classify",
                  ErrorKind::kEvaluator);
    }
  }

  void read_diversity() {
    const auto files = entries_of(dir_ / "diversity", ".json");
    stage("diversity", "pcglab birds diversity", !files.empty());
    for (const std::string& letter : files) {
      const fs::path path = dir_ / "diversity" / (letter + ".json");
      letters_[letter].diversity = json_field<double>(read_json_file(path), "diversityRate", path.string());
    }
  }

  BirdsTeam& team_;
  fs::path dir_;
  std::map<std::string, LetterState> letters_;
  std::map<std::string, fs::path> images_;
  std::vector<ItemOutcome> failures_;
  std::map<std::string, ErrorKind> stored_kinds_;  // "<stage>/<letter>/<stem>" -> the stored kind
};

// The scores birds score wrote, for every team: trial, character and prompt scores.
struct Scores {
  std::map<std::tuple<std::string, std::string, int>, double> trials;
  std::map<std::pair<std::string, std::string>, double> characters;
  struct Entry {
    double prompt = 0, normalized = 0;
    int rank = 0;
  };
  std::map<std::string, Entry> entries;
};

Scores read_scores(const fs::path& dir) {
  Scores s;
  if (dir.empty()) return s;
  const fs::path trials = dir / "trial_scores.csv";
  if (is_file(trials)) {
    const auto rows = read_csv(trials);
    for (size_t i = 0; i < rows.size(); ++i) {
      const auto& row = rows[i];
      // A trial number is an integer >= 1 (static_cast<int> of 1e10 or NaN was undefined, and 2.5
      // was read as trial 2): another value is this row's error, and the row is left out.
      const double trial = number_of(row, "trial", trials);
      if (!(trial >= 1 && trial <= std::numeric_limits<int>::max() && trial == std::floor(trial))) {
        log_warn("{}: row {}: \"trial\" is \"{}\", expected a trial number (1, 2, ...): row left out",
                 trials.string(), i + 2, field_of(row, "trial", trials));
        continue;
      }
      s.trials[{field_of(row, "teamName", trials), field_of(row, "character", trials),
                static_cast<int>(trial)}] = number_of(row, "trial_score", trials);
    }
  }
  const fs::path chars = dir / "character_scores.csv";
  if (is_file(chars)) {
    for (const auto& row : read_csv(chars)) {
      s.characters[{field_of(row, "teamName", chars), field_of(row, "character", chars)}] =
          number_of(row, "characterScore", chars);
    }
  }
  const fs::path result = dir / "result.json";
  if (is_file(result)) {
    for (const Json& e : read_json_file(result)) {
      s.entries[json_field<std::string>(e, "teamName", result.string())] = {
          json_field<double>(e, "promptScore", result.string()),
          json_field<double>(e, "normalizedPromptScore", result.string()),
          json_field<int>(e, "rank", result.string())};
    }
  }
  return s;
}

bool has_scores(const fs::path& dir) {
  return is_file(dir / "result.json") || is_file(dir / "character_scores.csv") ||
         is_file(dir / "trial_scores.csv");
}

std::vector<fs::path> find_teams(const fs::path& dir, const std::string& only) {
  if (!is_dir(dir))
    throw SetupError(fmt::format(
        "{}: not a folder (give a run folder: a team folder with raw/, or a folder of them)", dir.string()));
  std::vector<fs::path> teams;
  if (is_dir(dir / "raw")) {
    teams.push_back(dir);
  } else {
    for (const std::string& name : entries_of(dir)) {
      if (is_dir(dir / name / "raw")) teams.push_back(dir / name);
    }
  }
  if (teams.empty()) {
    throw SetupError(fmt::format("{}: no team folder (a folder with a raw/ sub-folder) found", dir.string()));
  }
  if (only.empty()) return teams;
  std::string names;
  for (const fs::path& t : teams) {
    if (t.filename() == only) return {t};
    if (!names.empty()) names += ", ";
    names += t.filename().string();
  }
  throw SetupError(fmt::format("{}: no team \"{}\" (teams: {})", dir.string(), only, names));
}

std::string thumbnail_of(const fs::path& png, int px) {
  Image img = read_png(png);
  if (img.channels == 4) img = convert_channels(img, 3);
  const int longest = std::max(img.width, img.height);
  if (longest > px) {
    img = downscale_box(img, std::max(1, img.width * px / longest), std::max(1, img.height * px / longest));
  }
  return encode_png(img, 9);
}

void finish_team(BirdsTeam& team, TeamReader& reader, const Scores& scores, bool scored) {
  const auto entry = scores.entries.find(team.name);
  if (entry != scores.entries.end()) {
    team.prompt_score = entry->second.prompt;
    team.normalized_score = entry->second.normalized;
    team.rank = entry->second.rank;
  }
  team.stages.push_back({"scores", "pcglab birds score", scored && entry != scores.entries.end()});
  std::vector<double> all_sta, all_sim, all_div, all_judge_sim;
  for (auto& [name, state] : reader.letters()) {
    BirdsLetter letter{name,         {},           state.diversity, std::nullopt,
                       std::nullopt, std::nullopt, std::nullopt,    std::nullopt};
    const auto cs = scores.characters.find({team.name, name});
    if (cs != scores.characters.end()) letter.score = cs->second;
    std::vector<double> sta, sim, judge_sim, agree;
    for (auto& [stem, t] : state.trials) {
      if (t.judge_similarity) judge_sim.push_back(*t.judge_similarity);
      if (!t.predicted.empty() && !t.judge_predicted.empty())
        agree.push_back(t.predicted == t.judge_predicted);
      const auto ts = scores.trials.find({team.name, name, t.trial});
      if (ts != scores.trials.end()) t.score = ts->second;
      if (t.stability) sta.push_back(*t.stability);
      if (t.similarity) sim.push_back(*t.similarity);
      letter.trials.push_back(std::move(t));
    }
    std::stable_sort(letter.trials.begin(), letter.trials.end(),
                     [](const BirdsTrial& a, const BirdsTrial& b) { return a.trial < b.trial; });
    letter.mean_stability = mean_of(sta);
    letter.mean_similarity = mean_of(sim);
    letter.mean_judge_similarity = mean_of(judge_sim);
    letter.judge_agreement = mean_of(agree);
    all_judge_sim.insert(all_judge_sim.end(), judge_sim.begin(), judge_sim.end());
    all_sta.insert(all_sta.end(), sta.begin(), sta.end());
    all_sim.insert(all_sim.end(), sim.begin(), sim.end());
    if (letter.diversity) all_div.push_back(*letter.diversity);
    for (const BirdsTrial& t : letter.trials) {
      ++team.trials_total;
      if (!t.failure.empty()) ++team.trials_failed;
    }
    team.letters.push_back(std::move(letter));
  }
  team.mean_stability = mean_of(all_sta);
  team.mean_similarity = mean_of(all_sim);
  team.mean_diversity = mean_of(all_div);
  team.mean_judge_similarity = mean_of(all_judge_sim);
  team.agreement = classifier_agreement(team);
  team.failures = std::move(reader.failures());
  std::stable_sort(
      team.failures.begin(), team.failures.end(), [](const ItemOutcome& a, const ItemOutcome& b) {
        const std::string la = a.metadata["character"], lb = b.metadata["character"];
        return la != lb ? la < lb : a.metadata["number"].get<int>() < b.metadata["number"].get<int>();
      });
}

}  // namespace

BirdsRun read_birds_run(const fs::path& given, const BirdsRunOptions& options) {
  // "team/", "." and ".." name their folder: the team name is the folder's own name.
  fs::path dir = fs::absolute(given).lexically_normal();
  if (!dir.has_filename() && dir.has_parent_path()) dir = dir.parent_path();
  BirdsRun run;
  run.dir = dir;
  const std::vector<fs::path> team_dirs = find_teams(dir, options.team);
  if (!options.scores.empty()) {
    if (!has_scores(options.scores)) {
      throw SetupError(
          fmt::format("{}: no scores (result.json, character_scores.csv or trial_scores.csv) found",
                      options.scores.string()));
    }
    run.scores_dir = options.scores;
  } else {
    for (const fs::path& candidate : {dir / "result", team_dirs.front().parent_path() / "result"}) {
      if (has_scores(candidate)) {
        run.scores_dir = candidate;
        break;
      }
    }
  }
  const Scores scores = read_scores(run.scores_dir);
  struct Thumb {
    size_t team, letter, trial;
    fs::path png;
  };
  std::vector<Thumb> thumbs;
  for (const fs::path& team_dir : team_dirs) {
    BirdsTeam& team = run.teams.emplace_back();
    team.name = team_dir.filename().string();
    team.dir = team_dir;
    TeamReader reader(team);
    reader.read();
    const auto images = reader.images();
    finish_team(team, reader, scores, !run.scores_dir.empty());
    if (options.thumbnail_px <= 0) continue;
    for (size_t l = 0; l < team.letters.size(); ++l) {
      for (size_t t = 0; t < team.letters[l].trials.size(); ++t) {
        const auto it =
            images.find(fmt::format("{}/{}", team.letters[l].letter, team.letters[l].trials[t].stem));
        if (it != images.end()) thumbs.push_back({run.teams.size() - 1, l, t, it->second});
      }
    }
  }
  ThreadPool pool(options.threads);
  pool.parallel_for(thumbs.size(), [&](size_t i) {
    const Thumb& th = thumbs[i];
    BirdsTrial& trial = run.teams[th.team].letters[th.letter].trials[th.trial];
    try {
      trial.thumbnail_png = thumbnail_of(th.png, options.thumbnail_px);
    } catch (const InputError& e) {
      log_warn("{} (shown without image)", e.what());
    }
  });
  return run;
}

namespace {

// Pearson's r of paired values; 0 when either has no spread.
double pearson(const std::vector<double>& a, const std::vector<double>& b) {
  const double n = static_cast<double>(a.size());
  if (a.size() < 2) return 0;
  double ma = 0, mb = 0;
  for (size_t i = 0; i < a.size(); ++i) ma += a[i], mb += b[i];
  ma /= n, mb /= n;
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < a.size(); ++i)
    sab += (a[i] - ma) * (b[i] - mb), saa += (a[i] - ma) * (a[i] - ma), sbb += (b[i] - mb) * (b[i] - mb);
  return saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : 0;
}

std::string detail_of(const BirdsTeam& team, const std::string& name) {
  for (const auto& [key, value] : team.run_details)
    if (key == name) return value;
  return "";
}

}  // namespace

std::optional<ClassifierAgreement> classifier_agreement(const BirdsTeam& team) {
  ClassifierAgreement a;
  a.classifier = detail_of(team, "classifier");
  a.judge = detail_of(team, "judge");
  std::vector<double> sim, judge_sim, probs, judge_probs;
  int agree = 0;
  for (const BirdsLetter& letter : team.letters)
    for (const BirdsTrial& t : letter.trials) {
      if (!t.similarity || !t.judge_similarity) continue;
      ++a.images;
      sim.push_back(*t.similarity);
      judge_sim.push_back(*t.judge_similarity);
      agree += !t.predicted.empty() && t.predicted == t.judge_predicted;
      if (t.probabilities.size() == 26 && t.judge_probabilities.size() == 26) {
        probs.insert(probs.end(), t.probabilities.begin(), t.probabilities.end());
        judge_probs.insert(judge_probs.end(), t.judge_probabilities.begin(), t.judge_probabilities.end());
      }
    }
  if (a.images == 0) return std::nullopt;
  a.mean_similarity = *mean_of(sim);
  a.mean_judge_similarity = *mean_of(judge_sim);
  a.argmax_agreement = static_cast<double>(agree) / a.images;
  a.probability_correlation = pearson(probs, judge_probs);
  a.similarity_correlation = pearson(sim, judge_sim);
  return a;
}

std::string agreement_json(const BirdsTeam& team) {
  OrderedJson j;
  j["team"] = team.name;
  if (team.agreement) {
    const ClassifierAgreement& a = *team.agreement;
    j["classifier"] = a.classifier;
    j["judge"] = a.judge;
    j["images"] = a.images;
    j["mean_similarity"] = a.mean_similarity;
    j["mean_judge_similarity"] = a.mean_judge_similarity;
    j["argmax_agreement"] = a.argmax_agreement;
    j["probability_correlation"] = a.probability_correlation;
    j["similarity_correlation"] = a.similarity_correlation;
  } else {
    j["images"] = 0;
  }
  OrderedJson letters = OrderedJson::object();
  for (const BirdsLetter& l : team.letters) {
    if (!l.mean_judge_similarity) continue;
    letters[l.letter] = {
        {"mean_similarity", l.mean_similarity ? OrderedJson(*l.mean_similarity) : OrderedJson()},
        {"mean_judge_similarity", *l.mean_judge_similarity},
        {"argmax_agreement", l.judge_agreement ? OrderedJson(*l.judge_agreement) : OrderedJson()}};
  }
  j["letters"] = std::move(letters);
  return dump_json(j, 2) + "\n";
}

}  // namespace pcglab::birds
