// The pcglab executable: --version, --help, flags and PCGLAB_* variables, and exit codes.
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "core/files.h"
#include "core/json.h"
#include "core/version.h"
#include "testing/testing.h"

namespace pcglab {
namespace {
using testing::run_pcglab;

TEST(Cli, VersionExitsZero) {
  const auto r = run_pcglab({"--version"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, std::string("pcglab ") + kVersion + "\n");
}

TEST(Cli, HelpListsEveryGroupAndShowsDefaults) {
  const auto r = run_pcglab({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  for (const char* group : {"birds", "pcgrl", "llm", "bench"}) {
    EXPECT_NE(r.out.find(group), std::string::npos) << group << "\n" << r.out;
  }
  EXPECT_NE(r.out.find("--format"), std::string::npos);
  EXPECT_NE(r.out.find("=md"), std::string::npos) << "default of --format not shown\n" << r.out;
  EXPECT_NE(r.out.find("PCGLAB_FORMAT"), std::string::npos) << r.out;
}

TEST(Cli, NoCommandIsAUsageError) {
  const auto r = run_pcglab({});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("pcglab: error:"), std::string::npos) << r.err;
}

TEST(Cli, UnknownFlagIsAUsageErrorWithOneClearMessage) {
  const auto r = run_pcglab({"bench", "thread-pool", "--no-such-flag"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--no-such-flag"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(Cli, BadFormatValueFromFlagOrEnvironmentIsAUsageError) {
  const auto flag = run_pcglab({"--format", "xml", "bench"});
  EXPECT_EQ(flag.exit_code, 2);
  EXPECT_NE(flag.err.find("xml"), std::string::npos) << flag.err;
  const auto env = run_pcglab({"bench"}, {{"PCGLAB_FORMAT", "yaml"}});
  EXPECT_EQ(env.exit_code, 2);
  EXPECT_NE(env.err.find("yaml"), std::string::npos) << env.err;
}

TEST(Cli, GroupWithoutVerbIsAUsageError) {
  const auto r = run_pcglab({"birds"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("subcommand"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace pcglab

namespace pcglab {
namespace {

TEST(Cli, EnvironmentVariablesSetOptionsAndFlagsOverrideThem) {
  // --tasks from PCGLAB_TASKS, format from PCGLAB_FORMAT.
  const auto env =
      testing::run_pcglab({"bench", "thread-pool", "--threads", "2"},
                          {{"PCGLAB_BENCH_THREAD_POOL_TASKS", "321"}, {"PCGLAB_FORMAT", "jsonl"}});
  ASSERT_EQ(env.exit_code, 0) << env.err;
  EXPECT_NE(env.out.find("\"tasks\":321"), std::string::npos) << env.out;
  // A flag wins over the variable.
  const auto flag =
      testing::run_pcglab({"bench", "thread-pool", "--threads", "2", "--tasks", "50", "--format", "csv"},
                          {{"PCGLAB_BENCH_THREAD_POOL_TASKS", "321"}, {"PCGLAB_FORMAT", "jsonl"}});
  ASSERT_EQ(flag.exit_code, 0) << flag.err;
  EXPECT_EQ(flag.out.rfind("threads,tasks,work,tasks_per_s,digest\n1,50,", 0), 0u) << flag.out;
}

TEST(Cli, GlobalOptionsWorkAfterTheVerbToo) {
  const auto r =
      testing::run_pcglab({"bench", "thread-pool", "--tasks", "10", "--format", "json", "--threads", "3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.front(), '[');
}

TEST(Cli, ThreadPoolDigestIndependentOfThreads) {
  const auto r =
      testing::run_pcglab({"bench", "thread-pool", "--tasks", "2000", "--threads", "2", "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Two rows (1 thread, 2 threads); the digest column must match.
  const auto first = r.out.find('\n');
  const std::string row1 = r.out.substr(first + 1, r.out.find('\n', first + 1) - first - 1);
  const std::string row2 = r.out.substr(r.out.find('\n', first + 1) + 1);
  EXPECT_EQ(row1.substr(row1.rfind(',')), row2.substr(row2.rfind(','), row1.size() - row1.rfind(',')));
}

TEST(Cli, BadValueForAnIntegerOptionIsAUsageError) {
  const auto r = testing::run_pcglab({"bench", "thread-pool", "--tasks", "many"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--tasks: 'many' is not a number"), std::string::npos) << r.err;
  const auto env =
      testing::run_pcglab({"bench", "thread-pool"}, {{"PCGLAB_BENCH_THREAD_POOL_TASKS", "many"}});
  EXPECT_EQ(env.exit_code, 2);
  // An error from a variable names the variable and its value.
  EXPECT_NE(env.err.find("PCGLAB_BENCH_THREAD_POOL_TASKS=many: --tasks: 'many' is not a number"),
            std::string::npos)
      << env.err;
  const auto setup = testing::run_pcglab({"bench", "thread-pool", "--tasks", "0"});
  EXPECT_EQ(setup.exit_code, 2);
  EXPECT_NE(setup.err.find("--tasks: 0 is not in [1, 100000000]"), std::string::npos) << setup.err;
}

// Every numeric option of every command has a range that --help shows and the parser checks, so an
// option added later cannot forget one (`pcglab cli options` lists the registered tree).
TEST(Cli, EveryNumericOptionHasARange) {
  const auto r = testing::run_pcglab({"cli", "options", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json options = Json::parse(r.out);
  size_t numeric = 0;
  std::set<std::string> commands;
  for (const Json& o : options) {
    const std::string type = o["type"], shown = o["checked_type"],
                      name = o["command"].get<std::string>() + " " + o["option"].get<std::string>();
    commands.insert(o["command"]);
    if (type != "INT" && type != "UINT" && type != "FLOAT") continue;
    ++numeric;
    const bool has_range = shown.find(" in [") != std::string::npos;
    EXPECT_TRUE(has_range) << name << " has no range: " << shown;
  }
  EXPECT_GE(numeric, 40u);
  for (const char* c :
       {"", "pcgrl train", "bench classifier", "bench pcgrl-env", "birds score", "birds run", "llm chat"}) {
    EXPECT_EQ(commands.count(c), 1u) << "command '" << c << "' not listed";
  }
}

// The bounds --help prints are inside the range: every numeric option takes its printed lower and
// upper bound (a float bound such as 0.01 was refused, read as a long double below the double
// 0.01). An unknown option after the value makes CLI11 stop after the value's check, so no command
// runs.
TEST(Cli, EveryOptionTakesThePrintedBoundsOfItsRange) {
  const auto r = testing::run_pcglab({"cli", "options", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  size_t checked = 0;
  for (const Json& o : Json::parse(r.out)) {
    const std::string type = o["type"], shown = o["checked_type"], command = o["command"],
                      option = o["option"];
    if (type != "FLOAT" || command.empty()) continue;
    const size_t open = shown.find(" in [");
    const size_t comma = shown.find(", ", open), close = shown.find(']', open);
    ASSERT_TRUE(open != std::string::npos && comma != std::string::npos && close != std::string::npos)
        << shown;
    const std::string low = shown.substr(open + 5, comma - open - 5),
                      high = shown.substr(comma + 2, close - comma - 2);
    for (const std::string& bound : {low, high}) {
      std::vector<std::string> args;
      std::istringstream words(command);
      for (std::string w; words >> w;) args.push_back(w);
      args.insert(args.end(), {option, bound, "--pcglab-test-no-such-option"});
      const auto run = testing::run_pcglab(args);
      EXPECT_EQ(run.exit_code, 2) << command << " " << option << " " << bound;
      EXPECT_EQ(run.err.find("is not in"), std::string::npos)
          << command << " " << option << " " << bound << ": " << run.err;
      ++checked;
    }
  }
  EXPECT_GE(checked, 10u);
}

// The words of a command ("pcgrl refine" -> {"pcgrl", "refine"}).
std::vector<std::string> command_words(const std::string& command) {
  std::vector<std::string> words;
  std::istringstream in(command);
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

// The description --help prints under `option` of `command` (the line after the option's own).
std::string help_of_option(const std::string& command, const std::string& option) {
  std::vector<std::string> args = command_words(command);
  args.push_back("--help");
  std::istringstream lines(run_pcglab(args).out);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string first;
    words >> first;
    if (first == option || first.ends_with("," + option)) {
      std::string text;
      std::getline(lines, text);
      return text.substr(text.find_first_not_of(' '));
    }
  }
  return "(not in --help)";
}

// The LLM options are declared once (apps/pcglab/llm_options.h): every verb that talks to an LLM
// server (it takes --base-url) takes the whole set, each with the same type, range and help text.
TEST(Cli, EveryLlmVerbTakesTheSameLlmOptions) {
  const auto r = testing::run_pcglab({"cli", "options", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, std::map<std::string, std::string>> types;  // command -> option -> checked type
  for (const Json& o : Json::parse(r.out)) types[o["command"]][o["option"]] = o["checked_type"];
  std::set<std::string> llm_verbs;
  for (const auto& [command, options] : types)
    if (options.count("--base-url") != 0) llm_verbs.insert(command);
  for (const char* verb : {"birds run", "llm chat", "pcgrl refine"})
    EXPECT_EQ(llm_verbs.count(verb), 1u) << verb << " takes no --base-url";
  const std::vector<std::string> shared = {"--model",   "--base-url",      "--temperature",
                                           "--top-p",   "--max-tokens",    "--timeout",
                                           "--backoff", "--no-keep-alive", "--max-response-mb"};
  const std::string first = *llm_verbs.begin();
  for (const std::string& verb : llm_verbs) {
    for (const std::string& option : shared) {
      ASSERT_EQ(types[verb].count(option), 1u) << verb << " lacks " << option;
      // A preset sampling default (pcgrl refine's official settings) changes only the default shown.
      EXPECT_EQ(types[verb][option], types[first][option]) << verb << " " << option;
      if (option == "--max-response-mb" || option == "--temperature" || option == "--top-p" ||
          option == "--max-tokens")
        continue;  // says what a failure fails, or where the default comes from
      EXPECT_EQ(help_of_option(verb, option), help_of_option(first, option)) << verb << " " << option;
    }
    EXPECT_EQ(types[verb].count("--max-retries") + types[verb].count("--retries"), 1u) << verb;
  }
}

// --unsafe-no-sandbox is declared once: every verb that runs generated code says the same thing of it.
TEST(Cli, EveryUnsafeNoSandboxFlagSaysTheSame) {
  const auto r = testing::run_pcglab({"cli", "options", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::set<std::string> verbs;
  for (const Json& o : Json::parse(r.out))
    if (o["option"] == "--unsafe-no-sandbox") verbs.insert(o["command"]);
  EXPECT_GE(verbs.size(), 5u);
  const std::regex said(R"(Run .+ without namespaces when the sandbox does not work here \(loud warning\))");
  for (const std::string& verb : verbs) {
    const std::string help = help_of_option(verb, "--unsafe-no-sandbox");
    EXPECT_TRUE(std::regex_match(help, said)) << verb << ": " << help;
  }
}

// The subcommands `pcglab <args> --help` lists (empty for a verb).
std::vector<std::string> help_subcommands(const std::vector<std::string>& args) {
  std::vector<std::string> with_help = args;
  with_help.push_back("--help");
  const std::string out = run_pcglab(with_help).out;
  const size_t at = out.find("Subcommands:\n");
  if (at == std::string::npos) return {};
  std::vector<std::string> names;
  std::istringstream lines(out.substr(at + 13, out.find("\n\n", at) - at - 13));
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string name;
    if (words >> name) names.push_back(name);
  }
  return names;
}

// The README's command table lists exactly the verbs `pcglab --help` and each group's --help show.
TEST(Cli, TheReadmeListsEveryVerbAndNoOther) {
  std::set<std::string> readme;
  const std::regex row(R"(^\| `pcglab ([^`]*)`)");
  const std::regex word("[a-z][a-z0-9-]*");
  std::istringstream text(read_file(testing::source_dir() / "README.md"));
  for (std::string line; std::getline(text, line);) {
    std::smatch m;
    if (!std::regex_search(line, m, row)) continue;
    std::istringstream words(m[1].str());
    std::string verb, w;
    for (int n = 0; n < 2 && words >> w && std::regex_match(w, word); ++n)
      verb += (verb.empty() ? "" : " ") + w;
    readme.insert(verb);
  }
  std::set<std::string> help;
  for (const std::string& group : help_subcommands({})) {
    const auto verbs = help_subcommands({group});
    if (verbs.empty()) help.insert(group);
    for (const std::string& verb : verbs) help.insert(group + " " + verb);
  }
  EXPECT_GE(help.size(), 20u);
  for (const std::string& v : help)
    EXPECT_EQ(readme.count(v), 1u) << "README.md does not list `pcglab " << v << "`";
  for (const std::string& v : readme)
    EXPECT_EQ(help.count(v), 1u) << "README.md lists `pcglab " << v << "`, which --help does not";
}

TEST(Cli, RangesAreShownInHelpAndOutOfRangeValuesNameTheOption) {
  const auto help = testing::run_pcglab({"pcgrl", "train", "--help"});
  ASSERT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("--rollout INT:INT in [1, 100000]"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("--lr FLOAT:FLOAT in [1e-08, 1]"), std::string::npos) << help.out;
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"pcgrl", "train", "--rollout", "0"}, "--rollout: 0 is not in [1, 100000]"},
      {{"pcgrl", "train", "--minibatches", "0"}, "--minibatches: 0 is not in [1, 65536]"},
      {{"pcgrl", "train", "--epochs", "-1"}, "--epochs: -1 is not in [1, 1000]"},
      {{"pcgrl", "train", "--lr", "nan"}, "--lr: nan is not in [1e-08, 1]"},
      {{"pcgrl", "train", "--steps", "0"}, "--steps: 0 is not in [1, 1000000000000]"},
      {{"pcgrl", "train", "--envs", "2.5"}, "--envs: '2.5' is not an integer"},
      {{"bench", "thread-pool", "--seed", "-1"}, "--seed: -1 is not in [0, 18446744073709551615]"},
      {{"bench", "thread-pool", "--tasks", "010"},
       "--tasks: '010': write the integer in decimal digits (10)"},
      {{"bench", "thread-pool", "--tasks", "1e3"},
       "--tasks: '1e3': write the integer in decimal digits (1000)"},
      {{"bench", "classifier", "--images", "0"}, "--images: 0 is not in [1, 100000]"},
      {{"bench", "classifier", "--repeats", "0"}, "--repeats: 0 is not in [1, 1000]"},
      {{"bench", "pcgrl-env", "--envs", "1e8"}, "--envs: 1e8 is not in [1, 1000000]"},
      {{"bench", "thread-pool", "--threads", "abc"}, "--threads: 'abc' is not a number"},
  };
  for (const auto& [args, message] : cases) {
    const auto r = testing::run_pcglab(args);
    EXPECT_EQ(r.exit_code, 2) << args[1] << " " << message;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
  }
}

// A verb's variable is PCGLAB_<GROUP>_<VERB>_<OPTION>: one meant for `birds run` does not reach
// `pcgrl eval` or `birds score`; the old unscoped name is ignored with a warning saying which to use.
TEST(Cli, VerbVariablesAreScopedToTheirVerb) {
  testing::TempDir dir;
  std::string level;
  for (int r = 0; r < 16; ++r) level += "################\n";
  write_file_atomic(dir / "level.txt", level);
  // 1 is outside birds diversity's --trials range [2, 1000]: its variable is not even read here.
  const auto r = testing::run_pcglab({"pcgrl", "eval", (dir / "level.txt").string()},
                                     {{"PCGLAB_TRIALS", "1"}, {"PCGLAB_BIRDS_DIVERSITY_TRIALS", "1"}});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("PCGLAB_TRIALS is set but ignored"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("PCGLAB_BIRDS_"), std::string::npos) << r.err;
  const auto used = testing::run_pcglab({"birds", "diversity", dir.path().string()},
                                        {{"PCGLAB_BIRDS_DIVERSITY_TRIALS", "1"}});
  EXPECT_EQ(used.exit_code, 2);
  EXPECT_NE(used.err.find("PCGLAB_BIRDS_DIVERSITY_TRIALS=1: --trials: 1 is not in [2, 1000]"),
            std::string::npos)
      << used.err;
  const auto options = testing::run_pcglab({"cli", "options", "--format", "csv"});
  EXPECT_NE(options.out.find("birds run,--trials,INT,\"INT:INT in [1, 1000]\""), std::string::npos)
      << options.out;
  EXPECT_NE(options.out.find(",PCGLAB_BIRDS_RUN_TRIALS,"), std::string::npos) << options.out;
  EXPECT_NE(options.out.find(",--format,TEXT,"), std::string::npos) << options.out;
  EXPECT_NE(options.out.find(",PCGLAB_FORMAT,"), std::string::npos) << options.out;
}

}  // namespace
}  // namespace pcglab
