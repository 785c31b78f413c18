// pcglab: a thin main over the library; subcommands register themselves (see command.h).
#include "command.h"

int main(int argc, char** argv) {
  return pcglab::cli::run_cli(argc, argv);
}
