#include "birds/scoring.h"

#include <algorithm>
#include <limits>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "birds/competition_layout.h"
#include "core/check.h"
#include "core/files.h"
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
  for (const EntryResults& e : entries) {
    if (contains(config.disqualified, e.name)) continue;
    scored.push_back(&e);
    for (const auto& [model, chars] : e.models) models.insert(model);
  }
  if (config.policy != ScoringPolicy::k2025 && models.size() > 1) {
    throw SetupError("results for several models: use --policy 2025 (summed over models)");
  }
  ScoringResult result;
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
      s.rank = -2;
    } else {
      s.prompt_score = prompt[e.name];
      s.normalized = 100 * s.prompt_score / divisor;
      s.rank = contains(config.baselines, e.name) ? -1 : 0;
    }
    result.entries.push_back(s);
  }
  // Highest normalised score first; ties: the shorter prompt (pcglab's addition; the official
  // code keeps the sort's order), then the name. Disqualified entries last.
  const auto length = [&](const std::string& name) {
    const auto it = config.prompt_lengths.find(name);
    return it == config.prompt_lengths.end() ? std::numeric_limits<int>::max() : it->second;
  };
  std::stable_sort(result.entries.begin(), result.entries.end(),
                   [&](const EntryScore& a, const EntryScore& b) {
                     if ((a.rank == -2) != (b.rank == -2)) return b.rank == -2;
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

double to_number(const std::string& s, const std::string& where) {
  try {
    size_t used = 0;
    const double v = std::stod(s, &used);
    if (used != s.size()) throw std::invalid_argument(s);
    return v;
  } catch (const std::exception&) {
    throw SetupError(fmt::format("{}: \"{}\" is not a number", where, s));
  }
}

void read_character_files(const fs::path& base, const std::string& character, CharacterResults& r) {
  std::error_code ec;
  const fs::path sta = base / "stability" / (character + ".json");
  if (fs::exists(sta, ec)) {
    for (const Json& raw : json_field<Json>(read_json_file(sta), "raws", sta.string())) {
      const std::string tag = json_field<std::string>(raw, "tag", sta.string());
      const int trial = trial_number_of(fs::path(tag).stem().string());
      if (trial >= 0) r.stability[trial] = json_field<double>(raw, "score", sta.string());
    }
  }
  const fs::path sim = base / "similarity" / (character + ".json");
  if (fs::exists(sim, ec)) {
    for (const Json& t : json_field<Json>(read_json_file(sim), "trials", sim.string())) {
      const int trial =
          trial_number_of(fs::path(json_field<std::string>(t, "id", sim.string())).stem().string());
      if (trial >= 0) r.similarity[trial] = json_field<double>(t, "similarity", sim.string());
    }
  }
  const fs::path div = base / "diversity" / (character + ".json");
  if (fs::exists(div, ec))
    r.diversity = json_field<double>(read_json_file(div), "diversityRate", div.string());
}

}  // namespace

EntryResults read_team_results(const fs::path& team, ScoringPolicy policy,
                               const std::vector<std::string>& characters_in) {
  const std::vector<std::string> characters = characters_in.empty() ? default_characters() : characters_in;
  std::error_code ec;
  EntryResults e{team_name_of(team), {}};
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
    for (const std::string& c : characters) read_character_files(base, c, e.models[model][c]);
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

std::vector<EntryResults> read_trial_scores_csv(const fs::path& csv) {
  std::istringstream file(read_file(csv));
  std::string line;
  std::getline(file, line);  // header
  std::map<std::string, EntryResults> entries;
  int line_no = 1;
  while (std::getline(file, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    std::istringstream in(line);
    std::vector<std::string> f;
    while (in.peek() != EOF) f.push_back(read_csv_field(in));
    const std::string where = fmt::format("{}:{}", csv.string(), line_no);
    if (f.size() < 7) throw SetupError(fmt::format("{}: expected 7 fields, found {}", where, f.size()));
    EntryResults& e = entries[f[0]];
    e.name = f[0];
    CharacterResults& r = e.models[""][f[1]];
    const int trial = static_cast<int>(to_number(f[2], where));
    r.stability[trial] = to_number(f[4], where);
    r.similarity[trial] = to_number(f[5], where);
    r.diversity = to_number(f[6], where);
  }
  std::vector<EntryResults> out;
  for (auto& [name, e] : entries) out.push_back(std::move(e));
  return out;
}

namespace {
std::string num(double v) {
  return fmt::format("{}", v);
}
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
