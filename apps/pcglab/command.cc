#include "command.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <map>
#include <set>

#include <fmt/format.h>

#include "core/check.h"
#include "core/log.h"
#include "core/progress.h"
#include "core/registry.h"
#include "core/version.h"

namespace pcglab::cli {

std::vector<GroupRegistration>& registered_groups() {
  static std::vector<GroupRegistration> groups;
  return groups;
}

std::vector<CommandRegistration>& registered_commands() {
  static std::vector<CommandRegistration> commands;
  return commands;
}

Registrar::Registrar(GroupRegistration group) {
  registered_groups().push_back(std::move(group));
}
Registrar::Registrar(CommandRegistration command) {
  registered_commands().push_back(std::move(command));
}

namespace {

std::string upper_snake(const std::string& name) {
  std::string out;
  for (char c : name) out += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// Gives every named option of `app` (a group or verb at `path`) and its subcommands its variable.
void assign_env_names(CLI::App& app, const std::vector<std::string>& path) {
  for (CLI::Option* opt : app.get_options()) {
    if (opt->get_lnames().empty() || !opt->get_envname().empty()) continue;
    const std::string& name = opt->get_lnames().front();
    if (name == "help" || name == "version" || name == "help-all") continue;
    opt->envname(option_env_name(path.size() > 0 ? path[0] : "", path.size() > 1 ? path[1] : "", name));
  }
  for (CLI::App* sub : app.get_subcommands({})) {
    auto sub_path = path;
    sub_path.push_back(sub->get_name());
    assign_env_names(*sub, sub_path);
  }
}

// Every option of the tree with the verb it belongs to ("" for the global options).
void for_each_option(const CLI::App& app, const std::string& path,
                     const std::function<void(const std::string&, const CLI::Option&)>& visit) {
  for (const CLI::Option* opt : app.get_options()) visit(path, *opt);
  for (const CLI::App* sub : app.get_subcommands({})) {
    for_each_option(*sub, path.empty() ? sub->get_name() : path + " " + sub->get_name(), visit);
  }
}

void add_global_options(CLI::App& app, GlobalOptions& global) {
  app.add_option("--format", global.format, "Output format for tables")
      ->check(CLI::IsMember({"md", "csv", "json", "jsonl"}));
  app.add_option("--log-level", global.log_level, "Log level")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}));
  app.add_flag("--quiet,-q", global.quiet, "Only errors on stderr; no progress bar");
  app.add_option("--threads", global.threads, "Worker threads (0: one per core)")->check(number_in(0, 1024));
}

// CLI11 reads (and checks) the variables of every subcommand's options, used or not, unless the
// subcommand has a parse-complete callback: then only a verb on the command line reads its own,
// when its parsing completes. So a variable of one verb never stops another. (Groups have no
// options; without the callback their requirement "a verb is needed" is checked after the global
// options, so `--format xml bench` names the bad format first.)
void read_environment_only_when_used(CLI::App& sub) {
  sub.parse_complete_callback([] {});
}

// `pcglab cli options`: every option of every command, its type, check and variable (hidden; the
// tests use it to check that every numeric option has a range).
Action setup_cli_options(CLI::App& cmd, CLI::App& root, const GlobalOptions& global) {
  cmd.group("");  // hidden from --help
  return [&root, &global] {
    Table t;
    t.columns = {"command", "option", "type", "checked_type", "env", "default"};
    for_each_option(root, "", [&](const std::string& command, const CLI::Option& opt) {
      if (opt.get_name() == "--help" || opt.get_name() == "--version") return;
      // get_type_name() is the "TYPE:check" text --help shows; the part before the colon is the type.
      const std::string shown = opt.get_type_name();
      const std::string type = shown.substr(0, shown.find(':'));
      t.add_row({command, opt.get_name(), shown.empty() ? "FLAG" : type, shown, opt.get_envname(),
                 opt.get_default_str()});
    });
    print_table(t, global);
    return kExitOk;
  };
}

