#include "sweep/sweep_file.h"

#include <charconv>
#include <regex>
#include <set>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "core/check.h"

namespace pcglab::sweep {
namespace fs = std::filesystem;
namespace {

constexpr int kMaxShards = 10000;
constexpr size_t kMaxRuns = 100000;

struct Reader {
  fs::path file;

  SetupError error(const YAML::Node& node, const std::string& why) const {
    return SetupError(fmt::format("{}:{}: {}", file.string(), node.Mark().line + 1, why));
  }

  std::string scalar(const YAML::Node& node, const std::string& what) const {
    if (!node.IsScalar()) throw error(node, what + " must be a single value (a scalar)");
    return node.Scalar();
  }

  std::vector<std::string> words(const YAML::Node& node, const std::string& what) const {
    std::vector<std::string> out;
    if (node.IsScalar()) {
      std::istringstream in(node.Scalar());
      for (std::string w; in >> w;) out.push_back(w);
    } else if (node.IsSequence()) {
      for (const auto& item : node) out.push_back(scalar(item, what + "'s words"));
    } else {
      throw error(node, what + " must be a string or a list of words");
    }
    if (out.empty()) throw error(node, what + " is empty");
    return out;
  }

  // "a..b" (integers) expands to a, a+1, ..., b.
  void add_values(const YAML::Node& node, const std::string& key, std::vector<std::string>& out) const {
    const std::string text = scalar(node, "grid value of " + key);
    static const std::regex range(R"(^\s*(-?\d{1,9})\s*\.\.\s*(-?\d{1,9})\s*$)");
    std::smatch m;
    if (!std::regex_match(text, m, range)) {
      out.push_back(text);
      return;
    }
    const long a = std::stol(m[1]), b = std::stol(m[2]);
    if (b < a)
      throw error(node, fmt::format("grid {}: range {} is empty (write a..b with a <= b)", key, text));
    if (b - a >= static_cast<long>(kMaxRuns))
      throw error(node, fmt::format("grid {}: range {} has more than {} values", key, text, kMaxRuns));
    for (long v = a; v <= b; ++v) out.push_back(std::to_string(v));
  }

