#include "birds/scoring.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "birds/competition_layout.h"
#include "core/check.h"
#include "core/files.h"
#include "core/item_boundary.h"
#include "core/json.h"

namespace pcglab::birds {
namespace fs = std::filesystem;

namespace {

constexpr int kNumCharacters = 26;

std::vector<std::string> default_characters() {
  std::vector<std::string> out;
  for (char c = 'A'; c <= 'Z'; ++c) out.emplace_back(1, c);
  return out;
}

bool contains(const std::vector<std::string>& list, const std::string& s) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

double sum_values(const std::map<int, double>& m) {
  double s = 0;
  for (const auto& [trial, v] : m) s += v;
  return s;
}

const CharacterResults* find_results(const EntryResults& e, const std::string& model, const std::string& c) {
  const auto m = e.models.find(model);
  if (m == e.models.end()) return nullptr;
  const auto r = m->second.find(c);
  return r == m->second.end() ? nullptr : &r->second;
}

// The 2024 weights of one model: max(1 - Σ_k Σ_i x / (P · T), 1/C) per metric.
std::vector<CharacterWeight> weights_for(const std::vector<const EntryResults*>& scored,
                                         const std::string& model, const std::vector<std::string>& characters,
                                         const ScoringConfig& config) {
  const double p = static_cast<double>(scored.size());
  const double floor = 1.0 / kNumCharacters;
  std::vector<CharacterWeight> out;
  for (const std::string& c : characters) {
    CharacterWeight w{c};
    if (!config.disable_weights && p > 0) {
      double sta = 0, sim = 0, div = 0;
      for (const EntryResults* e : scored) {
        if (const CharacterResults* r = find_results(*e, model, c)) {
          sta += sum_values(r->stability);
          sim += sum_values(r->similarity);
          div += r->diversity;
        }
      }
      w.stability = std::max(1.0 - sta / (p * config.trials), floor);
      w.similarity = std::max(1.0 - sim / (p * config.trials), floor);
      w.diversity = std::max(1.0 - div / p, floor);
    }
    w.weight = config.policy == ScoringPolicy::k2023 ? w.stability * w.similarity
                                                     : w.stability * w.similarity * w.diversity;
    out.push_back(w);
  }
  return out;
}

// An entry is scored unless reading it failed for every value it had (errors and nothing valid).
bool has_valid_results(const EntryResults& e) {
  if (e.errors.empty()) return true;
  for (const auto& [model, chars] : e.models) {
    for (const auto& [c, r] : chars) {
      if (!r.stability.empty() || !r.similarity.empty() || r.diversity != 0) return true;
    }
  }
  return false;
}

}  // namespace

ScoringPolicy parse_scoring_policy(std::string_view name) {
  if (name == "2023") return ScoringPolicy::k2023;
  if (name == "2024") return ScoringPolicy::k2024;
  if (name == "2025") return ScoringPolicy::k2025;
  throw SetupError(fmt::format("unknown scoring policy \"{}\" (use 2023, 2024 or 2025)", name));
}

ScoringResult score_competition(const std::vector<EntryResults>& entries, const ScoringConfig& config) {
  PCGLAB_CHECK(config.trials > 0) << "trials " << config.trials;
  const std::vector<std::string> characters =
      config.characters.empty() ? default_characters() : config.characters;
  std::vector<const EntryResults*> scored;
  std::set<std::string> models;
  ScoringResult result;
  for (const EntryResults& e : entries) {
    result.errors.insert(result.errors.end(), e.errors.begin(), e.errors.end());
    if (contains(config.disqualified, e.name) || !has_valid_results(e)) continue;
    scored.push_back(&e);
    for (const auto& [model, chars] : e.models) models.insert(model);
  }
  if (config.policy != ScoringPolicy::k2025 && models.size() > 1) {
    throw SetupError("results for several models: use --policy 2025 (summed over models)");
  }
  std::map<std::string, double> prompt;
  for (const std::string& model : models) {
    const auto weights = weights_for(scored, model, characters, config);
    result.weights[model] = weights;
    for (const EntryResults* e : scored) {
      double entry_sum = 0;
      for (size_t j = 0; j < characters.size(); ++j) {
        const CharacterResults empty;
        const CharacterResults* r = find_results(*e, model, characters[j]);
        if (r == nullptr) r = &empty;
        double trial_sum = 0;
        for (int i = 1; i <= config.trials; ++i) {
          const auto s = r->stability.find(i);
          const auto m = r->similarity.find(i);
          const double sta = s == r->stability.end() ? 0 : s->second;
          const double sim = m == r->similarity.end() ? 0 : m->second;
          const double t = weights[j].weight * sta * sim;
          trial_sum += t;
          result.trials.push_back({e->name, model, characters[j], i, t, sta, sim, r->diversity});
        }
        const double char_score = config.policy == ScoringPolicy::k2023
                                      ? trial_sum / config.trials
                                      : r->diversity * trial_sum / config.trials;
        result.characters.push_back({e->name, model, characters[j], char_score,
                                     sum_values(r->stability) / config.trials,
                                     sum_values(r->similarity) / config.trials, r->diversity});
        entry_sum += char_score;
      }
      prompt[e->name] += entry_sum / static_cast<double>(characters.size());
    }
  }
  double total = 0;
  for (const EntryResults* e : scored) total += prompt[e->name];
  result.competition_score = total;
  const double divisor = total == 0 ? 1 : total;
  for (const EntryResults& e : entries) {
    EntryScore s{e.name};
    if (contains(config.disqualified, e.name)) {
      s.prompt_score = s.normalized = -1;
      s.rank = kRankDisqualified;
    } else if (!has_valid_results(e)) {
      s.prompt_score = s.normalized = std::numeric_limits<double>::quiet_NaN();
      s.rank = kRankNoValidResults;
    } else {
      s.prompt_score = prompt[e.name];
      s.normalized = 100 * s.prompt_score / divisor;
      s.rank = contains(config.baselines, e.name) ? kRankBaseline : 0;
    }
    result.entries.push_back(s);
  }
  // Highest normalised score first; ties: the shorter prompt (pcglab's addition; the official
  // code keeps the sort's order), then the name. Entries without valid results, then disqualified
  // entries, last.
  const auto length = [&](const std::string& name) {
    const auto it = config.prompt_lengths.find(name);
    return it == config.prompt_lengths.end() ? std::numeric_limits<int>::max() : it->second;
  };
  std::stable_sort(result.entries.begin(), result.entries.end(),
                   [&](const EntryScore& a, const EntryScore& b) {
                     const auto group = [](int rank) {
                       return rank == kRankDisqualified ? 2 : rank == kRankNoValidResults ? 1 : 0;
                     };
                     if (group(a.rank) != group(b.rank)) return group(a.rank) < group(b.rank);
                     if (group(a.rank) != 0) return a.name < b.name;
                     if (a.normalized != b.normalized) return a.normalized > b.normalized;
                     if (length(a.name) != length(b.name)) return length(a.name) < length(b.name);
                     return a.name < b.name;
                   });
  int next = 1;
  for (EntryScore& s : result.entries) {
    if (s.rank == 0) s.rank = next++;
  }
  return result;
}

namespace {

std::string read_csv_field(std::istringstream& in) {
  std::string out;
  if (in.peek() == '"') {
    in.get();
    char c;
    while (in.get(c)) {
      if (c == '"') {
        if (in.peek() == '"') {
          out += '"';
          in.get();
        } else {
          break;
        }
      } else {
        out += c;
      }
    }
    if (in.peek() == ',') in.get();
    return out;
  }
  std::getline(in, out, ',');
  return out;
}

// A score read from text: a number in [0, 1] (stability, similarity and diversity are rates).
std::optional<double> parse_rate(const std::string& text) {
  double v = 0;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  const auto [end, ec] = std::from_chars(first, last, v);
  if (text.empty() || ec != std::errc() || end != last || !(v >= 0 && v <= 1)) return std::nullopt;
  return v;
}

std::string rate_error(const std::string& where, const std::string& column, const std::string& shown) {
  return fmt::format("{}: {} is {}, expected a number in [0, 1]", where, column, shown);
}

// A score from a JSON field; a missing, null, non-numeric or out-of-range value is an item error.
std::optional<double> json_rate(const Json& object, const char* key, const std::string& where,
                                std::vector<ItemFailure>& errors) {
  const auto it = object.is_object() ? object.find(key) : object.end();
  if (it != object.end() && it->is_number()) {
    const double v = it->get<double>();
    if (v >= 0 && v <= 1) return v;
  }
  errors.emplace_back(ErrorKind::kBadInput, rate_error(where, fmt::format("\"{}\"", key),
                                                       it == object.end() ? "missing" : dump_json(*it)));
  return std::nullopt;
}

// Reads one JSON file of scores if it exists. The file is one item: unreadable or malformed, it is
// an error of its entry (its values count as missing) and the other files are still read.
template <class F>
void read_scores_file(const fs::path& file, std::vector<ItemFailure>& errors, F&& use) {
  std::error_code ec;
  if (!fs::exists(file, ec)) return;
  const Status s = run_item(file.string(), [&] { use(read_json_file(file)); });
  if (s.ok()) return;
  // Read and parse errors name the file already.
  const std::string& m = s.error().message;
  errors.emplace_back(ErrorKind::kBadInput,
                      m.find(file.string()) == std::string::npos ? s.error().describe() : m);
}

void read_character_files(const fs::path& base, const std::string& character, CharacterResults& r,
                          std::vector<ItemFailure>& errors) {
  const fs::path sta = base / "stability" / (character + ".json");
  read_scores_file(sta, errors, [&](const Json& j) {
    const Json raws = json_field<Json>(j, "raws", sta.string());
    for (size_t i = 0; i < raws.size(); ++i) {
      const std::string tag = json_field<std::string>(raws[i], "tag", sta.string());
      const int trial = trial_number_of(fs::path(tag).stem().string());
      if (trial < 0) continue;
      const auto v =
          json_rate(raws[i], "score", fmt::format("{}: raws[{}] ({})", sta.string(), i, tag), errors);
      if (v) r.stability[trial] = *v;
    }
  });
  const fs::path sim = base / "similarity" / (character + ".json");
  read_scores_file(sim, errors, [&](const Json& j) {
    const Json trials = json_field<Json>(j, "trials", sim.string());
    for (size_t i = 0; i < trials.size(); ++i) {
      const std::string id = json_field<std::string>(trials[i], "id", sim.string());
      const int trial = trial_number_of(fs::path(id).stem().string());
      if (trial < 0) continue;
      const auto v =
          json_rate(trials[i], "similarity", fmt::format("{}: trials[{}] ({})", sim.string(), i, id), errors);
      if (v) r.similarity[trial] = *v;
    }
  });
  const fs::path div = base / "diversity" / (character + ".json");
  read_scores_file(div, errors, [&](const Json& j) {
    const auto v = json_rate(j, "diversityRate", div.string(), errors);
    if (v) r.diversity = *v;
  });
}

}  // namespace

EntryResults read_team_results(const fs::path& team, ScoringPolicy policy,
                               const std::vector<std::string>& characters_in) {
  const std::vector<std::string> characters = characters_in.empty() ? default_characters() : characters_in;
  std::error_code ec;
  EntryResults e{team_name_of(team), {}, {}};
  std::vector<std::pair<std::string, fs::path>> model_dirs;
  if (policy == ScoringPolicy::k2025) {
    for (const auto& m : fs::directory_iterator(team, ec)) {
      if (m.is_directory(ec) && fs::is_directory(m.path() / "stability", ec)) {
        model_dirs.emplace_back(m.path().filename().string(), m.path());
      }
    }
    std::sort(model_dirs.begin(), model_dirs.end());
  } else {
    model_dirs.emplace_back("", team);
  }
  for (const auto& [model, base] : model_dirs) {
    for (const std::string& c : characters) read_character_files(base, c, e.models[model][c], e.errors);
  }
  return e;
}

std::vector<EntryResults> read_official_results(const fs::path& dir, ScoringPolicy policy,
                                                const std::vector<std::string>& characters) {
  // Every sub-folder but result/ is a team, as for the official script (symlink loops and second
  // names of a team are left out with a warning: competition_layout.h).
  const std::vector<fs::path> teams = list_team_folders(dir, "");
  std::vector<EntryResults> out;
  for (const fs::path& team : teams) out.push_back(read_team_results(team, policy, characters));
  if (out.empty()) throw SetupError(fmt::format("{}: no team folders", dir.string()));
  return out;
}

namespace {

std::vector<std::string> split_csv_line(std::string line) {
  if (!line.empty() && line.back() == '\r') line.pop_back();
  std::istringstream in(line);
  std::vector<std::string> fields;
  while (in.peek() != EOF) fields.push_back(read_csv_field(in));
  if (!line.empty() && line.back() == ',') fields.emplace_back();
  return fields;
}

}  // namespace

std::vector<EntryResults> read_trial_scores_csv(const fs::path& csv) {
  std::istringstream file(read_file(csv));
  std::string line;
  if (!std::getline(file, line) || split_csv_line(line).empty())
    throw SetupError(
        fmt::format("{}: empty file (expected a header with teamName, character, trial, stabilityScore, "
                    "similarityScore, diversityScore)",
                    csv.string()));
  const std::vector<std::string> header = split_csv_line(line);
  const std::vector<std::string> wanted = {"teamName",       "character",       "trial",
                                           "stabilityScore", "similarityScore", "diversityScore"};
  std::vector<size_t> col;
  std::vector<std::string> missing;
  for (const std::string& w : wanted) {
    const auto it = std::find(header.begin(), header.end(), w);
    if (it == header.end()) missing.push_back("\"" + w + "\"");
    col.push_back(static_cast<size_t>(it - header.begin()));
  }
  if (!missing.empty())
    throw SetupError(fmt::format("{}: missing column{} {} (the header is: {})", csv.string(),
                                 missing.size() > 1 ? "s" : "", fmt::join(missing, ", "), line));
  std::map<std::string, EntryResults> entries;
  std::vector<ItemFailure> orphan_errors;  // rows without a team name
  int line_no = 1, rows = 0;
  while (std::getline(file, line)) {
    ++line_no;
    const std::vector<std::string> f = split_csv_line(line);
    if (f.empty()) continue;
    ++rows;
    const std::string where = fmt::format("{}:{}", csv.string(), line_no);
    if (col[0] >= f.size() || f[col[0]].empty()) {
      orphan_errors.emplace_back(ErrorKind::kBadInput,
                                 fmt::format("{}: column \"teamName\" is empty or missing", where));
      continue;
    }
    EntryResults& e = entries[f[col[0]]];
    e.name = f[col[0]];
    if (f.size() != header.size()) {
      e.errors.emplace_back(ErrorKind::kBadInput, fmt::format("{}: the row has {} fields, the header {}",
                                                              where, f.size(), header.size()));
      continue;
    }
    int trial = 0;
    const std::string& t = f[col[2]];
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), trial);
    if (t.empty() || ec != std::errc() || end != t.data() + t.size() || trial < 1) {
      e.errors.emplace_back(
          ErrorKind::kBadInput,
          fmt::format("{}: column \"trial\" is \"{}\", expected a trial number (1, 2, ...)", where, t));
      continue;
    }
    CharacterResults& r = e.models[""][f[col[1]]];
    const auto value = [&](size_t c, const char* name) {
      const auto v = parse_rate(f[col[c]]);
      if (!v)
        e.errors.emplace_back(ErrorKind::kBadInput,
                              rate_error(where, fmt::format("column \"{}\"", name), "\"" + f[col[c]] + "\""));
      return v;
    };
    if (const auto v = value(3, "stabilityScore")) r.stability[trial] = *v;
    if (const auto v = value(4, "similarityScore")) r.similarity[trial] = *v;
    if (const auto v = value(5, "diversityScore")) r.diversity = *v;
  }
  if (rows == 0) throw SetupError(fmt::format("{}: no rows after the header", csv.string()));
  std::vector<EntryResults> out;
  for (auto& [name, e] : entries) out.push_back(std::move(e));
  if (!orphan_errors.empty()) {
    if (out.empty()) throw SetupError(orphan_errors.front().what());
    out.front().errors.insert(out.front().errors.begin(), orphan_errors.begin(), orphan_errors.end());
  }
  return out;
}

