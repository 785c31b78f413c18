#include "command.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <iostream>
#include <map>

#include <fmt/format.h>

#include "core/check.h"
#include "core/log.h"
#include "core/progress.h"
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

Registrar::Registrar(GroupRegistration group) { registered_groups().push_back(std::move(group)); }
Registrar::Registrar(CommandRegistration command) { registered_commands().push_back(std::move(command)); }

namespace {

std::string env_name_for(const std::string& long_name) {
  std::string out = "PCGLAB_";
  for (char c : long_name) out += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// Gives every named option of `app` and its subcommands an environment variable.
void assign_env_names(CLI::App& app) {
  for (CLI::Option* opt : app.get_options()) {
    if (opt->get_lnames().empty() || !opt->get_envname().empty()) continue;
    const std::string& name = opt->get_lnames().front();
    if (name == "help" || name == "version") continue;
    opt->envname(env_name_for(name));
  }
  for (CLI::App* sub : app.get_subcommands({})) assign_env_names(*sub);
}

void add_global_options(CLI::App& app, GlobalOptions& global) {
  app.add_option("--format", global.format, "Output format for tables")
      ->check(CLI::IsMember({"md", "csv", "json", "jsonl"}));
  app.add_option("--log-level", global.log_level, "Log level")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}));
  app.add_flag("--quiet,-q", global.quiet, "Only errors on stderr; no progress bar");
  app.add_option("--threads", global.threads, "Worker threads (0: one per core)")
      ->check(CLI::Range(0, 1024));
}

}  // namespace

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
    CLI::App* group = group_apps.count(c.group) != 0 ? group_apps[c.group] : nullptr;
    PCGLAB_CHECK(group != nullptr) << "command " << c.name << " registered in unknown group " << c.group;
    CLI::App* cmd = group->add_subcommand(c.name, c.description);
    cmd->fallthrough();
    tree.actions.emplace_back(cmd, c.setup(*cmd, global));
  }
  assign_env_names(app);
  return tree;
}

void print_table(const Table& table, const GlobalOptions& global) {
  std::fputs(format_table(table, global.output_format()).c_str(), stdout);
  std::fflush(stdout);
}

int run_cli(int argc, char** argv) {
  GlobalOptions global;
  CLI::App app{"pcglab: generate game content with LLMs and measure it", "pcglab"};
  app.footer(
      "Every option can also be set by an environment variable PCGLAB_<OPTION>, e.g. PCGLAB_LOG_LEVEL.\n"
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
      fmt::print(stderr, "pcglab: error: {}\nRun 'pcglab --help' for usage.\n", e.what());
      return kExitSetup;
    }
    set_log_level(global.quiet ? LogLevel::kError : parse_log_level(global.log_level));
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