  static bool valid_key(const std::string& key) {
    return !key.empty() && std::regex_match(key, std::regex("[A-Za-z0-9][A-Za-z0-9_-]*"));
  }
};

std::string sanitized(const std::string& value) {
  std::string out;
  for (char c : value) {
    const bool keep = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '+' || c == '-';
    out += keep ? c : '_';
  }
  return out == "." || out == ".." ? std::string(out.size(), '_') : out;
}

void replace_all(std::string& text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
}

bool mentions(const std::vector<std::string>& words, const std::string& placeholder) {
  for (const auto& w : words)
    if (w.find(placeholder) != std::string::npos) return true;
  return false;
}

}  // namespace

SweepSpec read_sweep_file(const fs::path& file) {
  const Reader r{file};
  YAML::Node root;
  try {
    root = YAML::LoadFile(file.string());
  } catch (const YAML::BadFile&) {
    throw SetupError(fmt::format("{}: cannot read the sweep file", file.string()));
  } catch (const YAML::Exception& e) {
    throw SetupError(fmt::format("{}:{}: not a sweep file: {}", file.string(), e.mark.line + 1, e.msg));
  }
  if (!root.IsMap()) throw r.error(root, "a sweep file is a map (name, command, out, shards, grid, options)");
  SweepSpec spec;
  spec.name = file.stem().string();
  fs::path out;
  for (const auto& kv : root) {
    const std::string key = r.scalar(kv.first, "a key");
    const YAML::Node& value = kv.second;
    if (key == "name") {
      spec.name = r.scalar(value, "name");
      if (!Reader::valid_key(spec.name)) throw r.error(value, "name must be letters, digits, '_' and '-'");
    } else if (key == "command") {
      spec.command = r.words(value, "command");
      if (spec.command[0] == "pcglab") spec.command.erase(spec.command.begin());
    } else if (key == "out") {
      out = r.scalar(value, "out");
    } else if (key == "shards") {
      const std::string text = r.scalar(value, "shards");
      int n = 0;
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
      if (ec != std::errc() || end != text.data() + text.size() || n < 1 || n > kMaxShards)
        throw r.error(value, fmt::format("shards '{}' is not a whole number in [1, {}]", text, kMaxShards));
      spec.shards = n;
    } else if (key == "grid" || key == "options") {
      if (!value.IsMap()) throw r.error(value, key + " must be a map of keys to values");
      for (const auto& entry : value) {
        const std::string name = r.scalar(entry.first, key + "'s key");
        if (!Reader::valid_key(name))
          throw r.error(entry.first, fmt::format("{} key '{}': use letters, digits, '_' and '-'", key, name));
        if (key == "options") {
          spec.options.emplace_back(name, r.scalar(entry.second, "option " + name));
          continue;
        }
        GridAxis axis{name, {}};
        if (entry.second.IsSequence()) {
          for (const auto& v : entry.second) r.add_values(v, name, axis.values);
        } else {
          r.add_values(entry.second, name, axis.values);
        }
        if (axis.values.empty()) throw r.error(entry.second, "grid " + name + " has no values");
        spec.grid.push_back(std::move(axis));
      }
    } else {
      throw r.error(
          kv.first,
          fmt::format("unknown key '{}' (a sweep file has name, command, out, shards, grid, options)", key));
    }
  }
  if (spec.command.empty()) throw r.error(root, "no command (e.g. command: pcgrl train -o {out})");
  if (out.empty()) throw r.error(root, "no out (the sweep's root folder)");
  spec.out = (out.is_absolute() ? out : fs::absolute(file).parent_path() / out).lexically_normal();
  return spec;
}

SweepSpec sweep_of_command(std::vector<std::string> command, const std::string& out, int shards) {
  if (command.empty()) throw SetupError("sweep: no command after --");
  if (out.empty()) throw SetupError("sweep: -- CMD needs --out DIR, the folder the command writes to");
  if (command[0] == "pcglab") command.erase(command.begin());
  if (!mentions(command, "{out}"))
    for (auto& word : command)
      if (word == out) word = "{out}";
  SweepSpec spec;
  spec.name = "sweep";
  spec.command = std::move(command);
  spec.out = fs::absolute(out).lexically_normal();
  spec.shards = shards;
  return spec;
}

std::string run_name(const std::vector<std::pair<std::string, std::string>>& settings) {
  std::string name;
  for (const auto& [key, value] : settings) {
    if (!name.empty()) name += "_";
    name += key + "-" + sanitized(value);
  }
  return name;
}

Plan make_plan(SweepSpec spec) {
  if (!mentions(spec.command, "{out}"))
    throw SetupError(fmt::format(
        "sweep {}: the command '{}' has no {{out}}: each run needs its own folder (e.g. -o {{out}})",
        spec.name, fmt::join(spec.command, " ")));
  Plan plan;
  size_t count = 1;
  for (const auto& axis : spec.grid) {
    count *= axis.values.size();
    if (count > kMaxRuns) throw SetupError(fmt::format("sweep {}: more than {} runs", spec.name, kMaxRuns));
  }
  std::set<std::string> names;
  for (size_t n = 0; n < count; ++n) {
    Run run;
    size_t rest = n;  // the last axis varies fastest
    std::vector<std::pair<std::string, std::string>> settings(spec.grid.size());
    for (size_t a = spec.grid.size(); a-- > 0;) {
      const auto& axis = spec.grid[a];
      settings[a] = {axis.key, axis.values[rest % axis.values.size()]};
      rest /= axis.values.size();
    }
    run.settings = settings;
    run.name = run_name(settings);
    if (!names.insert(run.name).second)
      throw SetupError(fmt::format("sweep {}: two runs are named {} (make the grid's values differ)",
                                   spec.name, run.name));
    run.out = run.name.empty() ? spec.out : spec.out / run.name;
    std::vector<std::pair<std::string, std::string>> values = settings;
    values.insert(values.end(), spec.options.begin(), spec.options.end());
    run.args = spec.command;
    for (auto& word : run.args) replace_all(word, "{out}", run.out.string());
    for (const auto& [key, value] : values) {
      const std::string placeholder = "{" + key + "}";
      if (mentions(spec.command, placeholder)) {
        for (auto& word : run.args) replace_all(word, placeholder, value);
      } else if (value != "false") {
        run.args.push_back("--" + key);
        if (value != "true") run.args.push_back(value);
      }
    }
    plan.runs.push_back(std::move(run));
  }
  for (size_t r = 0; r < plan.runs.size(); ++r)
    for (int s = 1; s <= spec.shards; ++s) {
      Task task;
      task.index = static_cast<int>(plan.tasks.size());
      task.run = r;
      task.shard = s;
      task.shards = spec.shards;
      task.args = plan.runs[r].args;
      if (spec.shards > 1)
        task.args.insert(task.args.end(), {"--shard", fmt::format("{}/{}", s, spec.shards)});
      plan.tasks.push_back(std::move(task));
    }
  plan.spec = std::move(spec);
  return plan;
}

Table plan_table(const Plan& plan) {
  Table t;
  t.columns = {"run", "settings", "folder", "tasks", "command"};
  for (size_t r = 0; r < plan.runs.size(); ++r) {
    const Run& run = plan.runs[r];
    std::string settings, tasks;
    for (const auto& [k, v] : run.settings) {
      if (!settings.empty()) settings += " ";
      settings += k + "=" + v;
    }
    std::vector<int> indices;
    for (const Task& task : plan.tasks)
      if (task.run == r) indices.push_back(task.index);
    tasks = indices.size() == 1 ? std::to_string(indices[0])
                                : fmt::format("{}-{}", indices.front(), indices.back());
    t.add_row({run.name.empty() ? plan.spec.name : run.name, settings, run.out.string(), tasks,
               "pcglab " + fmt::format("{}", fmt::join(run.args, " ")) +
                   (plan.spec.shards > 1 ? fmt::format(" --shard i/{}", plan.spec.shards) : "")});
  }
  return t;
}

}  // namespace pcglab::sweep