// `pcglab cli registry`: everything registered — CLI groups and verbs, and every core/registry.h
// registry (letter classifiers, libtorch modules, stages, ...) — one row each (hidden; a test reads
// it to check that a track's registrations reach the executable).
Action setup_cli_registry(CLI::App& cmd, const GlobalOptions& global) {
  cmd.group("");
  return [&global] {
    Table t;
    t.columns = {"kind", "name", "description"};
    auto groups = registered_groups();
    std::sort(groups.begin(), groups.end(), [](auto& a, auto& b) { return a.name < b.name; });
    for (const auto& g : groups) t.add_row({"cli-groups", g.name, g.description});
    auto commands = registered_commands();
    std::sort(commands.begin(), commands.end(),
              [](auto& a, auto& b) { return std::tie(a.group, a.name) < std::tie(b.group, b.name); });
    for (const auto& c : commands)  // a verb of no group is a top-level command (`pcglab merge`)
      t.add_row({"cli-verbs", c.group.empty() ? c.name : c.group + " " + c.name, c.description});
    for (const auto& listing : list_registries())
      for (const auto& [name, description] : listing.entries) t.add_row({listing.kind, name, description});
    print_table(t, global);
    return kExitOk;
  };
}

}  // namespace

std::string option_env_name(const std::string& group, const std::string& verb, const std::string& long_name) {
  std::string out = "PCGLAB_";
  if (!group.empty()) out += upper_snake(group) + "_";
  if (!verb.empty()) out += upper_snake(verb) + "_";
  return out + upper_snake(long_name);
}

CliTree build_cli(CLI::App& app, GlobalOptions& global) {
  app.option_defaults()->always_capture_default();
  app.set_version_flag("--version", std::string("pcglab ") + kVersion);
  app.require_subcommand(1);
  app.fallthrough();
  add_global_options(app, global);

  auto groups = registered_groups();
  std::stable_sort(groups.begin(), groups.end(), [](auto& a, auto& b) { return a.name < b.name; });
  std::map<std::string, CLI::App*> group_apps;
  for (const auto& g : groups) {
    CLI::App* group = app.add_subcommand(g.name, g.description);
    group_apps[g.name] = group;
    group->require_subcommand(1);
    group->fallthrough();
  }

  CliTree tree;
  auto commands = registered_commands();
  std::stable_sort(commands.begin(), commands.end(),
                   [](auto& a, auto& b) { return std::tie(a.group, a.name) < std::tie(b.group, b.name); });
  for (const auto& c : commands) {
    // An empty group: a top-level verb (pcglab merge).
    CLI::App* group = c.group.empty() ? &app : group_apps.count(c.group) != 0 ? group_apps[c.group] : nullptr;
    PCGLAB_CHECK(group != nullptr) << "command " << c.name << " registered in unknown group " << c.group;
    CLI::App* cmd = group->add_subcommand(c.name, c.description);
    cmd->fallthrough();
    read_environment_only_when_used(*cmd);
    tree.actions.emplace_back(cmd, c.setup(*cmd, global));
  }
  CLI::App* cli = app.add_subcommand("cli", "pcglab's own command line")->group("");
  cli->require_subcommand(1);
  cli->fallthrough();
  CLI::App* options =
      cli->add_subcommand("options", "Every option: type, checks, environment variable, default");
  options->fallthrough();
  read_environment_only_when_used(*options);
  tree.actions.emplace_back(options, setup_cli_options(*options, app, global));
  CLI::App* registry =
      cli->add_subcommand("registry", "Everything registered: verbs, classifiers, modules, ...");
  registry->fallthrough();
  read_environment_only_when_used(*registry);
  tree.actions.emplace_back(registry, setup_cli_registry(*registry, global));
  assign_env_names(app, {});
  return tree;
}

void print_table(const Table& table, const GlobalOptions& global) {
  std::fputs(format_table(table, global.output_format()).c_str(), stdout);
  std::fflush(stdout);
}

namespace {

// Whether `opt` was given on the command line (else its value may have come from its variable).
bool given_on_command_line(const CLI::Option& opt, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") break;
    for (const std::string& l : opt.get_lnames()) {
      if (arg == "--" + l || arg.rfind("--" + l + "=", 0) == 0) return true;
    }
    for (const std::string& s : opt.get_snames()) {
      if (arg.size() >= 2 && arg[0] == '-' && arg[1] != '-' && arg.find(s, 1) == 1) return true;
    }
  }
  return false;
}

