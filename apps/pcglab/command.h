// The pcglab CLI's registry of subcommand groups and verbs (OpenSpiel-style registration).
//
// Each track has one file that registers its group (apps/pcglab/birds.cc: PCGLAB_REGISTER_GROUP)
// and any number of files that register verbs in it (PCGLAB_REGISTER_COMMAND). main.cc never
// changes when a verb is added. Every option shows its default in --help and gets an environment
// variable: PCGLAB_<OPTION> for the global options (--log-level -> PCGLAB_LOG_LEVEL) and
// PCGLAB_<GROUP>_<VERB>_<OPTION> for a verb's own (birds run --trials -> PCGLAB_BIRDS_RUN_TRIALS),
// so a variable meant for one command never reaches another. Every numeric option has a range
// (number_in), shown in --help and checked before the command runs.
#pragma once

#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include <fmt/format.h>
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

// A check that an option's value is a number of type T in [min, max], with the range in --help
// ("INT in [1, 4096]"). Its errors say what is wrong: "'abc' is not a number", "'2.5' is not an
// integer", "nan is not in [1e-08, 1]" (NaN and infinities are outside every range). Integers are
// plain decimal digits ("1e3" and "010" are refused with the digits to write).
template <typename T>
CLI::Validator number_in(T min, T max) {
  static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>);
  const std::string range = fmt::format("[{}, {}]", min, max);
  auto check = [min, max, range](std::string& input) -> std::string {
    long double approx = 0;
    char* end = nullptr;
    if (!input.empty()) approx = std::strtold(input.c_str(), &end);
    if (input.empty() || end != input.c_str() + input.size() ||
        std::isspace(static_cast<unsigned char>(input[0])))
      return fmt::format("'{}' is not a number", input);
    // A floating-point value is compared as the T that CLI11 will store, so that the bounds --help
    // prints ("0.01") are inside the range: 0.01 read as a long double is below the double 0.01.
    bool in_range = false;
    if constexpr (std::is_floating_point_v<T>) {
      const T value = static_cast<T>(approx);
      in_range = value >= min && value <= max;
    } else {
      in_range = approx >= static_cast<long double>(min) && approx <= static_cast<long double>(max);
    }
    if (!in_range) return fmt::format("{} is not in {}", input, range);
    if constexpr (std::is_integral_v<T>) {
      // CLI11 then reads the text with strtoll(base 0): accept plain decimal digits only, so that
      // "010" is not read as octal 8 and "1e3" not refused after this check passed it.
      const bool digits = input.find_first_not_of("0123456789", input[0] == '-' ? 1 : 0) == std::string::npos;
      const bool leading_zero =
          input.size() > (input[0] == '-' ? 2u : 1u) && input[input[0] == '-' ? 1 : 0] == '0';
      if (approx != std::floor(approx)) return fmt::format("'{}' is not an integer", input);
      if (!digits || leading_zero)
        return fmt::format("'{}': write the integer in decimal digits ({})", input, static_cast<T>(approx));
    }
    return {};
  };
  return CLI::Validator(check, fmt::format("{} in {}", CLI::detail::type_name<T>(), range), "range");
}

// Seeds and other values whose every value is valid: the whole range of T (so that "abc" is
// still reported as not a number, and --help shows the type's range).
template <typename T>
CLI::Validator any_number() {
  return number_in<T>(std::numeric_limits<T>::lowest(), std::numeric_limits<T>::max());
}

// The environment variable of option `long_name` of verb `group verb` (both empty: a global option).
std::string option_env_name(const std::string& group, const std::string& verb, const std::string& long_name);

// Runs the CLI; returns the process exit code. Never calls exit().
int run_cli(int argc, char** argv);

// Prints a table to stdout in the format chosen by --format.
void print_table(const Table& table, const GlobalOptions& global);

}  // namespace pcglab::cli

#define PCGLAB_CLI_CONCAT_INNER(a, b) a##b
#define PCGLAB_CLI_CONCAT(a, b) PCGLAB_CLI_CONCAT_INNER(a, b)

// PCGLAB_REGISTER_GROUP("birds", "Science Birds (ChatGPT4PCG) ...");
#define PCGLAB_REGISTER_GROUP(name, description)                                        \
  static const ::pcglab::cli::Registrar PCGLAB_CLI_CONCAT(pcglab_group_, __COUNTER__) { \
    ::pcglab::cli::GroupRegistration {                                                  \
      name, description                                                                 \
    }                                                                                   \
  }

// PCGLAB_REGISTER_COMMAND("birds", "extract", "Extract ... code", setup_extract);
#define PCGLAB_REGISTER_COMMAND(group, name, description, setup)                          \
  static const ::pcglab::cli::Registrar PCGLAB_CLI_CONCAT(pcglab_command_, __COUNTER__) { \
    ::pcglab::cli::CommandRegistration {                                                  \
      group, name, description, setup                                                     \
    }                                                                                     \
  }