namespace {
std::string num(double v) {
  return std::isfinite(v) ? fmt::format("{}", v) : std::string();
}  // NaN: no score
std::string q(const std::string& s) {
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}
}  // namespace

void write_scoring_outputs(const ScoringResult& r, const fs::path& out) {
  const bool per_model = r.weights.size() > 1;
  OrderedJson constants;
  constants["competitionScore"] = num(r.competition_score);
  for (const auto& [model, weights] : r.weights) {
    OrderedJson list = OrderedJson::array();
    for (const CharacterWeight& w : weights) {
      list.push_back({{"character", w.character},
                      {"weight", num(w.weight)},
                      {"weightStability", num(w.stability)},
                      {"weightSimilarity", num(w.similarity)},
                      {"weightDiversity", num(w.diversity)}});
    }
    if (per_model) {
      constants["weightsByModel"][model] = list;
    } else {
      constants["weights"] = list;
    }
  }
  write_json_file(out / "constants.json", constants);

  std::string trials = std::string(per_model ? "\"model\"," : "") +
                       "\"teamName\",\"character\",\"trial\",\"trial_score\",\"stabilityScore\","
                       "\"similarityScore\",\"diversityScore\"\n";
  for (const TrialScore& t : r.trials) {
    trials += (per_model ? q(t.model) + "," : "") + q(t.entry) + "," + q(t.character) + "," +
              std::to_string(t.trial) + "," + q(num(t.score)) + "," + q(num(t.stability)) + "," +
              q(num(t.similarity)) + "," + q(num(t.diversity)) + "\n";
  }
  write_file_atomic(out / "trial_scores.csv", trials);

  std::string chars = std::string(per_model ? "\"model\"," : "") +
                      "\"teamName\",\"character\",\"characterScore\",\"nonWeightedAverageStabilityScore\","
                      "\"nonWeightedAverageSimilarityScore\",\"diversityScore\"\n";
  for (const CharacterScore& c : r.characters) {
    chars += (per_model ? q(c.model) + "," : "") + q(c.entry) + "," + q(c.character) + "," + q(num(c.score)) +
             "," + q(num(c.mean_stability)) + "," + q(num(c.mean_similarity)) + "," + q(num(c.diversity)) +
             "\n";
  }
  write_file_atomic(out / "character_scores.csv", chars);

  std::string ranks = "\"teamName\",\"normalizedPromptScore\",\"promptScore\",\"rank\"\n";
  OrderedJson result = OrderedJson::array();
  for (const EntryScore& e : r.entries) {
    ranks += q(e.name) + "," + q(num(e.normalized)) + "," + q(num(e.prompt_score)) + "," +
             std::to_string(e.rank) + "\n";
    result.push_back({{"teamName", e.name},
                      {"normalizedPromptScore", e.normalized},
                      {"promptScore", e.prompt_score},
                      {"rank", e.rank}});
  }
  write_file_atomic(out / "prompt_scores_ranks.csv", ranks);
  write_json_file(out / "result.json", result);
}

}  // namespace pcglab::birds