// Whether `message` names option `name` ("--trials", not a prefix of "--trials-max").
bool names_option(const std::string& message, const std::string& name) {
  for (size_t at = message.find(name); at != std::string::npos; at = message.find(name, at + 1)) {
    const size_t end = at + name.size();
    if (end == message.size()) return true;
    const char next = message[end];
    if (!std::isalnum(static_cast<unsigned char>(next)) && next != '-' && next != '_') return true;
  }
  return false;
}

// A parse error caused by an environment variable names the variable and its value.
std::string describe_parse_error(const CLI::App& app, const CLI::ParseError& e, int argc, char** argv) {
  const std::string what = e.what();
  std::string from_env;
  std::function<void(const CLI::App&)> visit = [&](const CLI::App& a) {
    for (const CLI::Option* opt : a.get_options()) {
      const std::string& env = opt->get_envname();
      const char* value = env.empty() ? nullptr : std::getenv(env.c_str());
      if (value == nullptr || !from_env.empty() || given_on_command_line(*opt, argc, argv)) continue;
      if (names_option(what, opt->get_name())) from_env = fmt::format("{}={}: ", env, value);
    }
    for (const CLI::App* sub : a.get_subcommands()) visit(*sub);
  };
  visit(app);
  return from_env + what;
}

// PCGLAB_<OPTION> set for a verb's option: before verb-scoped variables that was how a verb's
// option was set; now it is ignored, so say which variable to use instead.
void warn_about_unscoped_variables(const CLI::App& app) {
  std::map<std::string, std::vector<std::string>> scoped;  // PCGLAB_TRIALS -> its verb-scoped names
  std::set<std::string> global_names;
  for_each_option(app, "", [&](const std::string& command, const CLI::Option& opt) {
    if (opt.get_envname().empty() || opt.get_lnames().empty()) return;
    const std::string plain = option_env_name("", "", opt.get_lnames().front());
    if (command.empty()) {
      global_names.insert(plain);
    } else {
      scoped[plain].push_back(opt.get_envname());
    }
  });
  for (const auto& [plain, names] : scoped) {
    if (global_names.count(plain) != 0 || std::getenv(plain.c_str()) == nullptr) continue;
    log_warn("{} is set but ignored: a verb's option is set by PCGLAB_<GROUP>_<VERB>_<OPTION>, e.g. {}",
             plain, names.front());
  }
}

}  // namespace

int run_cli(int argc, char** argv) {
  GlobalOptions global;
  CLI::App app{"pcglab: generate game content with LLMs and measure it", "pcglab"};
  app.footer(
      "Every option can also be set by an environment variable: PCGLAB_<OPTION> for the options above\n"
      "(e.g. PCGLAB_LOG_LEVEL), PCGLAB_<GROUP>_<VERB>_<OPTION> for a verb's own (e.g. "
      "PCGLAB_BIRDS_RUN_TRIALS).\n"
      "A flag on the command line wins over its variable.\n"
      "Exit codes: 0 all items ok, 1 some items failed, 2 usage or setup error.");
  try {
    CliTree tree = build_cli(app, global);
    try {
      app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
      return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
      return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
      return app.exit(e);
    } catch (const CLI::ParseError& e) {
      fmt::print(stderr, "pcglab: error: {}\nRun 'pcglab --help' for usage.\n",
                 describe_parse_error(app, e, argc, argv));
      return kExitSetup;
    }
    set_log_level(global.quiet ? LogLevel::kError : parse_log_level(global.log_level));
    warn_about_unscoped_variables(app);
    ProgressBar::set_globally_enabled(!global.quiet);
    for (auto& [cmd, action] : tree.actions) {
      if (cmd->parsed()) return action();
    }
    fmt::print(stderr, "pcglab: error: no command given\nRun 'pcglab --help' for usage.\n");
    return kExitSetup;
  } catch (const SetupError& e) {
    fmt::print(stderr, "pcglab: error: {}\n", e.what());
    return kExitSetup;
  } catch (const CheckError& e) {
    fmt::print(stderr, "pcglab: internal error (please report): {}\n", e.what());
    return kExitSetup;
  } catch (const std::exception& e) {
    fmt::print(stderr, "pcglab: error: {}\n", e.what());
    return kExitSetup;
  }
}

}  // namespace pcglab::cli
