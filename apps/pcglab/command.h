// The pcglab CLI's registry of subcommand groups and verbs (OpenSpiel-style registration).
//
// Each track has one file that registers its group (apps/pcglab/birds.cc: PCGLAB_REGISTER_GROUP)
// and any number of files that register verbs in it (PCGLAB_REGISTER_COMMAND). main.cc never
// changes when a verb is added. Every option gets an environment variable PCGLAB_<LONG_NAME>
// (e.g. --log-level -> PCGLAB_LOG_LEVEL) and shows its default in --help.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "core/table.h"

namespace pcglab::cli {

// Options that every command sees (they may be given before or after the verb).
struct GlobalOptions {
  std::string format = "md";
  std::string log_level = "info";
  bool quiet = false;
  int threads = 0;  // 0: one per core

  OutputFormat output_format() const { return parse_output_format(format); }
};

// Exit codes: 0 all items ok, 1 some items failed, 2 usage or setup error.
inline constexpr int kExitOk = 0;
inline constexpr int kExitItemsFailed = 1;
inline constexpr int kExitSetup = 2;

// Runs the verb after parsing; returns the exit code. Throw SetupError for bad setup.
using Action = std::function<int()>;
// Declares the verb's options on `cmd` and returns its action. `global` stays valid for the run.
using CommandSetup = Action (*)(CLI::App& cmd, const GlobalOptions& global);

struct GroupRegistration {
  std::string name;
  std::string description;
};

struct CommandRegistration {
  std::string group;
  std::string name;
  std::string description;
  CommandSetup setup;
};

std::vector<GroupRegistration>& registered_groups();
std::vector<CommandRegistration>& registered_commands();

struct Registrar {
  explicit Registrar(GroupRegistration group);
  explicit Registrar(CommandRegistration command);
};

// Builds the whole CLI on `app`; returns, per verb App, its action (filled in after parsing).
struct CliTree {
  std::vector<std::pair<CLI::App*, Action>> actions;
};
CliTree build_cli(CLI::App& app, GlobalOptions& global);

// Runs the CLI; returns the process exit code. Never calls exit().
int run_cli(int argc, char** argv);

// Prints a table to stdout in the format chosen by --format.
void print_table(const Table& table, const GlobalOptions& global);

}  // namespace pcglab::cli

#define PCGLAB_CLI_CONCAT_INNER(a, b) a##b
#define PCGLAB_CLI_CONCAT(a, b) PCGLAB_CLI_CONCAT_INNER(a, b)

// PCGLAB_REGISTER_GROUP("birds", "Science Birds (ChatGPT4PCG) ...");
#define PCGLAB_REGISTER_GROUP(name, description)                                      \
  static const ::pcglab::cli::Registrar PCGLAB_CLI_CONCAT(pcglab_group_, __LINE__){ \
      ::pcglab::cli::GroupRegistration{name, description}}

// PCGLAB_REGISTER_COMMAND("birds", "extract", "Extract ... code", setup_extract);
#define PCGLAB_REGISTER_COMMAND(group, name, description, setup)                        \
  static const ::pcglab::cli::Registrar PCGLAB_CLI_CONCAT(pcglab_command_, __LINE__){ \
      ::pcglab::cli::CommandRegistration{group, name, description, setup}}
